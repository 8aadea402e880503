#!/usr/bin/env bats
# The grader and the manifest: every step of steps.conf gets its tests, a
# default speed threshold, and where it has a lesson test, all that the
# lesson test needs. Read from the workbook's own steps.conf; no GPU.

load grading-helpers

@test "every step folder has an entry in steps.conf whose tests can be written, with a default threshold" {
    source "$WORKBOOK_DIR/grading/lib.bash"
    # The written files are run, not counted (bats --count reads only the
    # @test lines): they load a library that is the real one with each test
    # body replaced by a line saying which body ran, with what
    # (tests/fixtures/grading/stub-grading/lib.bash).
    local stub=$FIXTURES/stub-grading written=$BATS_TEST_TMPDIR/written
    mkdir -p "$written"
    export REAL_GRADING_DIR=$GRADING_DIR BODIES_RAN=$BATS_TEST_TMPDIR/ran
    expected=()
    for dir in "${STEP_DIRS[@]}"; do
        step=$(basename "$dir")
        (GRADING_DIR=$stub && write_step_tests "$step" "$written") || fail "cannot write the tests of $step from steps.conf"
        expected+=("$step grade_build" "$step grade_integrity")
        for block in $(step_field "$step" blocks | tr , ' '); do
            expected+=("$step grade_check $block")
        done
        expected+=("$step grade_check_timed" "$step grade_speed")
        [ -z "$(step_field "$step" lesson_title)" ] || expected+=("$step grade_lesson")
        expected+=("$step grade_sanitize" "$step grade_launch_audit")
        value=$(threshold "$MANIFEST" "${step%%-*}" x_start)
        [ -n "$value" ] || fail "no x_start threshold for $step"
        at_least "$value" 1.01 || fail "threshold $value for $step would pass an unchanged starting kernel"
    done
    run bats --tap "$written"
    assert_success
    refute_output --partial "not ok"
    assert_equal "$(grep -c '^ok ' <<<"$output")" "${#expected[@]}"
    assert_equal "$(cat "$BODIES_RAN")" "$(printf '%s\n' "${expected[@]}")"
}

@test "every lesson test names a metric the profile shows, a starting kernel, and a factor" {
    source "$WORKBOOK_DIR/grading/lib.bash"
    keys=(lesson lesson_title lesson_start lesson_metric lesson_what lesson_fix)
    checked=0
    for step in $(manifest_steps); do
        # A step with any of the lesson's keys has a lesson test (its title
        # writes one), so it needs all of them.
        set_keys=""
        for key in "${keys[@]}"; do
            [ -z "$(step_field "$step" $key)" ] || set_keys+=" $key"
        done
        [ -n "$set_keys" ] || continue
        for key in "${keys[@]}"; do
            [ -n "$(step_field "$step" $key)" ] || fail "$step: a lesson test (it sets$set_keys) without $key= in steps.conf"
        done
        checked=$((checked + 1))
        metrics=$(step_field "$step" profile)
        # (A ?term, counted where the GPU has it, is zero in every honest
        # kernel: make profile need not show it.)
        for m in $(step_field "$step" lesson_metric | tr '/+-' '   '); do
            [[ $m == \?* ]] && continue
            [[ ,$metrics, == *,$m,* ]] || fail "$step: its lesson metric $m is not in its profile= (make profile shows those)"
        done
        # The second figure, where a step has one: LEFT>=RIGHT, in words too.
        also=$(step_field "$step" lesson_also)
        if [ -n "$also" ]; then
            [[ $also == *">="* ]] || fail "$step: lesson_also=$also is not LEFT>=RIGHT"
            [ -n "$(step_field "$step" lesson_also_what)" ] || fail "$step: lesson_also without lesson_also_what"
            for m in $(tr '/+>=-' '     ' <<<"$also"); do
                [[ $m == \?* ]] && continue
                [[ ,$metrics, == *,$m,* ]] || fail "$step: its lesson_also metric $m is not in its profile="
            done
        fi
        factor=$(step_field "$step" lesson)
        at_least "$factor" 1.5 || fail "lesson factor $factor for $step would pass a kernel that barely moved"
        grep -q "__global__ void $(step_field "$step" lesson_start)\b" "$WORKBOOK_DIR"/common/core/*.cu "$WORKBOOK_DIR"/common/tracks/*/*.cu "$WORKBOOK_DIR/$step/main.cu" ||
            fail "$step: its lesson_start names no kernel of the harness"
        # The lesson's ncu takes the two kernels by a name filter
        # (lesson_kernels_regex), which on an H200 (ncu 2025.3) missed an
        # extern "C" kernel whose name another alternative began: name the
        # starting kernel and the graded one so that neither begins the other.
        start=$(step_field "$step" lesson_start)
        graded=$(step_field "$step" audit | tr ' ' '\n' | sed -n 's/^kernel=//p')
        [ -n "$graded" ] || fail "$step: a lesson, and no kernel= in its audit for the lesson to count"
        [[ $graded != "$start"* && $start != "$graded"* ]] || fail "$step: lesson_start $start and the graded kernel $graded: one name begins the other, which ncu's filter may miss"
    done
    [ "$checked" -ge 1 ] || fail "no step of steps.conf has a lesson test to check"
}

