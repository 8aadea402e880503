# common.bash: what the grading scripts share that needs no bats: the steps'
# tests written from the manifest and the sizes they check, reading the
# programs' records and the tests' verdicts, choosing and reading thresholds.
# Sourced by lib.bash (the tests), grade, report, batch, calibrate and
# tests/mutants/run.

GRADING_DIR=${GRADING_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
source "$(dirname "${BASH_SOURCE[0]}")/../common/tools/manifest.bash"
RECORDS_READER="$(cd "$(dirname "${BASH_SOURCE[0]}")/../common/tools" && pwd)/records.awk"

# step_check_sizes STEP BLOCK: the sizes a step's correctness tests check
# with that block, as its track's file declares them (common/tools/track-facts.awk):
# its check_sizes, and for each k of its check_block_multiples, one short of,
# at and one past k blocks' worth of elements (what a block sums per level or
# per trip). Status 1 for a step with no track.
step_check_sizes() {
    local block=${2%%x*} sizes multiples k
    sizes=$(step_fact "$1" check_sizes) || return 1
    multiples=$(step_fact "$1" check_block_multiples)
    {
        tr ',' '\n' <<<"$sizes"
        for k in ${multiples//,/ }; do printf '%s\n' $((k * block - 1)) $((k * block)) $((k * block + 1)); done
    } | sort -nu
}

# The kernels a grading times (the harness's --only): the starting kernel and
# the learner's, the ceiling always with them. The speed test reads their
# figures alone; the rest of make bench's table (the track's first kernel,
# the given ones, those past the lesson, the library's) would lengthen the
# timed run, and the lesson's profile of its round, for nothing graded.
# make calibrate times the same, so that a threshold is set from what is graded.
GRADED_ROLES=start,yours

# graded_timed STEP: the options of the step's timed run as a grading makes
# it: its entry's timed=, of those roles.
graded_timed() {
    echo "$(step_field "$1" timed) --only $GRADED_ROLES"
}

# ncu_metric_names NCU FILE: the names of the metrics NCU has for this GPU
# (--query-metrics), one a line, into FILE; status 1, and FILE not written,
# where ncu failed or listed none (then it is asked again, not read as none).
ncu_metric_names() {
    local part=$2.$$
    if "$1" --query-metrics >"$part.raw" 2>/dev/null && awk 'NF { print $1 }' "$part.raw" >"$part" && [ -s "$part" ]; then
        mv -f "$part" "$2"
    fi
    rm -f "$part.raw" "$part"
    [ -s "$2" ]
}

# write_step_tests STEP DIR: write DIR/STEP.bats, the step's tests, from its
# entry in steps.conf: it builds; the integrity of the learner's file (before
# any run of it); it is right with every block size of its `blocks` (one
# test each) at the sizes that catch the usual mistakes, and in every run of
# its timed run; it beats its starting kernel by the threshold; its lesson
# (where it has a lesson test); the sanitizers; the launch audit. The bodies are in lib.bash. Status 2, with the reason on
# stderr, for an entry that cannot make a test file.
write_step_tests() {
    local step=$1 dir=$2 n=${1%%-*} track blocks block title file
    track=$(step_field "$step" track) || { echo "$step: no entry in $MANIFEST" >&2; return 2; }
    blocks=$(step_field "$step" blocks)
    title=$(step_field "$step" lesson_title)
    [ -n "$blocks" ] || { echo "$step: no blocks= in $MANIFEST" >&2; return 2; }
    [[ $title != *[\$\`\\]* ]] || { echo "$step: its lesson_title may not hold \$, \` or \\" >&2; return 2; }
    [ -z "$(step_field "$step" lesson_metric)" ] || [ -n "$title" ] ||
        { echo "$step: a lesson test needs a lesson_title in $MANIFEST" >&2; return 2; }
    file=$dir/$step.bats
    {
        echo "#!/usr/bin/env bats"
        echo "# bats file_tags=step:$n,track:$track"
        echo "# $step: written by grading/grade from its entry in steps.conf; the tests' bodies are in grading/lib.bash."
        echo
        echo "STEP=$step"
        echo "load $(printf '%q' "$GRADING_DIR/lib")"
        echo
        echo "@test \"$n builds\" { grade_build; }"
        # Before any run of the program: a file that does more than define and
        # launch its kernels is not run at all (require_build).
        echo "@test \"$n integrity of your file\" { grade_integrity; }"
        for block in ${blocks//,/ }; do
            [[ $block =~ ^[0-9]+(x[0-9]+)?$ ]] || { echo "$step: bad block '$block' in blocks=" >&2; return 2; }
            echo "@test \"$n correct with block $block\" { grade_check $block; }"
        done
        echo "@test \"$n correct when timed\" { grade_check_timed; }"
        echo "@test \"$n faster than its starting kernel\" { grade_speed; }"
        [ -z "$title" ] || echo "@test \"$n lesson: $title\" { grade_lesson; }"
        echo "@test \"$n clean under compute-sanitizer\" { grade_sanitize; }"
        echo "@test \"$n launch audit\" { grade_launch_audit; }"
    } >"$file"
}

# The thresholds file for a GPU: a calibrated one for its name if there is one,
# else the manifest's defaults (steps.conf). GRADE_THRESHOLDS overrides both.
thresholds_file() {
    local gpu=$1 slug
    if [ -n "${GRADE_THRESHOLDS:-}" ]; then
        echo "$GRADE_THRESHOLDS"
        return
    fi
    slug=$(gpu_slug "$gpu")
    if [ -f "$GRADING_DIR/thresholds/$slug.conf" ]; then
        echo "$GRADING_DIR/thresholds/$slug.conf"
    else
        echo "$MANIFEST"
    fi
}

# "NVIDIA H100 80GB HBM3" -> "nvidia-h100-80gb-hbm3": a file name for a GPU.
gpu_slug() {
    tr '[:upper:]' '[:lower:]' <<<"$1" | sed -E 's/[^a-z0-9]+/-/g; s/^-+|-+$//g'
}

# threshold FILE STEP METRIC: the required value, or nothing if the file sets
# none. FILE is a calibrated thresholds file ("STEP METRIC MIN" lines) or the
# manifest, whose entries hold the defaults (x_start=, pct_ceiling=, lesson=).
threshold() {
    if [ "$1" = "$MANIFEST" ]; then
        step_field "$2" "$3" 2>/dev/null
    else
        awk -v step="$2" -v metric="$3" '!/^[ \t]*#/ && $1 == step && $2 == metric { print $3; exit }' "$1"
    fi
}

# record_field RECORD KEY: the value of key=value in one record (common/tools/records.awk).
record_field() {
    awk -F'\t' -v get="$2" -f "$RECORDS_READER" <<<"$1"
}

# A test's verdict: the one line it leaves in $GRADE_RESULTS/<step number>/<test>
# (record, lib.bash), a record as the programs' are (common/tools/records.awk): the
# kind "verdict", then key=value fields, tab-separated, read by name:
#   verdict<TAB>test=speed<TAB>result=pass<TAB>x_start=1.61<TAB>x_min=1.50<TAB>...
# result is pass, fail or skip; reason=, where there is one, says why in words.
# verdict_field FILE KEY: the value of KEY in the verdict FILE holds; nothing
# where FILE is missing, holds no verdict, or the verdict has no such field.
verdict_field() {
    [ -f "$1" ] || return 0
    awk -F'\t' -v key="$2" -f "$RECORDS_READER" -f <(echo '$1 == "verdict" { print field(key); exit }') "$1"
}

# verdict_found FILE: true where the test failed on what it found -- fail,
# with no reason: a finding of the integrity test or the launch audit -- and
# not for want of looking (reason=not checked, not run).
verdict_found() {
    [ "$(verdict_field "$1" result)" = fail ] && [ -z "$(verdict_field "$1" reason)" ]
}

# at_least VALUE MIN: true if VALUE >= MIN (decimal numbers).
at_least() {
    awk -v v="$1" -v m="$2" 'BEGIN { exit !(v + 0 >= m + 0) }'
}

# threshold_or_default FILE STEP METRIC: "VALUE FILE" -- the value FILE sets,
# or, where a calibrated FILE lacks that step's metric (a file written before
# the metric existed, or by `make calibrate --step` for other steps), the
# default from the manifest; nothing if neither sets one.
threshold_or_default() {
    local value defaults="$MANIFEST"
    value=$(threshold "$1" "$2" "$3")
    if [ -n "$value" ]; then
        echo "$value $1"
    elif [ "$1" != "$defaults" ] && [ -f "$defaults" ]; then
        value=$(threshold "$defaults" "$2" "$3")
        [ -z "$value" ] || echo "$value $defaults"
    fi
}

# valid_text: stdin as valid UTF-8 without control characters, for the
# result files (JSON and XML), which no byte of a learner's may break: a
# file saved in Latin-1 whose line the compiler quotes, a control character
# a kernel printed. Each byte that is not part of valid UTF-8 (nor of a
# character XML allows) becomes U+FFFD, the replacement character; each
# control character but tab and line feed, its caret form (^A, ^[, ^?), as
# cat -v shows it. Byte by byte, in the C locale, whatever the user's.
valid_text() {
    LC_ALL=C awk '
    BEGIN { for (i = 1; i < 256; i++) byte[sprintf("%c", i)] = i; bad = "\357\277\275" }
    /^[\t -~]*$/ { print; next }  # printable ASCII, as most lines are
    {
        out = ""
        n = length($0)
        for (i = 1; i <= n; i++) {
            c = substr($0, i, 1)
            b = byte[c]
            if (b < 128) {
                out = out (b == 9 || (b >= 32 && b < 127) ? c : "^" sprintf("%c", b == 127 ? 63 : b + 64))
                continue
            }
            # A lead byte: how long its sequence is, and the range of its
            # second byte (no overlong forms, no surrogates, nothing past U+10FFFF).
            if (b >= 194 && b <= 223) { len = 2; lo = 128; hi = 191 }
            else if (b == 224) { len = 3; lo = 160; hi = 191 }
            else if ((b >= 225 && b <= 236) || b == 238 || b == 239) { len = 3; lo = 128; hi = 191 }
            else if (b == 237) { len = 3; lo = 128; hi = 159 }
            else if (b == 240) { len = 4; lo = 144; hi = 191 }
            else if (b >= 241 && b <= 243) { len = 4; lo = 128; hi = 191 }
            else if (b == 244) { len = 4; lo = 128; hi = 143 }
            else { out = out bad; continue }
            ok = i + len - 1 <= n
            for (k = 1; ok && k < len; k++) {
                d = byte[substr($0, i + k, 1)]
                ok = k == 1 ? (d >= lo && d <= hi) : (d >= 128 && d <= 191)
            }
            if (ok) {
                seq = substr($0, i, len)
                out = out (seq == "\357\277\276" || seq == "\357\277\277" ? bad : seq)  # U+FFFE, U+FFFF: no characters to XML
                i += len - 1
            } else {
                out = out bad
            }
        }
        print out
    }'
}

# why_refused FILE: why FILE cannot be taken as a learner's hand-in, or
# nothing when it can: it must be a regular file -- not a symbolic link, which
# would hand in whatever file of the grading machine it points to, nor a
# device, a FIFO or a socket -- of at most GRADE_HAND_IN_KB kilobytes
# (default 1024). Used where a hand-in is taken (grading/take-hand-in) and
# before a step is built (grade_build), for a copy graded where it lies.
why_refused() {
    local max_kb=${GRADE_HAND_IN_KB:-1024}
    if [ -L "$1" ]; then
        # The target as bash quotes it: one line, no control character.
        echo "a symbolic link (to $(printf '%q' "$(readlink "$1")" | cut -c1-200)): hand in the file itself"
    elif [ -p "$1" ]; then
        echo "a FIFO, not a file"
    elif [ -S "$1" ]; then
        echo "a socket, not a file"
    elif [ -b "$1" ] || [ -c "$1" ]; then
        echo "a device, not a file"
    elif [ ! -e "$1" ]; then
        echo "not there"
    elif [ ! -f "$1" ]; then
        echo "not a regular file"
    elif [ "$(stat -c %s "$1")" -gt $((max_kb * 1024)) ]; then
        echo "$(($(stat -c %s "$1") / 1024)) KB, over the limit of $max_kb KB (GRADE_HAND_IN_KB)"
    fi
}

# without_bats_internals: bats' stream (bats -T --formatter) without what bats
# says of its own machinery after a failed test -- where the failure came
# from ("# (from function `fail' in file ...", "#  in test file ...") and
# the test's line ("#   `@test ...' failed") -- which tells a learner
# nothing: the result files hold the test's own message only. Only the lines
# right after a "not ok" line, before the test's message, are dropped, so
# that no line of a message (a compiler's, a program's) is taken for them.
without_bats_internals() {
    awk '
    /^not ok [0-9]+ / { trace = 1; print; next }
    trace && (/^# \((from function|in test file) / || /^#  (from function|in test file) / || /^#   `.*'"'"' failed( with status [0-9]+)?$/) { next }
    { trace = 0; print }'
}
