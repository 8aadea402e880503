#!/usr/bin/env bash
# handout.sh STEP DEST: write into DEST (a new folder) the copy of this
# workbook to hand to a class that works up to step STEP (e.g. 05): every
# step up to STEP with its exercise, harness and README, the shared harness,
# the grader and the tests -- and no answers beyond what those steps need.
#
# Left out:
#   solutions/                  the reference solutions
#   the steps after STEP        each one's main.cu holds the previous step's answer
#   their entries in steps.conf the manifest lists the steps handed out
#   common/tracks/reduction/block_sum.cuh
#                               step 07's answer, which only step 08 needs
#   common/micro/               before step 08: it times steps 06's and 07's kernels
#   tests/mutants/              planted mistakes in copies of the solutions
#   tests/honest/               right answers to every step, in other styles
#   tests/explain/              culprit lines planted in copies of the solutions
#   tests/fixtures/explain/     the profiler's pages of those, and of the solutions
# Each step's main.cu still holds the previous step's answer (05's holds
# 04's): that is its starting kernel. Hand out one step at a time to keep
# step N's answer until step N+1.
#
# In the copy, `make test` and `make grade` work as here and say what they
# skip; `make bench` and `make calibrate` need solutions/ and say so; the top
# README and docs/ are the learner's part of this one's, for those steps (the
# instructor's pages of docs/ are left out), and each step's README loses
# its `make solution` lines and what its handout markers say goes; its
# profile block, the reference solution's figures, says whose they are in
# place of the solution's program (tests/handout.bats reads every text of a
# handout of each step for what the copy lacks). Called
# by `make handout STEP=05 DEST=dir`. Exit status: 0 written, 2 bad arguments
# (DEST is never overwritten).
set -u
usage() {
    echo "usage: common/tools/handout.sh STEP DEST   e.g. common/tools/handout.sh 05 ../workbook-05"
    echo "Writes a copy of the workbook with the steps up to STEP and no solutions into DEST (a new folder)."
}
case ${1:-} in
--help | -h) usage; exit 0 ;;
esac
[ $# -eq 2 ] || { usage >&2; exit 2; }
step=$1 dest=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/common/tools/manifest.bash"
# A step by its number, as EX= takes it: 5 is 05.
[[ $step =~ ^[0-9]$ ]] && step=0$step
[[ $step =~ ^[0-9][0-9]$ ]] && compgen -G "$root/$step-*/" >/dev/null ||
    { echo "handout: no step '$step': give the number of one of the steps, $(step_numbers)" >&2; exit 2; }
[ -e "$dest" ] && { echo "handout: $dest exists: name a new folder (nothing was written)" >&2; exit 2; }
# A copy inside the workbook would be a part of this one (and of the next
# handout, and of what git sees here).
case $(readlink -m "$dest")/ in
"$root"/*) echo "handout: $dest is inside the workbook ($root): name a folder outside it (nothing was written)" >&2; exit 2 ;;
esac

# What to copy: the files git tracks (or, outside git, every file but build
# outputs), less what must not be handed out. Tracked only: a class's
# repositories or a gradebook kept in this folder are no part of a handout.
cd "$root" || exit 2
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    files=$(git ls-files --cached)
    # A step the manifest names that git does not track yet (a step just
    # added) would be missing from the copy while its entry stays.
    for folder in $(manifest_steps); do
        [ ! "${folder:0:2}" \> "$step" ] || continue
        grep -q "^$folder/" <<<"$files" ||
            { echo "handout: $folder is in steps.conf, but git tracks none of its files: git add $folder solutions/$folder first (nothing was written)" >&2; exit 2; }
    done
else
    files=$(find . -type f -not -path '*/build/*' -not -path './results/*' -not -path './.git/*' | sed 's|^\./||')
fi
# What a learner of the step has: common/tools/handed-out.bash, the one rule.
source "$root/common/tools/handed-out.bash"
keep() { handed_out "$step" "$1"; }
mkdir -p "$dest" || exit 2
while IFS= read -r path; do
    [ -f "$path" ] || continue
    keep "$path" || continue
    mkdir -p "$dest/$(dirname "$path")" && cp -p "$path" "$dest/$path" || exit 2
done <<<"$files"
# The manifest lists only the steps handed out: an entry (its first line and
# the indented ones under it) after STEP goes, with the comment just above it.
awk -v last="$step" '
/^[ \t]*#/ || /^[ \t]*$/ { held = held $0 "\n"; next }
/^[0-9][0-9]-/ { drop = substr($0, 1, 2) > last }
!drop { printf "%s%s\n", held, $0 }
{ held = "" }
END { if (!drop) printf "%s", held }' "$dest/steps.conf" >"$dest/steps.conf.new" && mv "$dest/steps.conf.new" "$dest/steps.conf"
# Every text of the copy (each .md file) speaks only of what the copy holds:
# its markers, HTML comments that a reader of the full copy does not see,
# say what goes and what shows instead, whole lines or within a line:
#   <!-- full copy only -->TEXT<!-- /full copy only -->   TEXT goes
#   <!-- in a handout: TEXT -->                          TEXT shows (LAST: the
#                                                        copy's last step)
#   <!-- with step NN -->TEXT<!-- /with step NN -->      TEXT goes where NN is
#                                                        not handed out
#   <!-- without step NN: TEXT -->                       TEXT shows there
# A marker on a line of its own goes with its line.
handout_text() {
    awk -v last="$step" '
    { text = text $0 "\n" }
    # The text from `from` up to the first `marker` after it: its inner part
    # (inner) and where the close ends (done), or 0 where it is not closed.
    function closing(from, marker,    at) {
        at = index(substr(text, from), marker)
        if (!at) { print FILENAME ": a handout marker is not closed: " substr(text, from - length(open), 60) > "/dev/stderr"; failed = 1; return 0 }
        inner = substr(text, from, at - 1)
        return from + at - 1 + length(marker)
    }
    END {
        out = ""
        while (match(text, /<!-- (full copy only -->|in a handout:|with step [0-9][0-9] -->|without step [0-9][0-9]:)/)) {
            open = substr(text, RSTART, RLENGTH)
            before = substr(text, 1, RSTART - 1)
            # (The text left starts after the last marker: at its start, the
            # line began where what was written out ends.)
            whole_line = RSTART == 1 ? out == "" || substr(out, length(out)) == "\n" : substr(text, RSTART - 1, 1) == "\n"
            from = RSTART + RLENGTH
            number = open; gsub(/[^0-9]/, "", number)
            if (open ~ /full copy only/) { done = closing(from, "<!-- /full copy only -->"); shown = "" }
            else if (open ~ /^<!-- with step/) { done = closing(from, "<!-- /with step " number " -->"); shown = number > last ? "" : inner }
            else {
                done = closing(from, "-->")
                shown = (open ~ /in a handout/ || number > last) ? inner : ""
                if (!whole_line) { sub(/^ /, "", shown); sub(/ $/, "", shown) }
                gsub(/LAST/, last, shown)
            }
            if (!done) exit 1
            # A marker on its own lines leaves no empty line behind it.
            if (whole_line) {
                sub(/^\n/, "", shown)
                if (substr(text, done, 1) == "\n") done++
            }
            out = out before
            text = shown substr(text, done)
            if (shown != "" && open !~ /with step/) { out = out shown; text = substr(text, length(shown) + 1) }
        }
        printf "%s%s", out, text
    }' "$1"
}
for text in $(cd "$dest" && find . -name '*.md' | sed 's|^\./||'); do
    handout_text "$dest/$text" >"$dest/$text.new" && mv "$dest/$text.new" "$dest/$text" || { rm -f "$dest/$text.new"; exit 2; }
done
# The top README's table of steps and its progression table lose the later
# steps' rows (the table, a track none of whose steps is left).
page=$dest/README.md
awk -v last="$step" '
# A paragraph of the progression table: shown unless it held rows of steps
# and none of them is handed out.
function flush(    i) {
    if (n && (!rows || kept)) {
        if (gap) print ""
        for (i = 1; i <= n; i++) print para[i]
        gap = 1
    }
    n = rows = kept = 0
}
/^\| \[[0-9][0-9]-/ && substr($0, 4, 2) > last { next }
$0 == "<!-- bench:progression -->" { bench = 1; print; next }
bench && (/^```/ || $0 == "<!-- /bench -->") { flush(); gap = 0; bench = $0 != "<!-- /bench -->"; print; next }
bench && /^$/ { flush(); next }
bench && /^  [0-9][0-9] / { rows++; if (substr($0, 3, 2) > last) next; kept++ }
bench { para[++n] = $0; next }
{ print }' "$page" | cat -s >"$page.new" && mv "$page.new" "$page" || exit 2
# A page of docs/ left with nothing to read (the instructor's guide is all
# "full copy only") goes, and docs/ with it where none is left.
for page in "$dest"/docs/*.md; do
    [ -f "$page" ] && ! grep -q '[^[:space:]]' "$page" && rm "$page"
done
rmdir "$dest/docs" 2>/dev/null
# Each step's README loses its command lines that build or run the reference
# solution (a code line that starts with `make solution`): there is none.
# Its profile block (make readme-figures writes it from a run of the
# solution, ncu's command line first) keeps its figures, and names whose they
# are in place of the program the copy has not.
for readme in "$dest"/[0-9][0-9]-*/README.md; do
    grep -vE '^([ \t]*)make solution( |$)' "$readme" |
        sed -E '/^<!-- profile:[0-9]+ -->$/,/^<!-- \/profile -->$/s#\./[A-Za-z0-9_]+_solution( |$)#(the reference solution)\1#' >"$readme.new" &&
        mv "$readme.new" "$readme"
done
echo "handout: wrote $dest: steps $(cd "$dest" && echo [0-9][0-9]-* | sed 's/ /, /g'); no solutions/" >&2