# The lesson asks ncu for a ?term only where the learner's module holds an
# instruction that feeds it (grading/lib.bash, lesson_families), which is
# sound only if the starting kernel holds none: its figure would lose that
# term. Each starting kernel is compiled as its step builds it, to PTX, and
# read by kernels.awk: no feeds record, its own or a helper's; and every
# ?term names a counter whose family grading/lesson-terms.awk knows (one it
# does not is always asked for, at the cost of a pass).
@test "no lesson's starting kernel holds an instruction only a ?term counts, and every ?term's family is known" {
    source "$WORKBOOK_DIR/grading/lib.bash"
    command -v nvcc >/dev/null || skip "no nvcc here"
    local step start file flags ptx=$BATS_TEST_TMPDIR/start.ptx table=$BATS_TEST_TMPDIR/start.kernels checked=0 term name
    for step in $(manifest_steps); do
        start=$(step_field "$step" lesson_start)
        [ -n "$start" ] || continue
        for term in $(step_field "$step" lesson_metric; step_field "$step" lesson_also | tr '>=' '  '); do
            for term in $(tr '/+-' '   ' <<<"$term"); do
                [[ $term == \?* ]] || continue
                name=${term#?}
                [ -n "$(awk -v t="${name%%.*}" -f "$GRADING_DIR/lesson-terms.awk" -f <(echo 'BEGIN { print term_family(t) }'))" ] ||
                    fail "$step: ?$name feeds on no family that grading/lesson-terms.awk knows"
            done
        done
        file=$(grep -l "__global__ void $start\b" "$WORKBOOK_DIR/$step/main.cu" "$WORKBOOK_DIR"/common/tracks/*/*.cu | head -n 1)
        [ -n "$file" ] || fail "$step: no file of the harness defines $start"
        flags=$(make -s -C "$WORKBOOK_DIR/$step" SM=75 print-learner-flags) || fail "$step: make print-learner-flags failed"
        # shellcheck disable=SC2086
        nvcc $flags -DSTEP_NAME="\"$step\"" -DSTEP_AUDIT='""' -ptx -o "$ptx" "$file" || fail "$step: $file does not compile to PTX"
        awk -f "$WORKBOOK_DIR/common/tools/kernels.awk" "$ptx" >"$table"
        local found=0
        while IFS=$'\t' read -r kind name rest; do
            name=${name#name=}
            [ "$(kernel_bare_name "$name")" = "$start" ] || continue
            [ "$kind" != kernel ] || found=1
            [ "$kind" != feeds ] || fail "$step: the starting kernel $start holds what a ?term counts: $rest"
        done <"$table"
        [ "$found" = 1 ] || fail "$step: kernels.awk found no kernel $start in $file"
        checked=$((checked + 1))
    done
    [ "$checked" -ge 1 ] || fail "no lesson to check"
}

# A lesson that refuses an instruction says which later lesson allows it:
# the first later step whose lesson allows it (steps.conf lesson_forbids).
@test "the steps that refuse shuffles point to the first lesson that allows them, and none allows tensor cores" {
    source "$WORKBOOK_DIR/grading/lib.bash"
    manifest_steps | grep -qx 07-unrolled || skip "no step 07 here: a handout of an earlier step leaves the later ones out"
    STEP=04-reduction-interleaved
    assert_equal "$(taught_at shfl)" 07
    assert_equal "$(taught_at redux)" 07
    assert_equal "$(taught_at mma)" ""
    STEP=05-reduction-sequential
    assert_equal "$(taught_at vote)" 07
    assert_equal "$(taught_at bar.red)" ""
    STEP=01-naive-matmul
    assert_equal "$(taught_at mma)" ""
}
