#!/usr/bin/env bash
# compile-learner.sh SOURCE OBJECT NVCC [FLAGS...]: compile a learner's file
# into OBJECT, as the build does (common/step.mk) and as grading/integrity
# checks it, and beside OBJECT (its name less .o, then):
#
#   .fatbin   the module the program loads
#   .kernels  the module's kernels, parameters and variables (kernels.awk)
#   .ptx      the PTX of every architecture, one file after the other
#   .ii       the host code exactly as the host compiler compiled it into
#             OBJECT (preprocessed: nothing in it can tell one compile from
#             another), which grading/integrity reads
#   .d        the dependency list of this very compile (make reads it)
#
# What the file includes is checked twice (common/tools/check-includes.sh):
# before, by the preprocessor, so that a forbidden header is never compiled;
# and after, from the dependency list this compile wrote, for the host and
# the device passes, so that no branch taken in this compile alone hides
# one. A forbidden header fails the compile, named, and nothing the compiler
# said (which may quote it) is shown.
# The compiler's temporary folder is a new one outside the workbook, named at
# random and removed after: no file can find it (__has_include) and compile
# otherwise than when it is checked.
# Exit status: 0 compiled; 1 a header refused, or the compiler failed (its
# messages shown); 2 for bad arguments.
set -u
OPTIONS_NAME="compile-learner"
source "$(dirname "$0")/options.bash"
case ${1:-} in -h | --help) usage; exit 0 ;; esac
[ $# -ge 3 ] || die "name the file, the object and the compiler (try --help)"
source=$1 object=$2 nvcc=$3
shift 3
[ -f "$source" ] || die "$source: no such file"
[[ $object == *.o ]] || die "$object: an object's name ends in .o"
tools=$(cd "$(dirname "$0")" && pwd)
workbook=$(cd "$tools/../.." && pwd)
name=$(basename "$source" .cu)
base=${object%.o}

"$tools/check-includes.sh" "$source" "$nvcc" "$@" || exit 1

tmp=$(mktemp -d) || { echo "compile-learner: cannot make a temporary folder" >&2; exit 1; }
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM HUP  # (the folder is removed then too)
mkdir "$tmp/keep"
# -MD, not -MMD: a file that marks itself a system header (a line marker
# "# 1 "x.cu" 3") would leave what it includes after out of -MMD's list.
# -save-temps=obj leaves the host code as compiled ($tmp/NAME.ii) beside
# the object.
"$nvcc" "$@" -Xcompiler -save-temps=obj --keep --keep-dir "$tmp/keep" -MD -MP -MF "$tmp/$name.d" -MT "$object" \
    -c -o "$tmp/$name.o" "$source" >"$tmp/messages" 2>&1
status=$?
if [ -f "$tmp/$name.d" ]; then
    "$tools/check-includes.sh" --deps "$tmp/$name.d" "$source" "$nvcc" "$@" || exit 1
    cat "$tmp/messages" >&2
else
    # No list: the preprocessor failed, which it did not before, when the
    # same file was checked: only what is about the workbook's files the
    # learner's step has is shown.
    step=$(basename "$(dirname "$(readlink -f "$source")")")
    [[ $step =~ ^[0-9][0-9]- ]] || step=99
    "$tools/quote-workbook.sh" "$workbook" "$(dirname "$source")" "$step" <"$tmp/messages" >&2
    [ "$status" -ne 0 ] || { echo "compile-learner: $nvcc wrote no dependency list for $source" >&2; exit 1; }
fi
[ "$status" -eq 0 ] || exit 1

# The object last: a build stopped halfway leaves none.
mkdir -p "$(dirname "$object")"
rm -f "$object" "$base.fatbin" "$base.kernels" "$base.ptx" "$base.ii" "$base.d"
cat "$tmp/keep"/*.ptx >"$base.ptx" &&
    awk -f "$tools/kernels.awk" "$tmp/keep"/*.ptx >"$base.kernels" &&
    cp "$tmp/keep/$name.fatbin" "$base.fatbin" &&
    { [ ! -f "$tmp/$name.ii" ] || cp "$tmp/$name.ii" "$base.ii"; } &&  # (a stand-in compiler may write none)
    cp "$tmp/$name.d" "$base.d" &&
    cp "$tmp/$name.o" "$object"
