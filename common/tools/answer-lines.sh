#!/usr/bin/env bash
# answer-lines.sh --solution FILE [--given FILE]... FILE...: the lines of
# FILEs (a step's README.md, its exercise) that spell out a line of the
# step's reference solution that the learner is not given.
#
# An answer line is a code line of the solution FILE that no --given file
# (the code the learner starts from or has already seen) has. Lines compare as
# code: comments and #include lines left out, spaces only where they part two
# words (so `s>>=1` is `s >>= 1`), braces and semicolons at the ends dropped.
# A line too short to say anything particular is no answer, given or not:
# one of fewer than 12 characters (`v += in[i];`, `if (tid < s)`) turns up
# inside other code by chance, and one of fewer than 4 words and signs (a
# call without arguments, a directive, a jump: `__syncthreads();`,
# `#pragma unroll`, `return v;`) is an idiom the README must be free to name.
# A named constant the solution defines as a number (const, constexpr, enum,
# #define) may be written as its number: an answer line is looked for in
# both spellings.
#
# Each line of FILE is searched as text, whatever it is: a README's code
# block, inline code or prose, the exercise's code and its comments. It holds
# an answer when the line, written the same way, contains one as whole words;
# a line and the next one together count too, for what wraps. A code line of
# FILE that is itself given is the starting code: only its comment is read.
#
#   --solution FILE   the reference solution
#   --given FILE      code the learner has: its lines are no answer (repeat)
#   --list            search nothing: print the solution's answer lines,
#                     SOLUTION:LINE: TEXT (no FILE then)
#
# Prints each FILE:LINE (FILE:LINE-LINE for two) holding an answer, its text,
# and under it "= SOLUTION:LINE: TEXT" for each answer line it holds.
# Exit status: 0 when no FILE holds an answer; 1 when one does; 2 for bad
# arguments.
set -u
OPTIONS_NAME="answer-lines"
source "$(dirname "$0")/options.bash"

solution=""
given=()
list=0
while [ $# -gt 0 ]; do
    case $1 in
    -h | --help) usage; exit 0 ;;
    --solution) need_value "$@"; solution=$2; shift 2 ;;
    --given) need_value "$@"; given+=("$2"); shift 2 ;;
    --list) list=1; shift ;;
    --) shift; break ;;
    -*) die "unknown option '$1' (try --help)" ;;
    *) break ;;
    esac
done
[ -n "$solution" ] || die "name the reference solution: --solution FILE (try --help)"
if [ "$list" = 1 ]; then
    [ $# -eq 0 ] || die "--list searches no file: '$1' (try --help)"
else
    [ $# -gt 0 ] || die "name the files to search (try --help)"
fi
for file in "$solution" "${given[@]}" "$@"; do
    [ -f "$file" ] || die "$file: no such file"
done

# awk reads a name with "=" as an assignment: each file goes in as a path.
as_path() { case $1 in /*) printf '%s' "$1" ;; *) printf './%s' "$1" ;; esac; }
args=()
for file in "${given[@]}"; do args+=("$(as_path "$file")"); done
args+=(role=solution "$(as_path "$solution")" role=search)
for file in "$@"; do args+=("$(as_path "$file")"); done

exec awk -v list="$list" -v status=0 '
function is_word(c) { return c ~ /[A-Za-z0-9_]/ }

# One space where two words meet, none elsewhere, none at the ends.
function squeeze(s,    out, part, n, i) {
    n = split(s, part, /[ \t\r]+/)
    out = ""
    for (i = 1; i <= n; i++) {
        if (part[i] == "") continue
        if (out != "" && is_word(substr(out, length(out), 1)) && is_word(substr(part[i], 1, 1))) out = out " "
        out = out part[i]
    }
    return out
}

# Splits a line into CODE and COMMENT. A C file carries a /* comment on to
# the lines after it and knows its string literals; a README does neither
# (its apostrophes and globs are prose).
function split_line(s, c_file,    i, n, c, two, quote) {
    CODE = ""
    COMMENT = ""
    if (!c_file) in_block = 0
    if (!in_block && s !~ /[\/"\047]/) { CODE = s; return }
    quote = ""
    n = length(s)
    for (i = 1; i <= n; i++) {
        c = substr(s, i, 1)
        two = substr(s, i, 2)
        if (in_block) {
            if (two == "*/") { in_block = 0; i++; COMMENT = COMMENT " "; continue }
            COMMENT = COMMENT c
        } else if (quote != "") {
            CODE = CODE c
            if (c == "\\") { CODE = CODE substr(s, i + 1, 1); i++ }
            else if (c == quote) quote = ""
        } else if (two == "//") {
            COMMENT = COMMENT " " substr(s, i + 2)
            break
        } else if (two == "/*") {
            in_block = 1
            i++
            CODE = CODE " "
        } else {
            if (c_file && (c == "\"" || c == "\047")) quote = c
            CODE = CODE c
        }
    }
}

