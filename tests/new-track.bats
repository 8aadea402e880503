#!/usr/bin/env bats
# Adding a track as an instructor would: a folder of common/tracks/ (the
# track's header and its file, which declares its facts and its hooks), a
# step folder, its solution, and the step's entry in steps.conf. Nothing else
# is edited; the build, the grader, make bench and make handout must all find
# the new track. The track is a transpose (B = A^T), timed against a
# device-to-device copy: tests/fixtures/new-track/ holds its files as an
# instructor would write them.
#
# With a GPU, the step is graded for real: the reference solution scores
# every point, and the exercise as handed out (the given kernel again, right
# but no faster) no speed point. Without one, those tests skip and the rest
# runs.

load helpers

FIXTURE=$BATS_TEST_DIRNAME/fixtures/new-track
# The fixture's step is 09; it comes after the workbook's last step, whatever
# that is (an instructor may have added a step 09 already).
N=$(printf '%02d' $((10#$(awk -f "$WORKBOOK_DIR/common/tools/manifest.awk" "$WORKBOOK_DIR/steps.conf" | tail -n 1 | cut -c1-2) + 1)))
STEP=$N-tiled-transpose

setup_file() {
    command -v nvcc >/dev/null && [ -d "$WORKBOOK_DIR/solutions" ] || return 0
    # A copy of the workbook, its builds included (so the shared harness is not rebuilt).
    W=$BATS_FILE_TMPDIR/wb
    mkdir -p "$W"
    (cd "$WORKBOOK_DIR" && tar --exclude=./.git --exclude=./results --exclude=./tests/mutants --exclude=./tests/explain \
        -cf - .) | tar -xf - -C "$W"
    # The four additions: the track's folder, the step, its solution, its entry.
    cp -r "$FIXTURE/common/tracks/transpose" "$W/common/tracks/"
    cp -r "$FIXTURE/09-tiled-transpose" "$W/$STEP"
    cp -r "$FIXTURE/solutions/09-tiled-transpose" "$W/solutions/$STEP"
    sed "s/^09-tiled-transpose /$STEP /" "$FIXTURE/steps.conf" >>"$W/steps.conf"
    # What differs between the workbook and the copy, text files only (not
    # the builds, the programs or the results): the additions above.
    diff <(text_sums "$WORKBOOK_DIR") <(text_sums "$W") | awk '/^[<>]/ { print $3 }' | sort -u >"$BATS_FILE_TMPDIR/changed"
}

# text_sums DIR: a checksum of every text file of DIR, builds, results and
# hidden folders left out.
text_sums() {
    (cd "$1" && find . \( -name build -o -name results -o -name '.?*' -o -name mutants -o -name explain \) -prune -o \
        -type f ! -name HAND-IN-REFUSED -exec grep -Il '' {} + | LC_ALL=C sort | xargs -d '\n' sha1sum)
}

setup() {
    command -v nvcc >/dev/null || skip "no nvcc"
    [ -d "$WORKBOOK_DIR/solutions" ] || skip "no solutions/ in this copy (a handout): a new track's step is added beside them"
    one_architecture_without_gpu
    W=$BATS_FILE_TMPDIR/wb
}

@test "the new track touches only its folder, its step, its solution and steps.conf" {
    run cat "$BATS_FILE_TMPDIR/changed"
    assert_line ./steps.conf
    assert_line ./common/tracks/transpose/transpose.cu
    assert_line ./$STEP/main.cu
    assert_line ./solutions/$STEP/tiled_transpose.cu
    run grep -v -E "^\./(steps\.conf|common/tracks/transpose/.*|$STEP/.*|solutions/$STEP/.*)$" "$BATS_FILE_TMPDIR/changed"
    assert_output ""
}

@test "make finds the new track, builds its step and its solution, and refuses a track that has no folder" {
    run make -C "$W/$STEP" all solution
    assert_success
    run "$W/$STEP/tiled_transpose_solution" --facts
    assert_success
    assert_output "$(awk -f "$W/common/tools/track-facts.awk" "$W/common/tracks/transpose/transpose.cu")"
    assert_output --partial $'\tsize_symbol=N\t'

    # A typo in the entry's track: make names the tracks there are, the new one among them.
    sed -i "s/^$STEP  track=transpose/$STEP  track=transpos/" "$W/steps.conf"
    run make -C "$W/$STEP" all
    sed -i "s/^$STEP  track=transpos /$STEP  track=transpose /" "$W/steps.conf"
    assert_failure
    assert_output --partial "it must be one of: matmul reduction transpose"
}

# Byte for byte, binary or not, the grader's files at any depth among them:
# a script that had to learn the new track's name, or anything else of it,
# differs. The list is the workbook's, so a file missing from the copy fails.
@test "no script, makefile or grader file names the new track: each is the workbook's, byte for byte" {
    local list ours copy
    list=$(cd "$WORKBOOK_DIR" && find Makefile common/*.mk common/tools common/core grading [0-9][0-9]-*/Makefile -type f |
        LC_ALL=C sort)
    grep -qx grading/parallel-stand-in/parallel <<<"$list" || fail "the list misses grading/parallel-stand-in/parallel: $list"
    ours=$(cd "$WORKBOOK_DIR" && xargs -d '\n' sha1sum <<<"$list")
    copy=$(cd "$W" && xargs -d '\n' sha1sum <<<"$list")
    assert_equal "$copy" "$ours"
}

@test "the grader grades the new step: every point for the solution (skipped without a GPU)" {
    slow_test "the new step graded"
    run "$W/grading/grade" --solutions --step "$N" --results "$BATS_TEST_TMPDIR/grade"
    echo "$output" | tail -n 3 >&3
    assert_success
    assert [ -f "$BATS_TEST_TMPDIR/grade/tests/$STEP.bats" ]
    assert_equal "$(grep -c "@test \"$N correct with block" "$BATS_TEST_TMPDIR/grade/tests/$STEP.bats")" 3
    if ! have_gpu; then
        assert_line --regexp "^$STEP +pass +no GPU "
        return
    fi
    assert_line --regexp "^$STEP +pass +pass .* ([0-9]+)/\1$"
}

@test "the exercise as handed out is right but earns no speed point (GPU)" {
    slow_test "the new step graded"
    have_gpu || skip "no GPU"
    run "$W/grading/grade" --step "$N" --results "$BATS_TEST_TMPDIR/grade"
    echo "$output" | tail -n 3 >&3
    assert_failure
    assert_line --regexp "^$STEP +pass +pass +[0-9.]+x / 1\.30x "
    assert_verdict "$BATS_TEST_TMPDIR/grade/$N/speed" test=speed result=fail thresholds=steps.conf
}

@test "make bench times the new step against its track's ceiling (a log from a GPU without one)" {
    if have_gpu; then
        BENCH_RESULTS=$BATS_TEST_TMPDIR/bench run "$W/common/tools/bench.sh" "$STEP"
        echo "$output" | grep -E '^(Progression|transpose|  )' >&3
        assert_success
    else
        # The records its program writes, as on a GPU: its own step, its track.
        sed "s/step=08-cascaded/step=$STEP/; s/track=reduction/track=transpose/; s/block=256/block=32x32/" \
            "$WORKBOOK_DIR/tests/fixtures/bench-h100.log" | grep -F "step=$STEP" >"$BATS_TEST_TMPDIR/bench.log"
        BENCH_RESULTS=$BATS_TEST_TMPDIR/bench run "$W/common/tools/bench.sh" --from "$BATS_TEST_TMPDIR/bench.log"
        assert_success
    fi
    assert_line --regexp '^transpose track, N = [0-9]+ '
    assert_line --regexp '^  device-to-device copy \[ceiling\] '
    assert_line --regexp "^  $N .* \\(block 32x32\\) "
}

@test "make handout hands out the new track with its step, and the copy builds" {
    slow_test "a handout built"
    command -v git >/dev/null || skip "no git"
    # handout.sh copies what git tracks.
    git -C "$W" init -q && git -C "$W" add -A && git -C "$W" -c user.name=t -c user.email=t@t commit -qm wb
    run make -C "$W" handout STEP="$N" DEST="$BATS_TEST_TMPDIR/class"
    assert_success
    assert [ -f "$BATS_TEST_TMPDIR/class/common/tracks/transpose/transpose.cu" ]
    assert [ -f "$BATS_TEST_TMPDIR/class/$STEP/tiled_transpose.cu" ]
    assert [ ! -e "$BATS_TEST_TMPDIR/class/solutions" ]
    run make -C "$BATS_TEST_TMPDIR/class/$STEP"
    assert_success
}
