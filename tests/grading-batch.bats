#!/usr/bin/env bats
# tests/run: about 1 s, 41 s with --all (without a GPU, on 2 cores; it orders the files, longest first)
# grading/batch: a class graded at once, each student in a pristine copy of
# the workbook, into one gradebook; and the --out folder it writes, which may
# never overlap what it grades nor replace what it did not write; without a
# GPU, a refusal at once. Without a GPU (tests/batch.bats: batch --jobs and
# --gpus).

load grading-helpers

# A class of two: alice, whose repository has history, and bob.
small_class() {
    class=$BATS_TEST_TMPDIR/class
    mkdir -p "$class/alice/.git" "$class/bob"
    echo "her history" >"$class/alice/.git/HEAD"
}

# hand_in_04 STUDENT: STUDENT's step 04 in the class folder $students: the
# reference solution, or without solutions/ the exercise (both build).
hand_in_04() {
    local handed_in=$WORKBOOK_DIR/solutions/04-reduction-interleaved/reduction_interleaved.cu
    [ -f "$handed_in" ] || handed_in=$WORKBOOK_DIR/04-reduction-interleaved/reduction_interleaved.cu
    mkdir -p "$students/$1/04-reduction-interleaved"
    cp "$handed_in" "$students/$1/04-reduction-interleaved/"
}

@test "batch --out may not be the class, a repository it grades, a folder in one, or a folder above them" {
    small_class
    for out in "$class" "$class/alice" "$class/alice/reports" "$BATS_TEST_TMPDIR" "$WORKBOOK_DIR"; do
        run "$WORKBOOK_DIR/grading/batch" --step 04 --out "$out" "$class"
        assert_failure 2
        refute_output --partial "== alice"
    done
    run "$WORKBOOK_DIR/grading/batch" --step 04 --out "$class/alice/reports" --list <(echo "$class/alice")
    assert_failure 2
    assert_equal "$(cat "$class/alice/.git/HEAD")" "her history"
}

@test "batch --out never replaces a folder it did not make" {
    small_class
    mkdir -p "$BATS_TEST_TMPDIR/notes"
    echo "my notes" >"$BATS_TEST_TMPDIR/notes/n.txt"
    run "$WORKBOOK_DIR/grading/batch" --step 04 --out "$BATS_TEST_TMPDIR/notes" "$class"
    assert_failure 2
    assert_output --partial "holds files that batch did not write"
    assert_equal "$(cat "$BATS_TEST_TMPDIR/notes/n.txt")" "my notes"
}

@test "batch refuses a student name that would lead out of --out" {
    small_class
    run "$WORKBOOK_DIR/grading/batch" --step 04 --out "$BATS_TEST_TMPDIR/out" --list <(echo ".. $class/alice")
    assert_failure 2
    assert_output --partial "bad student name '..'"
}

