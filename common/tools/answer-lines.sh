#!/usr/bin/env bash
# answer-lines.sh [--fragments] --solution FILE [--given FILE]... FILE...:
# the lines of FILEs (a step's README.md, its exercise) that spell out a line
# of the step's reference solution that the learner is not given, or with
# --fragments a piece of one.
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
# With --fragments the answers are the pieces of the solution's lines that
# are not given, rather than whole lines: an answer written in prose or as an
# expression (`index = 2 * s * tid`) leaves the learner as little to do as a
# line. The pieces (of a code line that is not itself given) are:
#   - each subscript, and the subscripted name with it (index+s,
#     partial[index+s], a_tile[ty][k]), but not an array's size where it is
#     declared;
#   - each condition of an if, while or for loop, or in brackets before a ?:,
#     and each side of its && and || (index<blockDim.x, t+tx<n);
#   - the right-hand side of each assignment (2*s*tid), and for an assignment
#     to a name, NAME=VALUE (col=blockIdx.x*blockDim.x+threadIdx.x: given
#     into row, an answer into col).
# A piece is an idiom, never an answer, below 5 words and signs (i<n, tid+s,
# a call without arguments) or with no sign but dots (blockDim.x); so is
# NAME=VALUE with a lone name or number for its value (sum=0.0f). A piece
# found, in any of its spellings, inside a line of a --given file (the
# starting code, the solutions of the steps before) is no answer either: the
# learner has it already. A piece is looked for in every spelling that is
# cheap to list: the operands of a sum and the factors of a product in any
# order (2*s*tid as tid*2*s; up to 120 orders), a comparison with its sides
# swapped (index<blockDim.x as blockDim.x>index), a row-major subscript as
# two (A[row*n+t+tx] as A[row][t+tx]), a named constant as its number.
# A sum or a comparison found where a sign next to it binds tighter is
# another expression, no answer (i+blockDim.x in 2*i+blockDim.x). Barrier placement is not judged in words ("after the if" may be
# said of a principle); a barrier's line with its code is a line answer.
# A README may hold the answer in its last hint: from the <details> holding
# the last "<summary>Hint" to its </details>, a README is not searched for
# pieces; everything before and after is (the build and grade sections are
# read before solving, too). The exercise is searched as without --fragments.
#
#   --solution FILE   the reference solution
#   --given FILE      code the learner has: its lines are no answer (repeat)
#   --fragments       look for the pieces of answer lines (above)
#   --list            search nothing: print the solution's answer lines,
#                     SOLUTION:LINE: TEXT, or with --fragments its pieces,
#                     SOLUTION:LINE: PIECE (no FILE then)
#
# Prints each FILE:LINE (FILE:LINE-LINE for two) holding an answer, its text,
# and under it "= SOLUTION:LINE: TEXT" for each answer line it holds, or with
# --fragments "= SOLUTION:LINE: PIECE   (of: TEXT)" for each piece.
# Exit status: 0 when no FILE holds an answer; 1 when one does; 2 for bad
# arguments.
set -u
OPTIONS_NAME="answer-lines"
source "$(dirname "$0")/options.bash"

solution=""
given=()
list=0
fragments=0
while [ $# -gt 0 ]; do
    case $1 in
    -h | --help) usage; exit 0 ;;
    --solution) need_value "$@"; solution=$2; shift 2 ;;
    --given) need_value "$@"; given+=("$2"); shift 2 ;;
    --list) list=1; shift ;;
    --fragments) fragments=1; shift ;;
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

exec awk -v list="$list" -v fragments="$fragments" -v status=0 '
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


# --fragments: the pieces of the solution lines that an answer is made of.

# The text of S from just after the opening bracket at FROM to its match
# (END_AT: where it matches; 0 when there is none).
function bracketed(s, from,    i, c, depth) {
    depth = 0
    for (i = from; i <= length(s); i++) {
        c = substr(s, i, 1)
        if (c ~ /[[(]/) depth++
        else if (c ~ /[])]/ && --depth == 0) { END_AT = i; return substr(s, from + 1, i - from - 1) }
    }
    END_AT = 0
    return ""
}

