#!/usr/bin/env bats
# A track's facts are declared once, in its own file (TRACK_FACTS in
# common/tracks/TRACK/TRACK.cu): make, the grader, bench, plot, explain and readme-figures
# read them from there (common/tools/track-facts.awk), or from the track record its
# programs print. No script names a track.

load helpers

# The tracks: the files common/tracks/TRACK/TRACK.cu that declare their facts.
track_files() {
    local dir
    for dir in "$WORKBOOK_DIR"/common/tracks/*/; do
        grep -l '^static const char TRACK_FACTS\[\] =' "$dir$(basename "$dir").cu" 2>/dev/null
    done
}

@test "every track's file declares its facts, one track record that names it" {
    local file count=0
    for file in $(track_files); do
        run awk -f "$WORKBOOK_DIR/common/tools/track-facts.awk" "$file"
        assert_success
        [[ $output == track$'\t'name=$(basename "$file" .cu)$'\t'* ]] || fail "$file: $output"
        for key in title size_symbol ceiling ceiling_label plot_scale check_sizes sanitize_sizes sanitize_blocks profile_args explain_size; do
            [ -n "$(awk -v key=$key -f "$WORKBOOK_DIR/common/tools/track-facts.awk" "$file")" ] || fail "$file declares no $key"
        done
        count=$((count + 1))
    done
    [ "$count" -ge 2 ] || fail "only $count tracks found"
    # A file that declares none is refused, saying what it lacks.
    run awk -f "$WORKBOOK_DIR/common/tools/track-facts.awk" "$WORKBOOK_DIR/common/core/harness.cu"
    assert_failure 1
    assert_output --partial "no TRACK_FACTS"
}

# The workbook's files, relative to it: in a clone, those git tracks and
# those it would (new, not ignored) in a folder of its own (a new script in
# grading/, not a learner's scratch copy beside the steps); in a copy
# without the history (a handout), every file but the builds, results,
# tools and hidden folders (.ci aside).
workbook_files() {
    if [ "$(git -C "$WORKBOOK_DIR" rev-parse --show-toplevel 2>/dev/null)" = "$(cd "$WORKBOOK_DIR" && pwd -P)" ]; then
        local tops
        tops=$(git -C "$WORKBOOK_DIR" ls-files --cached | sed 's|/.*||' | sort -u)
        { git -C "$WORKBOOK_DIR" ls-files --cached
            git -C "$WORKBOOK_DIR" ls-files --others --exclude-standard | awk -v tops="$tops" 'BEGIN { n = split(tops, t, "\n"); for (i = 1; i <= n; i++) top[t[i]] = 1 }
                { f = $0; sub(/\/.*/, "", f) } $0 ~ /\// && (f in top)'
        } | sort -u | while IFS= read -r file; do [ -f "$WORKBOOK_DIR/$file" ] && echo "$file"; done  # not one deleted here
    else
        (cd "$WORKBOOK_DIR" && find . \( -name .git -o -path ./results -o -path ./.tools -o -name build -o \( -path './.*' ! -path ./.ci \) \) -prune -o -type f -print) |
            sed 's|^\./||'
    fi
}

