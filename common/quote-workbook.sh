#!/usr/bin/env bash
# quote-workbook.sh WORKBOOK [BASE]: pass a compiler's messages on from stdin
# to stdout, less every message about a file outside WORKBOOK: such a message
# quotes lines of that file, and what a learner's build prints lands in their
# own reports. A message starts at a line that names its place, as gcc
# ("file:12:5: error: ...", "In file included from file:3") or nvcc
# ("file(12): error: ...") writes it, and runs to the next such line; the
# file, relative to BASE (default: here), is followed through links.
# A left-out message leaves one line saying so, naming the file as the
# message did.
set -u
workbook=$(readlink -f "${1:?name the workbook}")
base=${2:-.}

place_re='^(In file included from |[[:space:]]+from )?([^:(][^:(]*)(:[0-9]+(:[0-9]+)?[:,]|\([0-9]+\): )'
hiding=0
while IFS= read -r line || [ -n "$line" ]; do
    if [[ $line =~ $place_re ]]; then
        path=${BASH_REMATCH[2]}
        [[ $path == /* ]] || path=$base/$path
        real=$(readlink -m "$path")
        case $real/ in
        "$workbook"/*) hiding=0 ;;
        *)
            [ "$hiding" = 1 ] || echo "[a message about ${BASH_REMATCH[2]} is left out: that file is not part of the workbook]"
            hiding=1
            continue
            ;;
        esac
    elif [[ $line =~ ^(make|nvcc|ptxas|nvlink|check-includes)[:\[] ]]; then
        hiding=0
    fi
    [ "$hiding" = 1 ] || printf '%s\n' "$line"
done