# Whether the name after BEFORE is declared there: a word other than return
# or case stands before it (in a key, a space parts two words only).
function declared(before) {
    return before ~ /[A-Za-z0-9_] $/ && before !~ /(^|[^A-Za-z0-9_])(return|case) $/
}

# The text of S inside the brackets that close at SHUT.
function opened(s, shut,    i, c, depth) {
    depth = 0
    for (i = shut; i >= 1; i--) {
        c = substr(s, i, 1)
        if (c ~ /[])]/) depth++
        else if (c ~ /[[(]/ && --depth == 0) return substr(s, i + 1, shut - i - 1)
    }
    return ""
}

# The parts of S split at SEP (a sign of one or two characters) outside
# brackets, into PART[1..n]; n.
function split_top(s, sep, part,    n, i, c, depth, from, w) {
    n = 0
    depth = 0
    from = 1
    w = length(sep)
    for (i = 1; i <= length(s); i++) {
        c = substr(s, i, 1)
        if (c ~ /[[(]/) depth++
        else if (c ~ /[])]/) depth--
        else if (depth == 0 && substr(s, i, w) == sep) { part[++n] = substr(s, from, i - from); from = i + w; i += w - 1 }
    }
    part[++n] = substr(s, from)
    return n
}

# The right-hand side of the assignment whose = is at AT: up to a ; or , or
# a closing bracket of the level it is on.
function right_side(s, at,    i, c, depth) {
    depth = 0
    for (i = at + 1; i <= length(s); i++) {
        c = substr(s, i, 1)
        if (c ~ /[[(]/) depth++
        else if (c ~ /[])}]/ && --depth < 0) break
        else if (depth == 0 && c ~ /[;,]/) break
    }
    return substr(s, at + 1, i - at - 1)
}

# Adds the fragments of solution key K, line N, to FRAGMENT[] (FRAGMENT_LINE[]):
# each subscript and the subscripted name with it, each condition of an if,
# while, for or (in brackets) of a ?: (and each side of its && and ||), and
# the right-hand side of each assignment (and NAME=VALUE, for a name).
function note_fragments(k, n,    i, c, prev, inner, head, part, parts) {
    for (i = 1; i <= length(k); i++) {
        c = substr(k, i, 1)
        if (c == "[") {
            inner = bracketed(k, i)
            if (END_AT == 0) continue
            add_fragment(inner, n)
            head = substr(k, 1, i - 1)
            # An array declared (a space parts it from its type) is no index.
            if (match(head, /[A-Za-z_][A-Za-z0-9_.]*(\[[^][]*\])*$/) && !declared(substr(head, 1, RSTART - 1)))
                add_fragment(substr(head, RSTART) "[" inner "]", n)
        } else if (c == "?" && substr(k, i - 1, 1) == ")") {
            add_condition(opened(k, i - 1), n)
        } else if (c == "(" && match(substr(k, 1, i - 1), /(^|[^A-Za-z0-9_])(if|while|for)$/)) {
            inner = bracketed(k, i)
            if (END_AT == 0) continue
            parts = split_top(inner, ";", part)
            if (parts == 3) inner = part[2]
            add_condition(inner, n)
        } else if (c == "=" && substr(k, i + 1, 1) != "=") {
            prev = substr(k, i - 1, 1)
            if (prev ~ /[=!]/) continue
            if (prev ~ /[<>]/ && substr(k, i - 2, 1) != prev) continue
            add_fragment(right_side(k, i), n)
            # What is computed into what: col = ... is an answer where the
            # same sum into row is given.
            if (prev !~ /[-+*\/%&|^<>]/ && match(substr(k, 1, i - 1), /[A-Za-z_][A-Za-z0-9_.]*$/))
                add_fragment(substr(k, RSTART, RLENGTH) "=" right_side(k, i), n)
        }
    }
}

# Adds condition COND of line N and, split at || and then at &&, its parts.
function add_condition(cond, n,    part, parts, j, sub_parts, sub_part, m) {
    add_fragment(cond, n)
    parts = split_top(cond, "||", part)
    for (j = 1; j <= parts; j++) {
        if (parts > 1) add_fragment(part[j], n)
        sub_parts = split_top(part[j], "&&", sub_part)
        if (sub_parts > 1) for (m = 1; m <= sub_parts; m++) add_fragment(sub_part[m], n)
    }
}