# The scripts, makefiles and grader files among them, at any depth: every
# Makefile and .mk, every .sh, .bash and .awk, every file of grading/ and
# .ci/, every other file that starts with #!. Not tests/, which names steps
# and tracks to test them, nor common/tracks/, where each track is its own.
product_scripts() {
    local file
    workbook_files | while IFS= read -r file; do
        case $file in
        tests/* | common/tracks/*) continue ;;
        Makefile | */Makefile | *.mk | *.sh | *.bash | *.awk | grading/* | .ci/*) ;;
        *) [ "$(head -c 2 "$WORKBOOK_DIR/$file")" = '#!' ] || continue ;;
        esac
        echo "$file"
    done
}

@test "no script, makefile or grader file names a track, except in comments" {
    local names found files status=0
    names=$(for file in $(track_files); do basename "$file" .cu; done | paste -sd'|')
    files=$(product_scripts)
    # The list holds what it must (the scan is not over nothing): a step's
    # Makefile, the grader, a file of grading/ below its top.
    for file in Makefile common/step.mk "${STEP_DIRS[0]#"$WORKBOOK_DIR"/}Makefile" grading/grade grading/parallel-stand-in/parallel \
        common/tools/quote-workbook.sh; do
        grep -qxF "$file" <<<"$files" || fail "the scan misses $file: $files"
    done
    # A file it cannot read fails the test (grep's status 2), not the scan.
    found=$(cd "$WORKBOOK_DIR" && mapfile -t list <<<"$files" && grep -nwE -- "$names" "${list[@]}") || status=$?
    [ "$status" -le 1 ] || fail "grep could not read every file (status $status): $found"
    found=$(sed -E '/^[^:]+:[0-9]+:[[:space:]]*#/d' <<<"$found")
    [ -z "$found" ] || fail "$(printf 'these lines name a track (%s); read its facts instead (track_fact, step_fact, fact()):\n%s' "$names" "$found")"
    # Nor does the trusted program's C code (core/), its // comments aside:
    # a track is its folder's header and file, reached through `track` and
    # the track's call.
    found=$(cd "$WORKBOOK_DIR" && for file in common/core/*; do
        sed 's|//.*||' "$file" | grep -nwE "$names" | sed "s|^|$file:|"
    done)
    [ -z "$found" ] || fail "$(printf 'these lines of the core name a track (%s):\n%s' "$names" "$found")"
}

@test "what a program prints with --facts is what its track's file declares, without a GPU" {
    local folder program shown=0
    source "$WORKBOOK_DIR/common/tools/manifest.bash"
    for folder in $(manifest_steps); do
        program=$WORKBOOK_DIR/$folder/$(step_field "$folder" program)
        [ -x "$program" ] || continue
        run env CUDA_VISIBLE_DEVICES= "$program" --facts
        assert_success
        track=$(step_field "$folder" track)
        assert_output "$(awk -f "$WORKBOOK_DIR/common/tools/track-facts.awk" "$WORKBOOK_DIR/common/tracks/$track/$track.cu")"
        shown=$((shown + 1))
    done
    [ "$shown" -gt 0 ] || skip "nothing built: run make first"
}

# A copy of the workbook without its builds or tests, to change a fact in.
copy_workbook() {
    W=$BATS_TEST_TMPDIR/wb
    mkdir -p "$W"
    (cd "$WORKBOOK_DIR" && tar --exclude=./.git --exclude=./results --exclude=./tests --exclude='*/build' -cf - .) | tar -xf - -C "$W"
}

@test "a fact changed in a track's file changes make's sanitizer runs and the grader's check sizes" {
    copy_workbook
    local file
    file=$(grep -l '^static const char TRACK_FACTS' "$W"/common/tracks/*/*.cu | head -n 1)
    local track folder
    track=$(basename "$file" .cu)
    folder=$(cd "$W" && source common/tools/manifest.bash && for f in $(manifest_steps); do [ "$(step_field "$f" track)" = "$track" ] && { echo "$f"; break; }; done)
    sed -i 's/^    "sanitize_sizes=[^"]*\\t"$/    "sanitize_sizes=7,11\\t"/; s/^    "check_sizes=[^"]*\\t"$/    "check_sizes=5,9\\t"/;
        s/^    "check_block_multiples=[^"]*\\t"$/    "check_block_multiples=2\\t"/' "$file"
    grep -q '"check_block_multiples=2\\t"' "$file" || fail "$file has no check_block_multiples fact to change"
    run make -s -C "$W/$folder" print-sanitize-args
    assert_success
    assert_line --index 0 --partial "--check --only yours -n 7,11 -b"
    # Block 1000: the two sizes, then one short of, at and one past two blocks.
    run bash -c "source '$W/grading/common.bash' && step_check_sizes $folder 1000 | paste -sd' '"
    assert_success
    assert_output "5 9 1999 2000 2001"
}

@test "a step whose track has no file is refused by make, naming the tracks there are" {
    copy_workbook
    local folder
    folder=$(cd "$W" && awk -f common/tools/manifest.awk steps.conf | head -n 1)
    sed -i "/^$folder /s/ track=[a-z]* / track=transpose /" "$W/steps.conf"
    grep -q "^$folder .*track=transpose " "$W/steps.conf"
    run make -s -C "$W/$folder" print-sanitize-args
    assert_failure
    assert_output --partial "has track=transpose; it must be one of:"
}
