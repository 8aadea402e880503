# handout-references.bash: what the texts of a copy of the workbook name
# that the copy does not hold (tests/handout.bats). Sourced; defines
# functions only.

# text_references FILE KIND: the references a text makes, one a line,
# "LINE<TAB>DIR<TAB>WHAT<TAB>TOKEN": WHAT is make (TOKEN: the command's words,
# split by tabs) or path (a file, a folder or a program run by path); DIR is
# the folder it is named from, relative to the text's own ("." unless a code
# block's `cd FOLDER` moved it). KIND: md (a Markdown text: its backquoted
# spans, a span may run over lines of its paragraph, and its code lines,
# fenced or indented) or help (make help's lines that start with `make`).
# The blocks `make readme-figures` writes (bench:, profile:, micro:, sweep:,
# pass:) are records of a run of the whole workbook and are not read; nor is
# the one command the paragraph before a profile block names as that record's
# source (`make profile SOLUTIONS=1 EX=NN`, which tests/readme-numbers.bats
# requires there in every copy).
text_references() {
    awk -v kind="$2" '
    # The words of a command, by the shell'"'"'s quotes: "a b" and '"'"'a b'"'"' are one.
    function shell_words(cmd, words,    n, c, i, quote, word, started) {
        n = 0; word = ""; quote = ""; started = 0
        for (i = 1; i <= length(cmd); i++) {
            c = substr(cmd, i, 1)
            if (quote != "") { if (c == quote) quote = ""; else word = word c; continue }
            if (c == "\"" || c == "'"'"'") { quote = c; started = 1; continue }
            if (c == " " || c == "\t") { if (started) { words[++n] = word; word = ""; started = 0 }; continue }
            word = word c; started = 1
        }
        if (started) words[++n] = word
        return n
    }
    function emit(line, span,    n, i, k, w, words, cmd, out, t, parts) {
        sub(/^[ \t$]+/, "", span)
        # Commands joined by && || ; or | (outside quotes: a regex of alternatives is one word).
        n = 0; cmd = ""; quote = ""
        for (i = 1; i <= length(span); i++) {
            c = substr(span, i, 1)
            if (quote != "") { if (c == quote) quote = ""; cmd = cmd c; continue }
            if (c == "\"" || c == "'"'"'") { quote = c; cmd = cmd c; continue }
            if (c == ";" || c == "|" || c == "&") { parts[++n] = cmd; cmd = ""; continue }
            cmd = cmd c
        }
        parts[++n] = cmd
        for (i = 1; i <= n; i++) {
            cmd = parts[i]; sub(/^[ \t]+/, "", cmd); sub(/[ \t]+$/, "", cmd)
            if (cmd == "") continue
            w = shell_words(cmd, words)
            if (words[1] == "cd" && w == 2 && code) { dir = dir "/" words[2]; continue }
            if (words[1] == "make") {
                # Its words: options, VAR=value, targets; the first other word ends it.
                out = "make"
                for (k = 2; k <= w; k++) {
                    if (words[k] !~ /^(-[A-Za-z]+|-j[0-9]*|[A-Z_]+=.*|[a-z][a-z0-9_.-]*|\.\.?(\/[^ ]*)?|[0-9][0-9]-[a-z-]+\/?|[^ ]*\/[^ ]*)$/) break
                    out = out "\t" words[k]
                }
                found[++nf] = line "\t" dir "\tmake\t" out
                continue
            }
            # Its words that name files: a path, a program run by path, a
            # step folder, a source file by name.
            for (k = 1; k <= w; k++) {
                t = words[k]; sub(/[.,:)]+$/, "", t); sub(/^[(]/, "", t)
                if (t ~ /:\/\// || t ~ /[<>$*{}~?\[\]@=]/ || t ~ /^-/ || t ~ /^\//) continue
                if (t ~ /^\.\.?\/./ || t ~ /^[A-Za-z0-9_.-]+\/([A-Za-z0-9_.-]+\/?)*$/ || t ~ /^[0-9][0-9]-[a-z-]+$/ ||
                    t ~ /^[A-Za-z0-9_.-]+\.(cu|cuh|h|cpp|md|sh|bats|bash|conf|awk|mk)$/)
                    found[++nf] = line "\t" dir "\tpath\t" t
            }
        }
    }
    # What a paragraph names is printed when the next one starts: a profile
    # block may follow it.
    function flush(    i) { for (i = 1; i <= nf; i++) print found[i]; nf = 0 }
    # The backquoted spans of the paragraph read so far.
    function spans(    rest, at, start, text) {
        rest = para; at = paraline
        while (match(rest, /`[^`]+`/)) {
            text = substr(rest, RSTART + 1, RLENGTH - 2)
            start = substr(rest, 1, RSTART - 1); rest = substr(rest, RSTART + RLENGTH)
            while (match(start, /\n/)) { at++; start = substr(start, RSTART + 1) }
            gsub(/\n/, " ", text); emit(at, text)
            while (match(text, /\n/)) { at++; text = substr(text, RSTART + 1) }
        }
        para = ""
    }
    kind == "help" { dir = "."; sub(/  .*/, ""); gsub(/[][]/, ""); if ($0 ~ /^make( |$)/) emit(FNR, $0); flush(); next }
    # A profile block: the paragraph before it names its source, a record.
    /^<!-- (bench|profile|micro|sweep|pass):[a-z0-9]+ -->$/ {
        spans()
        if ($0 ~ /profile:/) {
            n = $0; gsub(/[^0-9]/, "", n); j = 0
            for (i = 1; i <= nf; i++) if (found[i] !~ ("\tmake\tmake\tprofile\tSOLUTIONS=1\tEX=" n "$")) found[++j] = found[i]
            nf = j
        }
        flush(); generated = 1; next
    }
    /^<!-- \/(bench|profile|micro|sweep|pass) -->$/ { generated = 0; next }
    generated { next }
    /^```/ { spans(); flush(); fenced = !fenced; if (fenced) dir = "."; next }
    fenced || (/^    / && para == "") {
        flush()
        if (!fenced && !indented) dir = "."
        indented = !fenced; code = 1
        line = $0; sub(/^[ \t]+/, "", line); sub(/[ \t]+#.*/, "", line)
        emit(FNR, line); code = 0; next
    }
    { indented = 0; dir = "." }
    /^[ \t]*$/ { spans(); next }
    { if (para == "") { flush(); paraline = FNR }; para = para (para == "" ? "" : "\n") $0 }
    END { spans(); flush() }' "$1"
}

# make_refuses DIR COMMAND: why make, in DIR, refuses COMMAND (its words split
# by tabs, "make" first): the last line make says; nothing where it accepts it.
# make -n runs the recipe lines that call $(MAKE), whole: with MAKE
# "exit 0;" they end there (make test would run the tests). A command that
# names its target alone (`make sanitize`) is the target's name: accepted
# where it only lacks the step it needs (EX=).
make_refuses() {
    local words why
    IFS=$'\t' read -ra words <<<"$2"
    why=$(cd "$1" && env CUDA_VISIBLE_DEVICES= make -n -s "MAKE=exit 0;" "${words[@]:1}" </dev/null 2>&1 >/dev/null) && return
    why=$(tail -n 1 <<<"$why")
    [[ ${#words[@]} -eq 2 && $why == *"name one step: make ${words[1]} EX="* ]] || echo "${why:-refused}"
}

# missing_references COPY WORKBOOK: what the texts of the copy (its README,
# docs/ and steps' READMEs, and make help at its top and in each step) name
# that it does not hold, "TEXT:LINE: why: the reference", one a line:
# - a make command that its make refuses there (make -n; a line of a recipe
#   that calls $(MAKE), which make -n would run, stops at that call), or
#   one that names by number (EX=, STEP=) a step the copy does not hold;
# - a path or a program that is neither in the copy (from the text's folder,
#   or from the copy's top) nor the program its folder's make builds; only
#   names the whole workbook (WORKBOOK, git's files) holds are read as
#   references, and what a run or the user writes (results/, build/,
#   .tools/) is left alone;
# - anywhere in the text, the generated blocks too: a reference solution's
#   program (PROGRAM_solution), solutions/, or a step the copy does not hold.
missing_references() {
    local copy=$1 whole=$2 text kind dir line what ref where at first folder key word number
    local -A names=() held=() programs=() later=()
    # (checked: make's verdicts, kept from one copy to the next: see below.)
    declare -p checked &>/dev/null || declare -gA checked=()
    local tmp=$BATS_TEST_TMPDIR/references-${copy##*/}  # one a copy: copies may be read side by side
    mkdir -p "$tmp"
    # The whole workbook's names: each part of each path git holds.
    while IFS= read -r ref; do names[$ref]=1; done < <(
        cd "$whole" && { git ls-files 2>/dev/null || find . -type f | sed 's|^\./||'; } | tr / '\n' | sort -u)
    # The copy's names of files, for a file named alone.
    while IFS= read -r ref; do held[$ref]=1; done < <(find "$copy" -type f -printf '%f\n' | sort -u)
    for dir in "$whole"/[0-9][0-9]-*/; do
        dir=${dir%/}; dir=${dir##*/}
        [ -d "$copy/$dir" ] || later[$dir]=1
    done
    for dir in "$copy"/[0-9][0-9]-*/; do
        dir=${dir%/}
        programs[${dir##*/}]=$(make -s --no-print-directory -C "$dir" print-program)
    done
    # Each text, the folder its commands run from (docs/: the top), and its name.
    {
        for text in "$copy"/README.md "$copy"/docs/*.md "$copy"/[0-9][0-9]-*/README.md; do
            dir=$(dirname "$text"); [ "${dir##*/}" != docs ] || dir=$copy
            [ -f "$text" ] && printf '%s\tmd\t%s\t%s\n' "$text" "$dir" "${text#"$copy"/}"
        done
        make -s --no-print-directory -C "$copy" help >"$tmp/help" 2>&1
        printf '%s\thelp\t%s\t%s\n' "$tmp/help" "$copy" "make help"
        for dir in "$copy"/[0-9][0-9]-*/; do
            dir=${dir%/}
            make -s --no-print-directory -C "$dir" help >"$tmp/help-${dir##*/}" 2>&1
            printf '%s\thelp\t%s\t%s\n' "$tmp/help-${dir##*/}" "$dir" "make -C ${dir##*/} help"
        done
    } >"$tmp/texts"
    while IFS=$'\t' read -r text kind dir where; do
        # Anywhere: the solutions, and the steps that are not here.
        grep -noE '[A-Za-z0-9_]+_solution\b|\bsolutions/[^ `)]*|\b[0-9][0-9]-[a-z]+(-[a-z]+)*' "$text" |
            while IFS=: read -r line ref; do
                case $ref in
                *_solution) echo "$where:$line: a reference solution's program: $ref" ;;
                solutions/*) echo "$where:$line: the reference solutions: $ref" ;;
                *) [ -z "${later[$ref]+set}" ] || echo "$where:$line: a step this copy does not hold: $ref" ;;
                esac
            done
        while IFS=$'\t' read -r line at what ref; do
            at=$dir/$at; at=${at//\/.\//\/}; at=${at%/.}  # a/./b is a/b
            if [ "$what" = make ]; then
                # A step it names by number (EX=, STEP=): one of the copy's.
                for word in $ref; do
                    [[ $word =~ ^(EX|STEP)=(.*)$ ]] || continue
                    for number in ${BASH_REMATCH[2]//,/ }; do
                        [[ $number =~ ^[0-9]$ ]] && number=0$number
                        compgen -G "$copy/$number-*/" >/dev/null || echo "$where:$line: a step this copy does not hold: ${ref//$'\t'/ }"
                    done
                done
                key="$at $ref"
                # A step's own make, in its folder, reads that folder, common/
                # and the step's entry in steps.conf: the same in each copy
                # that holds the step, so its verdicts hold for them all.
                [[ ${at%/*} == "$copy" && ${at##*/} == [0-9][0-9]-* && $ref != *$'\t'-C* ]] && key="step ${at##*/} $ref"
                [ -n "${checked[$key]+set}" ] || checked[$key]=$(make_refuses "$at" "$ref")
                checked[$at $ref]=${checked[$key]}
                # A step's README names the workbook's commands too, which run from the top.
                [ -z "${checked[$at $ref]}" ] || [ "$kind" != md ] || [[ $where != [0-9][0-9]-*/* ]] ||
                    { [ -n "${checked[$copy $ref]+set}" ] || checked[$copy $ref]=$(make_refuses "$copy" "$ref"); at=$copy; }
                [ -z "${checked[$at $ref]}" ] || echo "$where:$line: a make command that its make refuses there: ${ref//$'\t'/ } (${checked[$at $ref]})"
                continue
            fi
            # Only what names a part of the whole workbook is a reference.
            first=${ref#./}; first=${first#../}; first=${first%%/*}
            [[ $ref == ./* || $ref == ../* ]] || [ -n "${names[$first]+set}" ] || continue
            case /$ref/ in */results/* | */build/* | */.tools/* | */.git/*) continue ;; esac
            [ -z "${later[$first]+set}" ] || continue  # said above
            [ -e "$at/$ref" ] || [ -e "$copy/$ref" ] && continue
            # A file named alone: anywhere in the copy.
            [[ $ref != */* && -n ${held[$ref]+set} ]] && continue
            # A step's program, which its make builds.
            folder=$(cd "$at" 2>/dev/null && cd "$(dirname "$ref")" 2>/dev/null && basename "$(pwd)") || folder=
            [ -n "$folder" ] && [ "${programs[$folder]-}" = "$(basename "$ref")" ] && continue
            echo "$where:$line: not in this copy: $ref"
        done < <(text_references "$text" "$kind")
    done <"$tmp/texts"
    return 0
}