# Adds piece F of line N, without the brackets around all of it, once.
function add_fragment(f, n) {
    while (f ~ /^[(]/ && bracketed(f, 1) != "" && END_AT == length(f)) f = substr(f, 2, length(f) - 2)
    if (f == "" || f in fragment_line) return
    fragment_line[f] = n
    fragment[++fragment_count] = f
}

# Every order of the parts of LIST (separated by SEP), one a line.
function orders(list, sep,    part, n, i, j, rest, tail, t, tails, out) {
    n = split(list, part, "\034")
    if (n == 1) return list
    out = ""
    for (i = 1; i <= n; i++) {
        rest = ""
        for (j = 1; j <= n; j++) if (j != i) rest = rest (rest == "" ? "" : "\034") part[j]
        tails = split(orders(rest, sep), tail, "\n")
        for (t = 1; t <= tails; t++) out = out (out == "" ? "" : "\n") part[i] sep tail[t]
    }
    return out
}

# The spellings of expression E with the operands of its sum, and the
# factors of each product in it, in every order: each a line. E alone when
# it holds other signs, or has more orders than are cheap to try.
function commuted(e,    term, terms, i, x, factor, factors, list, spell, count, order, orders_n, o, seq, seq_n, t, done, done_n, d, sp, sp_n, p, out) {
    if (e ~ /[-\/%<>=!&|?:]/) return e
    terms = split_top(e, "+", term)
    count = 1
    list = ""
    for (i = 1; i <= terms; i++) {
        factors = split_top(term[i], "*", factor)
        if (term[i] == "" || factors > 4) return e
        spell[i] = factor[1]
        for (x = 2; x <= factors; x++) spell[i] = spell[i] "\034" factor[x]
        spell[i] = orders(spell[i], "*")
        count *= split(spell[i], sp, "\n") * i
        list = list (i > 1 ? "\034" : "") i
    }
    if (count > 120) return e
    out = ""
    orders_n = split(orders(list, " "), order, "\n")
    for (o = 1; o <= orders_n; o++) {
        seq_n = split(order[o], seq, " ")
        done = ""
        for (t = 1; t <= seq_n; t++) {
            done_n = split(done, d, "\n")
            sp_n = split(spell[seq[t]], sp, "\n")
            done = ""
            for (x = 1; x <= (t == 1 ? 1 : done_n); x++)
                for (p = 1; p <= sp_n; p++) done = done (done == "" ? "" : "\n") (t == 1 ? "" : d[x] "+") sp[p]
        }
        out = out (out == "" ? "" : "\n") done
    }
    return out
}

# The spellings of fragment F: commuted (see commuted), and a comparison
# also with its sides swapped (a < b as b > a).
function spellings(f,    ops, mirror, i, part, l, r, ln, rn, x, y, out, name) {
    if (match(f, /^[A-Za-z_][A-Za-z0-9_.]*\[/) && (l[1] = bracketed(f, RLENGTH)) != "" && END_AT == length(f))
        return subscripted(substr(f, 1, RLENGTH - 1), l[1])
    if (match(f, /^[A-Za-z_][A-Za-z0-9_.]*=/) && substr(f, RLENGTH + 1, 1) != "=") {
        name = substr(f, 1, RLENGTH)
        ln = split(commuted(substr(f, RLENGTH + 1)), l, "\n")
        out = ""
        for (x = 1; x <= ln; x++) out = out (out == "" ? "" : "\n") name l[x]
        return out
    }
    split("<= >= == != < >", ops, " ")
    split(">= <= == != > <", mirror, " ")
    for (i = 1; i <= 6; i++) {
        if (f ~ /&&|\|\||[?]/ || split_top(f, ops[i], part) != 2) continue
        if (part[1] ~ /[<>]$/ || part[2] ~ /^[<>=]/) continue
        ln = split(commuted(part[1]), l, "\n")
        rn = split(commuted(part[2]), r, "\n")
        out = ""
        for (x = 1; x <= ln; x++)
            for (y = 1; y <= rn; y++)
                out = out (out == "" ? "" : "\n") l[x] ops[i] r[y] "\n" r[y] mirror[i] l[x]
        return out
    }
    return commuted(f)
}

# The spellings of NAME[INNER]: INNER commuted, and a row-major index
# R*W+C also as NAME[R][C] (A[row*n+t+tx] as A[row][t+tx]), for either
# factor of each product of two in the sum.
function subscripted(name, inner,    out, term, terms, j, m, factor, w, rest, r, rv, rs, c, cs, x, y) {
    out = ""
    cs = split(commuted(inner), c, "\n")
    for (x = 1; x <= cs; x++) out = out (out == "" ? "" : "\n") name "[" c[x] "]"
    if (inner ~ /[-\/%<>=!&|?:]/) return out
    terms = split_top(inner, "+", term)
    for (j = 1; j <= terms; j++) {
        if (split_top(term[j], "*", factor) != 2) continue
        rest = ""
        for (m = 1; m <= terms; m++) if (m != j) rest = rest (rest == "" ? "" : "+") term[m]
        if (rest == "") continue
        for (w = 1; w <= 2; w++) {
            r = factor[3 - w]
            if (r ~ /^[(]/ && bracketed(r, 1) != "" && END_AT == length(r)) r = substr(r, 2, length(r) - 2)
            rs = split(commuted(r), rv, "\n")
            cs = split(commuted(rest), c, "\n")
            for (m = 1; m <= rs; m++)
                for (y = 1; y <= cs; y++) out = out "\n" name "[" rv[m] "][" c[y] "]"
        }
    }
    return out
}

# Whether TEXT holds K as whole words; for a piece of KIND (kind_of), also
# where no sign next to it binds tighter (split_by_signs).
function holds(text, k, kind,    from, at, before, after) {
    from = 1
    while ((at = index(substr(text, from), k)) > 0) {
        at += from - 1
        before = at > 1 ? substr(text, at - 1, 1) : ""
        after = substr(text, at + length(k), 1)
        if (!(is_word(substr(k, 1, 1)) && is_word(before)) && !(is_word(substr(k, length(k), 1)) && is_word(after)) &&
            !split_by_signs(kind, at, before, after))
            return 1
        from = at + 1
    }
    return 0
}

# Whether a spelling of F is in a given line: the learner has seen it.
function seen_in_given(f,    n, i, sp, g) {
    n = split(f, sp, "\n")
    for (g in given)
        for (i = 1; i <= n; i++) if (holds(g, sp[i], "")) return 1
    return 0
}

# Whether fragment F says more than an idiom: 5 words and signs at least,
# some sign other than a dot among them (blockDim.x is a name), and for
# NAME=VALUE a value that is no lone name or number (sum = 0.0f).
function particular(f,    value) {
    if (match(f, /^[A-Za-z_][A-Za-z0-9_.]*=/) && substr(f, RLENGTH + 1, 1) != "=") {
        value = substr(f, RLENGTH + 1)
        return words_and_signs(value) >= 3 && value ~ /[^A-Za-z0-9_. ]/
    }
    return words_and_signs(f) >= 5 && f ~ /[^A-Za-z0-9_. ]/
}

# The sign a piece is made by, where its neighbours may bind tighter:
# "compare" (a comparison), "add" (a sum or difference), or "".
function kind_of(f,    part, ops, i) {
    if (match(f, /^[A-Za-z_][A-Za-z0-9_.]*=/) && substr(f, RLENGTH + 1, 1) != "=") return ""
    if (f ~ /&&|\|\||[?]/) return ""
    split("<= >= == != < >", ops, " ")
    for (i = 1; i <= 6; i++) if (split_top(f, ops[i], part) > 1) return "compare"
    if (split_top(f, "+", part) > 1 || split_top(f, "-", part) > 1) return "add"
    return ""
}

# The fragments of the solution that are answers: see the header.
function find_fragments(    n, i, f, spelled, sp, sp_n, x) {
    for (n = 1; n <= solution_lines; n++)
        if (solution_key[n] != "" && !(solution_key[n] in given)) note_fragments(solution_key[n], n)
    for (i = 1; i <= fragment_count; i++) {
        f = fragment[i]
        if (!particular(f)) continue
        spelled = spellings(f)
        if (spelled_out(f) != f) spelled = spelled "\n" spellings(spelled_out(f))
        if (seen_in_given(spelled)) continue
        sp_n = split(spelled, sp, "\n")
        for (x = 1; x <= sp_n; x++) {
            if (sp[x] in answer_of) continue
            answer_of[sp[x]] = ++answers
            answer_key[answers] = sp[x]
            answer_line[answers] = fragment_line[f]
            answer_fragment[answers] = f
            answer_kind[answers] = kind_of(sp[x])
        }
    }
    answers_found = 1
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
    if (fragments) { find_fragments(); return }
    for (n = 1; n <= solution_lines; n++) {
        k = solution_key[n]
        if (k == "" || length(k) < 12 || words_and_signs(k) < 4 || k in given) continue
        add_answer(k, n)
        add_answer(spelled_out(k), n)
    }
    answers_found = 1
}

# --fragments: whether the signs BEFORE and AFTER a piece of KIND found at
# AT bind its ends tighter than its own sign does, so that the text holds
# another expression: i+blockDim.x in 2*i+blockDim.x, index<blockDim.x in
# index<blockDim.x/2. A - before a piece is the bullet of a list as often as
# a sign, and so is a * that starts the text: neither counts.
function split_by_signs(kind, at, before, after) {
    if (at == 2 && before == "*") before = ""
    if (kind == "add") return before ~ /[*\/%]/ || after ~ /[*\/%]/
    if (kind == "compare") return before ~ /[*\/%+]/ || after ~ /[-*\/%+]/
    return 0
}

# The answer keys found in TEXT, as whole words: their numbers, space-separated.
function answers_in(text,    found, a) {
    found = ""
    for (a = 1; a <= answers; a++) if (holds(text, answer_key[a], answer_kind[a])) found = found " " a
    return found
}

function trim(s) { gsub(/^[ \t]+|[ \t\r]+$/, "", s); return s }

# Prints PLACE and its TEXT, then the solution line of each answer key in
# FOUND, each once.
function report(place, text, found,    n, i, a, shown, line_no, f) {
    print place ": " text
    n = split(found, a, " ")
    for (i = 1; i <= n; i++) {
        line_no = answer_line[a[i]]
        if (fragments) {
            f = answer_fragment[a[i]]
            if (!(f in shown)) print "    = " solution_file ":" line_no ": " f "   (of: " solution_text[line_no] ")"
            shown[f] = 1
            continue
        }
        if (!(line_no in shown)) print "    = " solution_line(line_no)
        shown[line_no] = 1
    }
    status = 1
}

# --fragments, a README: the lines of its last hint, HINT_FROM..HINT_TO,
# from the <details> that holds "<summary>Hint" last to its </details>
# (none: HINT_FROM past the end). The last hint may hold the answer.
function last_hint(file,    i, summary) {
    hint_from = lines + 1
    hint_to = lines + 1
    if (!fragments || file !~ /\.(md|markdown)$/) return
    summary = 0
    for (i = lines; i >= 1 && !summary; i--) if (line[i] ~ /<summary>[ \t]*Hint/) summary = i
    if (!summary) return
    for (i = summary; i >= 1; i--) if (line[i] ~ /<details/) break
    hint_from = i
    for (i = summary; i <= lines; i++) if (line[i] ~ /<\/details>/) break
    hint_to = i
}

function solution_line(n) { return solution_file ":" n ": " solution_text[n] }

# Searches the lines of one FILE, read into line[1..lines].
function search(file,    i, here, both, next_alone) {
    last_hint(file)
    for (i = 1; i <= lines; i++) {
        if (i >= hint_from && i <= hint_to) continue
        here = answers_in(text[i])
        if (here != "") report(file ":" i, trim(line[i]), here)
        if (i == lines || i + 1 == hint_from) continue
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
            if (fragments && !(answer_fragment[a] in listed)) print solution_file ":" n ": " answer_fragment[a]
            if (fragments) { listed[answer_fragment[a]] = 1; continue }
            if (!(n in listed)) print solution_line(n)
            listed[n] = 1
        }
    }
    if (lines > 0) search(file)
    exit status
}' "${args[@]}"