# A code line as it is compared: "" for one that says nothing.
function key_of(code,    k) {
    k = squeeze(code)
    if (k ~ /^#include/) return ""
    sub(/^}+/, "", k)
    sub(/[{;]+$/, "", k)
    if (k ~ /^[(){};,]*$/) return ""
    return k
}

# The words (names, numbers) and other signs of a key.
function words_and_signs(k,    words) {
    words = gsub(/[A-Za-z0-9_]+/, "", k)
    gsub(/ /, "", k)
    return words + length(k)
}

# Notes the constants a solution line defines as a literal: NAME=VALUE of a
# const, constexpr or enum, or #define NAME VALUE.
function note_constants(k,    rest, pair, cut, define) {
    if (k ~ /^#define [A-Za-z_][A-Za-z0-9_]* [0-9][A-Za-z0-9.]*$/) {
        split(k, define, " ")
        value_of[define[2]] = define[3]
        return
    }
    if (k !~ /^((static|extern) )?(const|constexpr) / && k !~ /^enum[^A-Za-z0-9_]/) return
    rest = k
    while (match(rest, /[A-Za-z_][A-Za-z0-9_]*=[0-9][A-Za-z0-9.]*([,}]|$)/)) {
        pair = substr(rest, RSTART, RLENGTH)
        rest = substr(rest, RSTART + RLENGTH)
        sub(/[,}]$/, "", pair)
        cut = index(pair, "=")
        value_of[substr(pair, 1, cut - 1)] = substr(pair, cut + 1)
    }
}

# KEY with each named constant written as its value.
function spelled_out(k,    out, word) {
    out = ""
    while (match(k, /[A-Za-z0-9_]+/)) {
        word = substr(k, RSTART, RLENGTH)
        out = out substr(k, 1, RSTART - 1) ((word in value_of) ? value_of[word] : word)
        k = substr(k, RSTART + RLENGTH)
    }
    return out k
}

# An answer key for solution line N, unless it is given or known already.
function add_answer(k, n) {
    if (k in given || k in answer_of) return
    answer_of[k] = ++answers
    answer_key[answers] = k
    answer_line[answers] = n
}

# The answer keys of the solution, read into solution_key[1..solution_lines]:
# the key of each line, and that key with its constants written out (unless the
# line itself is given).
function find_answers(    n, k) {
    for (n = 1; n <= solution_lines; n++) {
        k = solution_key[n]
        if (k == "" || length(k) < 12 || words_and_signs(k) < 4 || k in given) continue
        add_answer(k, n)
        add_answer(spelled_out(k), n)
    }
    answers_found = 1
}

# The answer keys found in TEXT, as whole words: their numbers, space-separated.
function answers_in(text,    found, a, k, from, at, before, after) {
    found = ""
    for (a = 1; a <= answers; a++) {
        k = answer_key[a]
        from = 1
        while ((at = index(substr(text, from), k)) > 0) {
            at += from - 1
            before = at > 1 ? substr(text, at - 1, 1) : ""
            after = substr(text, at + length(k), 1)
            if (!(is_word(substr(k, 1, 1)) && is_word(before)) && !(is_word(substr(k, length(k), 1)) && is_word(after))) {
                found = found " " a
                break
            }
            from = at + 1
        }
    }
    return found
}

function trim(s) { gsub(/^[ \t]+|[ \t\r]+$/, "", s); return s }

# Prints PLACE and its TEXT, then the solution line of each answer key in
# FOUND, each once.
function report(place, text, found,    n, i, a, shown, line_no) {
    print place ": " text
    n = split(found, a, " ")
    for (i = 1; i <= n; i++) {
        line_no = answer_line[a[i]]
        if (!(line_no in shown)) print "    = " solution_line(line_no)
        shown[line_no] = 1
    }
    status = 1
}

function solution_line(n) { return solution_file ":" n ": " solution_text[n] }

# Searches the lines of one FILE, read into line[1..lines].
function search(file,    i, here, both, next_alone) {
    for (i = 1; i <= lines; i++) {
        here = answers_in(text[i])
        if (here != "") report(file ":" i, trim(line[i]), here)
        if (i == lines) continue
        # What the two lines hold together and neither alone: wrapped text.
        both = answers_in(squeeze(text[i] " " text[i + 1]))
        next_alone = answers_in(text[i + 1])
        both = minus(minus(both, here), next_alone)
        if (both != "") report(file ":" i "-" i + 1, trim(line[i]) " / " trim(line[i + 1]), both)
    }
}

# The numbers of list A that are not in list B.
function minus(a, b,    n, i, x, out) {
    n = split(a, x, " ")
    out = ""
    for (i = 1; i <= n; i++) if (index(b " ", " " x[i] " ") == 0) out = out " " x[i]
    return out
}

FNR == 1 {
    in_block = 0
    if (role == "search" && !answers_found) find_answers()
    if (lines > 0) search(file)
    file = FILENAME
    sub(/^\.\//, "", file)
    c_file = FILENAME !~ /\.(md|markdown)$/
    lines = 0
}
{
    split_line($0, c_file)
    k = key_of(CODE)
}
role == "" { if (k != "") given[k] = 1; next }
role == "solution" {
    solution_file = file
    solution_key[++solution_lines] = k
    solution_text[solution_lines] = trim($0)
    note_constants(k)
    next
}
{
    line[++lines] = $0
    # Backquotes are markdown, not code: inline code may split a line in spans.
    t = (k != "" && k in given) ? COMMENT : CODE " " COMMENT
    gsub(/`/, " ", t)
    text[lines] = squeeze(t)
}
END {
    if (list) {
        find_answers()
        for (a = 1; a <= answers; a++) {
            n = answer_line[a]
            if (!(n in listed)) print solution_line(n)
            listed[n] = 1
        }
    }
    if (lines > 0) search(file)
    exit status
}' "${args[@]}"
