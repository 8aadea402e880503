#!/usr/bin/env bash
# check-includes.sh [--deps LIST] FILE NVCC [FLAGS...]: make sure that
# everything FILE includes is the workbook's (common/, what a learner of
# FILE's step has: common/tools/handed-out.bash), the CUDA toolkit's or the
# system's headers: a hand-in is one file, and it may not bring in another --
# a solution, a later step's answer, another student's work, a key of the
# machine's.
# The list comes from the preprocessor itself, so a macro that names the
# header, or a branch for one architecture, hides nothing:
#   without --deps  before FILE is compiled: NVCC -M, with the build's FLAGS,
#                   for the host and the device passes;
#   --deps LIST     after: LIST, the dependency file the build's own compile
#                   of FILE wrote (nvcc -MD: every pass, system headers too),
#                   so that no header the build's compile alone reads, by a
#                   branch only that compile takes, is missed.
# NVCC and FLAGS say, either way, where the toolkit's and the system's
# headers are.
# Exit status: 0 when every header is allowed; 1 otherwise (each named,
# nothing of one quoted), or when the preprocessor fails (its messages shown,
# less any that quote a file outside the workbook); 2 for bad arguments.
set -u
OPTIONS_NAME="check-includes"
source "$(dirname "$0")/options.bash"
deps_file=""
case ${1:-} in
-h | --help) usage; exit 0 ;;
--deps) need_value "$@"; deps_file=$2; shift 2; [ -f "$deps_file" ] || die "--deps $deps_file: no such file" ;;
esac
[ $# -ge 2 ] || die "name the file and the compiler (try --help)"
file=$1
nvcc=$2
shift 2
[ -f "$file" ] || die "$file: no such file"
common=$(cd "$(dirname "$0")/.." && pwd -P)
workbook=$(dirname "$common")

# The folders a header may come from: common/, the toolkit (where nvcc really
# is), and those the host compiler searches by itself.
allowed=("$common" "$(dirname "$(dirname "$(readlink -f "$(command -v "$nvcc")")")")"
    "$(dirname "$(dirname "$(realpath -s -m -- "$(command -v "$nvcc")")")")")
host=g++
for ((i = 1; i <= $#; i++)); do
    [ "${!i}" = -ccbin ] && { j=$((i + 1)); host=${!j}; }
done
# nvcc's own include folders, and where their links lead (a toolkit unpacked
# from Debian's packages links include/'s headers into usr/include).
while read -r dir; do
    [ -d "$dir" ] || continue
    allowed+=("$(realpath -s -m -- "$dir")" "$(readlink -f "$dir")")
    for entry in "$dir"/*; do
        [ -L "$entry" ] || continue
        if [ -d "$entry" ]; then allowed+=("$(readlink -f "$entry")"); else allowed+=("$(dirname "$(readlink -f "$entry")")"); fi
    done
done < <("$nvcc" --dryrun -E -x cu /dev/null 2>&1 | sed -n 's/^#\$ \(SYSTEM_\)\{0,1\}INCLUDES=//p' | tr ' ' '\n' |
    sed 's/"//g; s/^-I//' | grep '^/' | sort -u)
while read -r dir; do
    [ -d "$dir" ] && allowed+=("$(readlink -f "$dir")")
done < <("$host" -E -x c++ -v /dev/null 2>&1 >/dev/null | sed -n '/^#include <\.\.\.> search starts here/,/^End of search list/{/^ /s/^ //p}')

errors=$(mktemp)
trap 'rm -f "$errors"' EXIT
# inside PATH: whether PATH (a file, or one not found) lies in an allowed folder.
me=$(readlink -f "$file")
# Of the workbook's own headers, only those a learner of the file's step has
# (common/tools/handed-out.bash: block_sum.cuh, step 07's answer, from step 08 on).
source "$common/tools/handed-out.bash"
step=$(basename "$(dirname "$me")")
[[ $step =~ ^[0-9][0-9]- ]] || step=99
# resolve PATH...: each PATH read both ways at once, for inside and library
# below: real_of (readlink -m: every link followed) and named_of (realpath
# -s -m: the path as the preprocessor named it, made absolute). One process
# for each reading of them all: a process for each reading of each of the
# hundreds of headers a file includes took most of the check's time. A path
# the lists do not answer line for line (one with a '-' in front, which
# readlink reads as an option; a list that fails) is read alone where it is
# judged, as before.
declare -A real_of=() named_of=()
resolve() {
    local path paths=() reals=() nameds=() i
    for path in "$@"; do
        [[ -n $path && $path != -* ]] && paths+=("$path")
    done
    [ ${#paths[@]} -gt 0 ] || return 0
    path=$(readlink -m -- "${paths[@]}") && mapfile -t reals <<<"$path" || return 0
    path=$(realpath -s -m -- "${paths[@]}") && mapfile -t nameds <<<"$path" || return 0
    [ ${#reals[@]} -eq ${#paths[@]} ] && [ ${#nameds[@]} -eq ${#paths[@]} ] || return 0
    for i in "${!paths[@]}"; do
        real_of["+${paths[i]}"]=${reals[i]}
        named_of["+${paths[i]}"]=${nameds[i]}
    done
}
# read_real PATH, read_named PATH: set real (named) to that reading of PATH,
# resolve's where it has one (no process), else readlink's (realpath's) now.
read_real() {
    if [ -n "${real_of["+$1"]+set}" ]; then real=${real_of["+$1"]}; else real=$(readlink -m "$1"); fi
}
read_named() {
    if [ -n "${named_of["+$1"]+set}" ]; then named=${named_of["+$1"]}; else named=$(realpath -s -m -- "$1"); fi
}
inside() {
    local real named dir
    read_real "$1"
    [ "$real" = "$me" ] && return 0
    case $real in "$workbook"/*) handed_out "${step:0:2}" "${real#"$workbook"/}" || return 1 ;; esac
    # The toolkit's and the system's folders are the machine's, not the
    # learner's: a header there may be a link elsewhere (a toolkit unpacked
    # from Debian's packages links its include/ into usr/include), so the path
    # as the preprocessor named it counts too.
    read_named "$1"
    for dir in "${allowed[@]}"; do
        case $real in "$dir"/*) return 0 ;; esac
        [ "$dir" = "$common" ] && continue
        case $named in "$dir"/*) return 0 ;; esac
    done
    return 1
}

# library PATH: whether PATH is a header of the toolkit's libraries of whole
# algorithms (CUB, Thrust: cub/ and thrust/ in its include folder, or in
# cccl/ there), which would do the step's work inside the learner's kernel
# (cub::BlockReduce: tests/mutants/07-cub-block-reduce.patch). libcu++
# (cuda/) and cooperative groups stay allowed: they do no step's work.
library() {
    local real named path dir
    read_real "$1"
    read_named "$1"
    for path in "$real" "$named"; do
        for dir in "${allowed[@]}"; do
            [ "$dir" = "$common" ] && continue
            case ${path#"$dir"/} in "$path") ;; cub/* | thrust/* | cccl/cub/* | cccl/thrust/*) return 0 ;; esac
        done
    done
    return 1
}

outside=()
libraries=()
if [ -n "$deps_file" ]; then
    # The first rule of the file (-MP's empty rules for each header follow it).
    deps=$(awk '{ print } !/\\$/ { exit }' "$deps_file")
    status=0
else
    deps=$("$nvcc" "$@" -M -MT target "$file" 2>"$errors")
    status=$?
fi
if [ "$status" -ne 0 ]; then
    # A header that was not found: outside, where it is named by a path that
    # leaves the allowed folders (in a sandbox, such a file is not there at all).
    while read -r missing; do
        [[ $missing == /* ]] || missing=$(dirname "$file")/$missing
        if [[ $missing == *[:\$\#]* ]] || ! inside "$missing"; then
            outside+=("$missing")
        fi
    done < <(sed -nE 's/.*fatal error: (.*): No such file or directory$/\1/p' "$errors")
    if [ ${#outside[@]} -eq 0 ]; then
        echo "$(basename "$file"): the preprocessor failed (exit $status):" >&2
        "$common/tools/quote-workbook.sh" "$workbook" "$(dirname "$file")" "$step" <"$errors" >&2
        exit 1
    fi
fi

# The paths, split where the preprocessor's list puts a space, read all at
# once (resolve), then judged one by one.
deps_list=()
while read -r dep; do
    [ -n "$dep" ] && deps_list+=("$dep")
done < <(sed -e '1s/^[^:]*: *//' -e 's/\\$//' <<<"$deps" | tr ' ' '\n')
resolve "${deps_list[@]}"
for dep in "${deps_list[@]}"; do
    # A path make cannot read back from a dependency file (a ':', a '$' or a
    # '#' in it) would break every later make of the step: refused as well.
    if [[ $dep == *[:\$\#]* ]] || ! inside "$dep"; then
        outside+=("$dep")
    elif library "$dep"; then
        libraries+=("$dep")
    fi
done
if [ ${#libraries[@]} -gt 0 ]; then
    {
        echo "$(basename "$file") includes CUB or Thrust, libraries whose algorithms would do the step's work in your kernel, so it was not $([ -n "$deps_file" ] && echo built || echo compiled):"
        printf '  %s\n' "${libraries[@]:0:3}"
        [ ${#libraries[@]} -le 3 ] || echo "  (and $((${#libraries[@]} - 3)) more of their headers)"
        echo "Each step's kernel is yours to write; a library's is what some steps are measured against (make bench). The toolkit's other headers (cuda/, cooperative_groups) stay yours to use."
    } >&2
    exit 1
fi
if [ ${#outside[@]} -gt 0 ]; then
    {
        echo "$(basename "$file") includes what is not part of a hand-in, so it was not $([ -n "$deps_file" ] && echo built || echo compiled):"
        printf '  %s\n' "${outside[@]}"
        echo "A step's file may include the workbook's headers that its step is handed (common/: its track's header, such as the one its exercise includes; not a later step's answer), the CUDA toolkit's and the system's; nothing else."
    } >&2
    exit 1
fi
