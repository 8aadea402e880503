#!/usr/bin/env bats
# tests/run: about 17 s, 317 s with --all (without a GPU, on 2 cores; it orders the files, longest first)
# make handout STEP=NN DEST=dir: a copy for a class, with the steps up to NN,
# no solutions, and no answer a handed-out step does not need. Needs no GPU.

bats_require_minimum_version 1.5.0
load helpers
load handout-references

# The answer lines of step NN in the workbook at $1: the code lines of its
# reference solution that are neither in its exercise nor in the shared
# harness (common/core/ and common/tracks/*/: *.cu, *.h), which every copy holds
# and which answers nothing.
answer_lines() {
    local root=$1 n=$2 solution exercise
    exercise=$(ls "$root"/"$n"-*/*.cu | grep -v '/main\.cu$')  # the file the learner edits
    solution=$root/solutions/$(basename "$(dirname "$exercise")")/$(basename "$exercise")
    code() { sed -E 's|^[[:space:]]+||; s|[[:space:]]*//.*$||' "$@" | awk 'length($0) >= 20' | sort -u; }
    comm -23 <(code "$solution") <(code "$exercise" "$root"/common/{core,tracks/*}/*.cu "$root"/common/{core,tracks/*}/*.h | sort -u)
}

# Steps whose answer stands in the copy at $2 (of the workbook at $1): most of
# their answer lines are in the copy's files outside the step's own folder
# (whose README may hint at its answer). Prints the steps.
leaked_answers() {
    local root=$1 copy=$2 n total found
    for dir in "$root"/solutions/[0-9][0-9]-*/; do
        n=$(basename "$dir"); n=${n%%-*}
        total=0 found=0
        while IFS= read -r line; do
            [ -n "$line" ] || continue
            total=$((total + 1))
            grep -rqF --include='*.cu' --include='*.cuh' --include='*.h' --include='*.md' --exclude-dir="$n-*" \
                -e "$line" "$copy" && found=$((found + 1))
        done < <(answer_lines "$root" "$n")
        if [ "$total" -gt 0 ] && [ $((2 * found)) -gt "$total" ]; then
            echo "step $n: $found of its $total answer lines"
        fi
    done
}

@test "the answer check finds the answers that stand in later steps of the whole workbook" {
    [ -d "$WORKBOOK_DIR/solutions" ] || skip "no solutions/ in this copy: nothing to compare with"
    # Without solutions/ copied, each step's answer is still in the next step's main.cu.
    local copy=$BATS_TEST_TMPDIR/all
    mkdir -p "$copy"
    cp -r "$WORKBOOK_DIR"/[0-9][0-9]-* "$WORKBOOK_DIR/common" "$copy/"
    run leaked_answers "$WORKBOOK_DIR" "$copy"
    assert_line --partial "step 04:"
    assert_line --partial "step 05:"
    assert_line --partial "step 07:"
}

@test "make handout STEP=05 writes the steps up to 05, no solutions, no later answers, and refuses to overwrite" {
    [ -d "$WORKBOOK_DIR/solutions" ] || skip "no solutions/ in this copy: it is a handout already"
    local dest=$BATS_TEST_TMPDIR/class-05
    run make -s -C "$WORKBOOK_DIR" handout STEP=05 DEST="$dest"
    assert_success
    assert [ -d "$dest/04-reduction-interleaved" ]
    assert [ -f "$dest/05-reduction-sequential/main.cu" ]
    assert [ -f "$dest/01-naive-matmul/naive_matmul.cu" ]
    assert [ ! -e "$dest/06-reduction-direct" ]
    assert [ ! -e "$dest/08-cascaded" ]
    assert [ ! -e "$dest/solutions" ]
    assert [ ! -e "$dest/common/tracks/reduction/block_sum.cuh" ]
    assert [ ! -e "$dest/common/micro" ]
    # The manifest lists the steps handed out, and no others.
    assert_equal "$(awk -f "$dest/common/tools/manifest.awk" "$dest/steps.conf" | paste -sd' ')" \
        "01-naive-matmul 02-register-temp 03-tiled-matmul 04-reduction-interleaved 05-reduction-sequential"
    assert [ ! -e "$dest/tests/mutants" ]
    assert [ ! -e "$dest/tests/honest" ]
    # ... but every test file of the workbook's own, explain.bats among them
    # (tests/explain/, its planted mistakes, is what goes).
    for f in "$WORKBOOK_DIR"/tests/*.bats; do
        assert [ -f "$dest/tests/$(basename "$f")" ]
    done
    # ... and what they load: the helpers, and every fixture of the grader's tests.
    for f in "$WORKBOOK_DIR"/tests/*.bash; do
        assert [ -f "$dest/tests/$(basename "$f")" ]
    done
    assert_equal "$(cd "$dest/tests/fixtures/grading" && find . -type f | sort)" \
        "$(cd "$WORKBOOK_DIR/tests/fixtures/grading" && find . -type f | sort)"
    # The top README's table of steps lists the steps handed out, and no others.
    run grep -c '^| \[0[1-5]-' "$dest/README.md"
    assert_output 5
    run grep '^| \[0[6-8]-' "$dest/README.md"
    assert_failure
    # Nor does the rest of it speak of later steps or of solutions: no count of
    # the whole workbook's steps, no progression row of 06 to 08, no command
    # that needs a solution; it says which steps it holds.
    run grep -nE '\b0[6-8]\b|0[6-8]-|[Ee]ight|solutions/|_solution|full copy only|in a handout:' "$dest/README.md"
    assert_output ""
    # Nor the whole workbook's make bench command, the solutions make test
    # grades there, or its figures.
    run grep -nE 'make bench +#|grades the reference solutions|the reference solutions \(all must pass\)|[0-9]+ s on a' "$dest/README.md"
    assert_output ""
    run grep -c "the workbook's steps up to 05," "$dest/README.md"
    assert_output 1
    run grep -cE '^  0[45] ' "$dest/README.md"
    assert_output 2
    # A copy without reduction steps shows no reduction track in the
    # progression table, and no row of step 03.
    run make -s -C "$WORKBOOK_DIR" handout STEP=02 DEST="$BATS_TEST_TMPDIR/class-02"
    assert_success
    run grep -E '^reduction track|^  03 |^  0[1-2] ' "$BATS_TEST_TMPDIR/class-02/README.md"
    assert_equal "${#lines[@]}" 2
    refute_line --partial "reduction track"
    # Its make help lists no command that needs the solutions or the mutants.
    run make -s -C "$dest" help
    assert_success
    assert_line --partial "make grade [EX=04]   grade your exercises (JUNIT=file)"
    refute_output --partial "make bench"
    refute_output --partial "make calibrate"
    refute_output --partial "SOLUTIONS=1"
    refute_output --partial "test-mutants"
    run make -s -C "$dest/04-reduction-interleaved" help
    assert_success
    assert_line --partial "make grade            grade this step"
    refute_output --partial "olution"
    # No build outputs, no results.
    run find "$dest" -name build -o -name results -o -name '*.o'
    assert_output ""
    # Answers: 04's stands in 05's main.cu (its starting kernel); 05's and later nowhere.
    run leaked_answers "$WORKBOOK_DIR" "$dest"
    assert_line --partial "step 04:"
    refute_line --partial "step 05:"
    refute_line --partial "step 06:"
    refute_line --partial "step 07:"
    refute_line --partial "step 08:"
    # A folder that exists is never written into.
    run make -s -C "$WORKBOOK_DIR" handout STEP=05 DEST="$dest"
    assert_failure
    assert_output --partial "exists"
    run "$WORKBOOK_DIR/common/tools/handout.sh" 09 "$BATS_TEST_TMPDIR/nine"
    assert_failure 2
    assert_output --partial "give the number of one of the steps, 01 02 "
    # Nor is a folder inside the workbook.
    run "$WORKBOOK_DIR/common/tools/handout.sh" 05 "$WORKBOOK_DIR/hand05-inside"
    assert_failure 2
    assert_output --partial "is inside the workbook"
    [ ! -e "$WORKBOOK_DIR/hand05-inside" ] || fail "a handout was written inside the workbook"
    run "$WORKBOOK_DIR/common/tools/handout.sh" --help
    assert_success
}

@test "a step in steps.conf whose folder git does not track yet is refused, with what to do, and nothing is written" {
    command -v git >/dev/null || skip "no git here"
    local copy=$BATS_TEST_TMPDIR/wb dest=$BATS_TEST_TMPDIR/class
    mkdir -p "$copy"
    (cd "$WORKBOOK_DIR" && tar --exclude=./.git --exclude=./results --exclude='./*/build' --exclude='./common/build' -cf - .) |
        tar -xf - -C "$copy"
    (cd "$copy" && git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm copy) || fail "no git copy"
    # A step added as "Adding a step" says, not yet added to git.
    local last
    last=$(cd "$copy" && awk -f common/tools/manifest.awk steps.conf | tail -n 1)
    cp -r "$copy/$last" "$copy/99-new-step"
    awk -v last="$last" '/^[0-9][0-9]-/ { inside = ($1 == last) } inside' "$copy/steps.conf" | sed "1s/^$last/99-new-step/" >>"$copy/steps.conf"
    run make -s -C "$copy" handout STEP=99 DEST="$dest"
    assert_failure
    assert_output --partial "99-new-step is in steps.conf, but git tracks none of its files: git add 99-new-step"
    assert [ ! -e "$dest" ]
    # Tracked, it is handed out.
    (cd "$copy" && git add -A && git -c user.name=t -c user.email=t@t commit -qm step)
    run make -s -C "$copy" handout STEP=99 DEST="$dest"
    assert_success
    assert [ -d "$dest/99-new-step" ]
}

@test "a handout builds, and a student's grade and bench run there, saying what they skip" {
    slow_test "a handout built and graded"
    [ -d "$WORKBOOK_DIR/solutions" ] || skip "no solutions/ in this copy: it is a handout already"
    local dest=$BATS_TEST_TMPDIR/class-04
    make -s -C "$WORKBOOK_DIR" handout STEP=04 DEST="$dest"
    one_architecture_without_gpu  # the copy's builds, the grader's among them
    run make -s -C "$dest/04-reduction-interleaved"
    assert_success
    run "$dest/04-reduction-interleaved/reduction_interleaved" --help
    assert_success
    # Grading the exercise: without a GPU, its build test passes and the rest skip.
    run env CUDA_VISIBLE_DEVICES= "$dest/grading/grade" --step 04 --results "$BATS_TEST_TMPDIR/g"
    assert_success
    assert_line --regexp '^04-reduction-interleaved +pass +no GPU +no GPU +no GPU +no GPU +no GPU +0/17$'
    # bench, calibrate and test-mutants need solutions/: they say so and succeed.
    run make -s -C "$dest" bench
    assert_success
    assert_output --partial "make bench: skipped 4 step(s) with no reference solution in solutions/"
    run make -s -C "$dest" test-mutants
    assert_success
    assert_output --partial "skipped: no tests/mutants/"
}

@test "make test passes in a handout, without a GPU: each of its tests passes or says why it skips" {
    [ -d "$WORKBOOK_DIR/solutions" ] || skip "no solutions/ in this copy: it is a handout already"
    # The quick suite once more, in the copy.
    slow_test "the suite again, in a handout"
    local dest=$BATS_TEST_TMPDIR/class-05
    make -s -C "$WORKBOOK_DIR" handout STEP=05 DEST="$dest"
    one_architecture_without_gpu  # the copy's build, and its tests' builds
    # No GPU, even where there is one: the copy's timed tests must not run
    # beside this workbook's other tests.
    run env CUDA_VISIBLE_DEVICES= make -s -C "$dest" test
    assert_success
    refute_line --regexp '^not ok'
    assert_line --regexp '^make test: [1-9][0-9]* tests, 0 failed, [0-9]+ skipped, in [0-9]+ s$'
    # What needs the solutions or the planted mistakes skips, and says why.
    assert_line --regexp "^skipped: tests/explain.bats: each planted mistake's culprit line .* # skip no tests/explain/ here"
    assert_line --regexp '^skipped: tests/gpu.bats: the reference solutions pass every grading test .* # skip '
}

@test "a handout of each step names nothing it does not hold: no missing file or program, no make command its make refuses, no solution" {
    slow_test "a handout of every step written and read"
    [ -d "$WORKBOOK_DIR/solutions" ] || skip "no solutions/ in this copy: it is a handout already"
    command -v git >/dev/null || skip "no git here: a handout copies the files git tracks"
    local step found=$BATS_TEST_TMPDIR/found i
    # The copies, two at a time (writing one is a process per file).
    step_numbers | tr ' ' '\n' | xargs -P 2 -I NN make -s -C "$WORKBOOK_DIR" handout STEP=NN DEST="$BATS_TEST_TMPDIR/class-NN" 2>/dev/null ||
        fail "make handout failed"
    # Read on both cores: half the copies each, in turn, so that the verdicts
    # of the steps' makes carry over from one copy to the next of each half.
    local half steps=($(step_numbers))
    for half in 0 1; do
        for ((i = half; i < ${#steps[@]}; i += 2)); do
            missing_references "$BATS_TEST_TMPDIR/class-${steps[i]}" "$WORKBOOK_DIR" >"$found.${steps[i]}"
        done &
    done
    wait
    for step in "${steps[@]}"; do
        sed "s|^|STEP=$step: |" "$found.$step" >>"$found"
    done
    [ ! -s "$found" ] || fail "what the handouts name and do not hold:
$(cat "$found")"
}

@test "the handout reference check finds a missing file, a make target, a solution's program and a later step" {
    [ -d "$WORKBOOK_DIR/solutions" ] || skip "no solutions/ in this copy: it is a handout already"
    local copy=$BATS_TEST_TMPDIR/class-02 readme
    make -s -C "$WORKBOOK_DIR" handout STEP=02 DEST="$copy" 2>/dev/null
    readme=$copy/02-register-temp/README.md
    run missing_references "$copy" "$WORKBOOK_DIR"
    assert_output ""
    cat >>"$readme" <<'MD'

Compare with `common/core/no-such-file.cu`, then run

    make nosuchtarget
    ./register_temp_solution -b 16x16
    make -C .. grade EX=03

as step `03-tiled-matmul` does; `make -C .. profile EX=02` is fine, and so are
`./register_temp --check`, `grading/grade`, `results/bench.csv` and `.tools/bats/bin/`.
MD
    run missing_references "$copy" "$WORKBOOK_DIR"
    assert_line --regexp '^02-register-temp/README.md:[0-9]+: not in this copy: common/core/no-such-file.cu$'
    assert_line --regexp "^02-register-temp/README.md:[0-9]+: a make command that its make refuses there: make nosuchtarget \(.*No rule to make target 'nosuchtarget'.*\)$"
    assert_line --regexp "^02-register-temp/README.md:[0-9]+: a reference solution's program: register_temp_solution$"
    assert_line --regexp '^02-register-temp/README.md:[0-9]+: a step this copy does not hold: make -C \.\. grade EX=03$'
    assert_line --regexp '^02-register-temp/README.md:[0-9]+: a step this copy does not hold: 03-tiled-matmul$'
    refute_output --partial "EX=02"
    refute_output --partial "register_temp --check"
    refute_output --partial "grading/grade"
    refute_output --partial "results/"
    refute_output --partial ".tools/"
}

@test "make handout STEP=5 is STEP=05, as EX=4 is EX=04; a step that is not one is refused, and says which are" {
    [ -d "$WORKBOOK_DIR/solutions" ] || skip "no solutions/ in this copy: it is a handout already"
    run make -s -C "$WORKBOOK_DIR" handout STEP=5 DEST="$BATS_TEST_TMPDIR/five"
    assert_success
    assert [ -d "$BATS_TEST_TMPDIR/five/05-reduction-sequential" ]
    assert [ ! -e "$BATS_TEST_TMPDIR/five/06-reduction-direct" ]
    run "$WORKBOOK_DIR/common/tools/handout.sh" 9 "$BATS_TEST_TMPDIR/nine"
    assert_failure 2
    assert_output --partial "handout: no step '09': give the number of one of the steps, 01 02 "
    assert [ ! -e "$BATS_TEST_TMPDIR/nine" ]
    run "$WORKBOOK_DIR/common/tools/handout.sh" five "$BATS_TEST_TMPDIR/nine"
    assert_failure 2
    assert_output --partial "handout: no step 'five'"
}

@test "SOLUTIONS=1 (SOLUTION=1, make solution) in a handout says in one line that there are none, runs nothing and exits 1" {
    [ -d "$WORKBOOK_DIR/solutions" ] || skip "no solutions/ in this copy: it is a handout already"
    local dest=$BATS_TEST_TMPDIR/class-05 goal asked
    make -s -C "$WORKBOOK_DIR" handout STEP=05 DEST="$dest" 2>/dev/null
    for goal in "grade EX=04 SOLUTIONS=1" "grade EX=4 SOLUTION=1" "grade SOLUTIONS=1" "sanitize EX=04 SOLUTIONS=1" \
        "profile EX=05 SOLUTIONS=1" "explain EX=05 SOLUTION=1" "-n grade EX=04 SOLUTIONS=1"; do
        # shellcheck disable=SC2086  # the goal's words
        run env CUDA_VISIBLE_DEVICES= make --no-print-directory -C "$dest" $goal
        assert_equal "make $goal: $status" "make $goal: 1"
        # The switch, as the command spelled it.
        asked=$(grep -oE 'SOLUTIONS?=1' <<<"$goal")
        assert_equal "make $goal: $output" "make $goal: make: this copy has no reference solutions (no solutions/): $asked has nothing to run"
    done
    for goal in "solution" "SOLUTION=1 sanitize" "SOLUTION=1 grade" "SOLUTIONS=1 explain" "SOLUTION=1 profile" "reduction_interleaved_solution"; do
        # shellcheck disable=SC2086
        run env CUDA_VISIBLE_DEVICES= make --no-print-directory -C "$dest/04-reduction-interleaved" $goal
        assert_equal "make $goal: $status" "make $goal: 1"
        assert_equal "${#lines[@]}" 1
        asked=$(grep -oE 'SOLUTIONS?=1' <<<"$goal") || asked="make solution"
        assert_output --regexp "^04-reduction-interleaved: this copy has no reference solution \(no .*/solutions/04-reduction-interleaved/reduction_interleaved.cu\): $asked has nothing to run$"
    done
    # Nothing was compiled or graded (make's records of the flags, under
    # build/, are written as it reads the step's Makefile).
    run find "$dest" -name '*.o' -o -name results -o -name .grade-results -o -name '*.plan'
    assert_output ""
    # Without SOLUTIONS=1, the same goals go on (make -n: what they would run).
    run make -n -s -C "$dest" grade EX=04
    assert_success
    assert_output --partial "grading/grade --step"
    # In the whole workbook, SOLUTIONS=1 runs what it did.
    run make -n -s -C "$WORKBOOK_DIR" grade EX=04 SOLUTIONS=1
    assert_success
    assert_output --partial "--solutions"
}

@test "a handout's texts: what stands between handout markers goes or shows, by the copy's last step, in a line or in whole lines" {
    command -v git >/dev/null || skip "no git here"
    local copy=$BATS_TEST_TMPDIR/wb readme
    mkdir -p "$copy"
    (cd "$WORKBOOK_DIR" && tar --exclude=./.git --exclude=./results --exclude='./*/build' --exclude='./common/build' --exclude=./solutions -cf - .) |
        tar -xf - -C "$copy"
    readme=$copy/02-register-temp/README.md
    cat >"$readme" <<'MD'
# A step

Run it<!-- full copy only --> against `./register_temp_solution`<!-- /full copy only -->.
<!-- full copy only -->
The reference solution is in `solutions/`.
<!-- /full copy only -->
<!-- in a handout:
This copy, steps 01 to LAST, holds no solutions.
-->
A later step<!-- with step 03 --> (`../03-tiled-matmul/`)<!-- /with step 03 --> tiles it<!-- without step 03: , in a later copy -->.
Timed by <!-- with step 03 -->`x`<!-- /with step 03 --><!-- without step 03: the benchmark -->: done.
<!-- with step 03 -->
Step 03 is here.
<!-- /with step 03 -->

The end.
MD
    (cd "$copy" && git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm copy) || fail "no git copy"
    run "$copy/common/tools/handout.sh" 02 "$BATS_TEST_TMPDIR/two"
    assert_success
    assert_equal "$(cat "$BATS_TEST_TMPDIR/two/02-register-temp/README.md")" "# A step

Run it.
This copy, steps 01 to 02, holds no solutions.
A later step tiles it, in a later copy.
Timed by the benchmark: done.

The end."
    run "$copy/common/tools/handout.sh" 3 "$BATS_TEST_TMPDIR/three"
    assert_success
    assert_equal "$(cat "$BATS_TEST_TMPDIR/three/02-register-temp/README.md")" "# A step

Run it.
This copy, steps 01 to 03, holds no solutions.
A later step (\`../03-tiled-matmul/\`) tiles it.
Timed by \`x\`: done.
Step 03 is here.

The end."
    # A marker left open writes no copy that holds it: the handout fails.
    printf 'Lost <!-- full copy only --> here.\n' >>"$readme"
    (cd "$copy" && git -c user.name=t -c user.email=t@t commit -qam open)
    run "$copy/common/tools/handout.sh" 02 "$BATS_TEST_TMPDIR/open"
    assert_failure 2
    assert_output --partial "02-register-temp/README.md: a handout marker is not closed"
}
