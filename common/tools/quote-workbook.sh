#!/usr/bin/env bash
# quote-workbook.sh WORKBOOK [BASE [STEP]]: pass a compiler's messages on from
# stdin to stdout, less every message about a file a learner of STEP does not
# have: what a learner's build prints lands in their own reports, and a
# message quotes lines of the file it is about (an assembler's `.include`
# error quotes every line of the file it was pointed at).
#
# A message starts at a line that names its place -- "file:12:5: error:",
# "In file included from file:3", an assembler's "file:12: Error:", nvcc's
# "file(12): error:", a tool's "file.cu: ..." about a source file -- and runs
# on over the indented lines after it. Its
# file (relative to BASE, default: here, followed through links) must lie in
# WORKBOOK and be one a learner of STEP has (common/tools/handed-out.bash; without
# STEP, any but the answers). The tools' own lines (make, nvcc, ptxas, the
# compilers' "cc1plus: out of memory", ...) pass. Any other line, and the message it starts, is left out: what is not
# known to be harmless is not quoted. Each left-out run of lines leaves one
# line saying so; `make` in the step's folder shows them all.
set -u
here=$(cd "$(dirname "$0")" && pwd)
source "$here/handed-out.bash"
workbook=$(readlink -f "${1:?name the workbook}")
base=${2:-.}
step=${3:-99}
step=${step:0:2}

# allowed PATH: true when a message about PATH may be quoted.
allowed() {
    local path=$1 real
    [[ $path == /* ]] || path=$base/$path
    real=$(readlink -m "$path")
    case $real/ in
    "$workbook"/*) handed_out "$step" "${real#"$workbook"/}" ;;
    *) return 1 ;;
    esac
}

# Each line, as "KIND PATH LINE" (separated by the unit separator, \037): place (it names PATH, the
# shortest prefix followed by a place), more (indented: the message goes
# on), tool (a tool's own line), other.
classify() {
    awk '{
        line = $0
        rest = line
        sub(/^(In file included from |[ \t]+from )/, "", rest)
        if (rest != line || line !~ /^[ \t]/) {
            if (match(rest, /:[0-9]+(:[0-9]+)?[:,]|\([0-9]+\): /) && RSTART > 1) {
                printf "place\037%s\037%s\n", substr(rest, 1, RSTART - 1), line
                next
            }
            # A line that starts with a source file, as a tool names the one it
            # speaks of ("file.cu: the preprocessor failed", "file.cu includes ...").
            if (match(rest, /^[^ \t:]+\.(cu|cuh|h|hpp|c|cc|cpp|ptx):?[ \t]/)) {
                path = substr(rest, 1, RLENGTH - 1)
                sub(/:$/, "", path)
                printf "place\037%s\037%s\n", path, line
                next
            }
        }
        if (line ~ /^[ \t]/ || line == "")
            printf "more\037\037%s\n", line
        else if (line ~ /^(make|nvcc|ptxas|nvlink|fatbinary|cudafe\+\+|cicc|cc1plus|cc1|gcc|g\+\+|c\+\+|collect2|check-includes)[:\[ ]/ ||
                 line ~ /^[0-9]+ errors? detected in the compilation of / || line == "compilation terminated.")
            printf "tool\037\037%s\n", line
        else
            printf "other\037\037%s\n", line
    }'
}

hiding=0
left_out=0
say_left_out() {
    [ "$left_out" -gt 0 ] || return 0
    echo "[$left_out line(s) about other files, or of unknown form, left out: make in the step's folder shows them]"
    left_out=0
}
while IFS=$'\037' read -r kind path line; do
    case $kind in
    place) if allowed "$path"; then hiding=0; else hiding=1; fi ;;
    tool) hiding=0 ;;
    other) hiding=1 ;;
    esac
    if [ "$hiding" = 1 ]; then
        left_out=$((left_out + 1))
    else
        say_left_out
        printf '%s\n' "$line"
    fi
done < <(classify)
say_left_out
