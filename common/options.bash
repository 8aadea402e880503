# options.bash: the manners every script of the workbook shares, so that each
# behaves the same way: --help prints the script's header comment and exits 0;
# a bad option, or an option without its value, says what is wrong on one
# line and exits 2; a value is asked of make without make's own chatter.
# Sourced by the scripts in common/, grading/ (and the grader's tests,
# grading/lib.bash) and tests/; each script sets OPTIONS_NAME (its name in
# messages) first.

# usage: the header comment of the running script (its lines after #!, up to
# the first line that is not a comment), without the leading "# ".
usage() {
    awk 'NR == 1 && /^#!/ { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"
}

# die MESSAGE: a bad command line: say so and exit 2 (2 is for bad options only).
die() {
    echo "${OPTIONS_NAME:-$(basename "$0")}: $*" >&2
    exit 2
}

# need_value "$@": call on an option that takes a value, with the arguments
# still to read; refuses the option when no value follows it.
need_value() {
    [ $# -ge 2 ] || die "$1 needs a value (try --help)"
}

# need_tool NAME WHAT: a tool of the CUDA toolkit, found where the chosen
# toolkit keeps it ($CUDA_BIN, which make passes on), else on PATH, else under
# $CUDA_PATH or /usr/local/cuda. Prints its path, or says what to install and
# exits 1: a missing tool is no bad option.
need_tool() {
    local name=$1 what=$2 path
    for path in ${CUDA_BIN:+"${CUDA_BIN%/}/$name"} "$(command -v "$name")" "${CUDA_PATH:-/usr/local/cuda}/bin/$name"; do
        [ -n "$path" ] && [ -x "$path" ] && [ ! -d "$path" ] && { echo "$path"; return 0; }
    done
    echo "${OPTIONS_NAME:-$(basename "$0")}: $name not found${CUDA_BIN:+ in $CUDA_BIN} or on PATH: it is $what," \
        "part of the CUDA toolkit (install the toolkit, or set CUDA_PATH to one that has it)" >&2
    exit 1
}

# make_value DIR GOAL: what GOAL, a goal of DIR's Makefile that only prints a
# value (print-program, print-sanitize-args), prints -- and nothing else. A
# make that runs this script hands its own flags down in MAKEFLAGS: `make -C
# .. grade` hands down w, which wraps the value in "Entering directory"
# lines even under -s, and --trace or -n would change what is printed.
make_value() {
    env -u MAKEFLAGS -u MFLAGS -u GNUMAKEFLAGS make -s -C "$1" "$2"
}