@test "batch grading: each student in a pristine copy, only their exercise files, one gradebook" {
    slow_test "a class graded"
    students=$BATS_TEST_TMPDIR/class
    # alice: her step 04 handed in, plus a Makefile that must never run
    hand_in_04 alice
    cat >"$students/alice/04-reduction-interleaved/Makefile" <<MAKEFILE
all:
	touch $BATS_TEST_TMPDIR/pwned
MAKEFILE
    # bob: a step 04 that does not compile, in a folder whose name needs quoting in CSV
    bob='bob "the builder", jr'
    mkdir -p "$students/$bob/04-reduction-interleaved"
    echo 'this is not CUDA' >"$students/$bob/04-reduction-interleaved/reduction_interleaved.cu"
    one_architecture_without_gpu  # the students' copies are built
    # --step 4 stands for 04. The launcher (env) stands for one that would
    # give each student a GPU, so batch asks this machine for none, and each
    # grading finds that it has none (CUDA_VISIBLE_DEVICES=, on any machine).
    run env CUDA_VISIBLE_DEVICES= "$WORKBOOK_DIR/grading/batch" --launcher env --step 4 --out "$BATS_TEST_TMPDIR/out" "$students"
    # No GPU here: nobody is graded, and the run says so first and fails.
    assert_failure 1
    assert [ ! -e "$BATS_TEST_TMPDIR/pwned" ]
    [[ $output == *"batch: NO GPU: 2 of 2 students could not be graded"*"gradebook: "* ]] || fail "no NO GPU summary before the gradebook: $output"
    run cat "$BATS_TEST_TMPDIR/out/gradebook.csv"
    # A column per step of this copy (01 to 08, fewer in a copy handed out), and
    # 0 points in the step graded and in total: the build point alone would
    # pass for a grade.
    local dir header=student zeros=""
    for dir in "${STEP_DIRS[@]}"; do
        dir=$(basename "$dir")
        header+=",${dir%%-*}"
        [ "${dir%%-*}" = 04 ] && zeros+=,0 || zeros+=,
    done
    assert_line --index 0 "$header,total,max,gpu,status"
    assert_line --index 1 "\"alice\"$zeros,0,17,\"\",\"no GPU: not graded\""
    assert_line --index 2 "\"bob \"\"the builder\"\", jr\"$zeros,0,17,\"\",\"no GPU: not graded\""
    if command -v python3 >/dev/null; then
        python3 -c 'import csv, sys; rows = list(csv.reader(open(sys.argv[1]))); assert [len(r) for r in rows] == [int(sys.argv[3])] * 3, rows; assert rows[2][0] == sys.argv[2], rows' \
            "$BATS_TEST_TMPDIR/out/gradebook.csv" "$bob" $(( ${#STEP_DIRS[@]} + 5 ))
    fi
    # alice's result files: no point, no test passed.
    local a=$BATS_TEST_TMPDIR/out/alice
    assert_no_gpu_results "$a/results.json" "$a/classroom.json" "$a/junit.xml" 13
    # bob's build failed: that shows as a failure, with the compiler's message, still at 0 points.
    assert [ -f "$BATS_TEST_TMPDIR/out/$bob/junit.xml" ]
    grep -q "does not build" "$BATS_TEST_TMPDIR/out/$bob/grade.log" || fail "$(cat "$BATS_TEST_TMPDIR/out/$bob/grade.log")"
    grep -q '"score": 0,' "$BATS_TEST_TMPDIR/out/$bob/results.json"
}

@test "batch without a GPU says so in one line at once, builds nothing, writes nothing, and exits 1" {
    students=$BATS_TEST_TMPDIR/class
    hand_in_04 alice
    hand_in_04 bob
    local started=$SECONDS
    # CUDA_VISIBLE_DEVICES= hides any GPU this machine has.
    run --separate-stderr env CUDA_VISIBLE_DEVICES= "$WORKBOOK_DIR/grading/batch" --step 04 --out "$BATS_TEST_TMPDIR/out" "$students"
    assert_failure 1
    assert_equal "$stderr" "batch: NO GPU: no usable CUDA device here (CUDA_VISIBLE_DEVICES='' hides every GPU), so none of the 2 student(s) can be graded; nothing was built or written. Run batch where a GPU is (e.g. --launcher \"srun --gres=gpu:1\")."
    assert_output ""
    assert [ ! -e "$BATS_TEST_TMPDIR/out" ]
    [ $((SECONDS - started)) -lt 10 ] || fail "batch took $((SECONDS - started)) s to say there is no GPU"
    # Where this machine has no driver at all, --gpus names a GPU in vain.
    if ! command -v nvidia-smi >/dev/null && ! ls /dev/nvidia[0-9]* /dev/dxg >/dev/null 2>&1; then
        run --separate-stderr env -u CUDA_VISIBLE_DEVICES "$WORKBOOK_DIR/grading/batch" --gpus 0 --step 04 --out "$BATS_TEST_TMPDIR/out" "$students"
        assert_failure 1
        [[ $stderr == "batch: NO GPU: no usable CUDA device here ("*"), so none of the 2 student(s) can be graded;"* ]] || fail "$stderr"
        assert [ ! -e "$BATS_TEST_TMPDIR/out" ]
    fi
}

@test "batch replaces an --out folder that it made, run after run" {
    slow_test "a class graded twice"
    students=$BATS_TEST_TMPDIR/class
    mkdir -p "$students/bob/04-reduction-interleaved"
    echo 'this is not CUDA' >"$students/bob/04-reduction-interleaved/reduction_interleaved.cu"
    hand_in_04 alice
    one_architecture_without_gpu
    # bob first (his build fails: what his grading says is no matter here) ...
    # (env: a launcher, so that batch grades without asking this machine for a GPU.)
    run env CUDA_VISIBLE_DEVICES= "$WORKBOOK_DIR/grading/batch" --launcher env --step 04 --out "$BATS_TEST_TMPDIR/out" --list <(echo "$students/bob")
    assert [ -d "$BATS_TEST_TMPDIR/out/bob" ]
    grep -q '^"bob",' "$BATS_TEST_TMPDIR/out/gradebook.csv"
    # ... then alice, into the same folder: it is batch's own, so it is taken,
    # and its gradebook replaced (each student's report is replaced as they are graded).
    run env CUDA_VISIBLE_DEVICES= "$WORKBOOK_DIR/grading/batch" --launcher env --step 04 --out "$BATS_TEST_TMPDIR/out" --list <(echo "$students/alice")
    assert_failure 1
    assert_line --regexp '^"alice",.*,0,17,"","no GPU: not graded"$'
    run cat "$BATS_TEST_TMPDIR/out/gradebook.csv"
    refute_output --partial bob
}
