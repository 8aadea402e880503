# helpers.bash: what the workbook's own tests share.
bats_load_library bats-support
bats_load_library bats-assert

WORKBOOK_DIR=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
STEP_DIRS=("$WORKBOOK_DIR"/[0-9][0-9]-*/)
source "$WORKBOOK_DIR/common/tools/manifest.bash"  # step_field, manifest_steps

# The program a step's folder builds. Under a `make -C` (make -C .. test),
# MAKEFLAGS carries w, and make's "Entering directory" lines would be
# captured with the name.
program_of() {
    make -s --no-print-directory -C "$1" print-program
}

# Every program of the workbook that is built: each exercise and, where there
# is one, its solution.
all_programs() {
    local dir name
    for dir in "${STEP_DIRS[@]}"; do
        name=$(program_of "$dir")
        [ -x "$dir$name" ] && echo "$dir$name"
        [ -x "$dir${name}_solution" ] && echo "$dir${name}_solution"
    done
    return 0
}

# True where a CUDA device can be used: a solution's quickest check runs.
# (Nothing built: the driver is asked, as make asks before it builds.)
have_gpu() {
    local probe="$WORKBOOK_DIR/04-reduction-interleaved/reduction_interleaved_solution"
    [ -x "$probe" ] || probe="$WORKBOOK_DIR/04-reduction-interleaved/reduction_interleaved"
    [ -x "$probe" ] || { ! (source "$WORKBOOK_DIR/common/tools/options.bash" && no_usable_gpu >/dev/null); return; }
    timeout 120 "$probe" --check -n 1 >/dev/null 2>&1
    [ $? -ne 77 ]
}

# grade_jobs: steps graded at once: one per core, up to the eight steps (grade
# --jobs times and profiles each alone all the same).
grade_jobs() {
    local cores
    cores=$(nproc 2>/dev/null || echo 1)
    echo $((cores < 8 ? cores : 8))
}

# A test that builds a copy of the workbook builds it, without a GPU, for one
# architecture: the whole list a GPU-less build makes takes minutes, and one
# shows as well that the copy builds. (Never in the workbook's own folders:
# their build would be redone for other tests running beside this one.)
one_architecture_without_gpu() {
    have_gpu || export SM=${SM:-75}
}

# slow_test [WHY]: a test of minutes, of something that rarely changes, is
# left to make test-all (tests/run --all sets WORKBOOK_TEST_ALL=1), so that
# make test stays quick; make test names it among the skipped.
slow_test() {
    [ "${WORKBOOK_TEST_ALL:-0}" = 1 ] || skip "slow${1:+ ($1)}: make test-all runs it"
}

# path_without NAME...: a folder of links to every command on PATH but the
# NAMEs (the first of each name, as PATH finds it), for a PATH that lacks them.
# (One ln for them all: a process per command would take seconds.)
path_without() {
    local bin=$BATS_TEST_TMPDIR/bin dir dirs cmd name
    local -A first=()
    for name in "$@"; do first[$name]=""; done
    IFS=: read -ra dirs <<<"$PATH"
    for dir in "${dirs[@]}"; do
        for cmd in "$dir"/*; do
            name=${cmd##*/}
            [ -n "${first[$name]+set}" ] || { [ -x "$cmd" ] && [ ! -d "$cmd" ] && first[$name]=$cmd; }
        done
    done
    mkdir -p "$bin"
    for name in "$@"; do unset "first[$name]"; done
    ln -sf "${first[@]}" "$bin/"  # (called twice in a test: the same links again)
    echo "$bin"
}

# The learner's file of a step: the exercise, or with "solution" its solution.
learner_file() {
    local dir=$WORKBOOK_DIR/$1 name
    name=$(program_of "$dir")
    if [ "${2:-}" = solution ]; then
        echo "$WORKBOOK_DIR/solutions/$1/$name.cu"
    else
        echo "$dir/$name.cu"
    fi
}

# A grading test's verdict (record, grading/lib.bash): one line, the kind
# verdict, then key=value fields, tab-separated. The tests read it here, by
# name, apart from the grader's own reader (verdict_field, grading/common.bash).
# verdict_value FILE NAME: the value of its field NAME (a line each, were it there twice).
verdict_value() {
    awk -F'\t' -v name="$2" '$1 == "verdict" { for (i = 2; i <= NF; i++) if (index($i, name "=") == 1) print substr($i, length(name) + 2) }' "$1"
}

# assert_verdict FILE NAME=VALUE...: FILE holds one verdict, with each field
# given, once; NAME= (no value) asserts that it has no field NAME.
assert_verdict() {
    local file=$1 line field name shown
    shift
    [ -f "$file" ] || { fail "no verdict: $file is missing"; return; }
    line=$(<"$file")
    shown=${line//$'\t'/\\t}
    [[ $line == verdict$'\t'* && $line != *$'\n'* ]] ||
        { fail "$(printf '%s holds no verdict record, one line:\n%s' "$file" "$shown")"; return; }
    for field; do
        name=${field%%=*}
        if [ "$field" = "$name=" ]; then
            [[ $line$'\t' != *$'\t'"$name="* ]] ||
                { fail "$(printf 'the verdict in %s has a field %s:\n%s' "$file" "$name" "$shown")"; return; }
        else
            [[ $line$'\t' == *$'\t'"$field"$'\t'* ]] && [ "$(verdict_value "$file" "$name" | wc -l)" -eq 1 ] ||
                { fail "$(printf 'the verdict in %s lacks %s (once):\n%s' "$file" "$field" "$shown")"; return; }
        fi
    done
}

# fake_ncu_for_metrics DIR: DIR/ncu, an ncu that profiles two kernels for the
# metrics it is asked for (--metrics) and writes them as Nsight Compute's raw
# page (--log-file): a header, a units row, a row per launch; each figure is
# the metric's place in the list, then .73 (a fraction no README's prose
# holds). For make profile's table (common/tools/profile.sh, with CUDA_BIN=DIR/).
fake_ncu_for_metrics() {
    mkdir -p "$1"
    cat >"$1/ncu" <<'FAKE'
#!/bin/bash
while [ $# -gt 0 ]; do case $1 in --log-file) log=$2; shift 2 ;; --metrics) metrics=$2; shift 2 ;; *) shift ;; esac; done
IFS=, read -ra wanted <<<"$metrics"
{
    printf '"ID","Process ID","Kernel Name"'; printf ',"%s"' "${wanted[@]}"; echo
    printf '"","",""'; printf ',""%.0s' "${wanted[@]}"; echo
    for kernel in 'reduce_direct(const int *, int *, unsigned int)' 'void matmul_tiled<32>(const float *, const float *, float *, int)'; do
        printf '"0","1","%s"' "$kernel"; for i in "${!wanted[@]}"; do printf ',"%s.73"' "$((i + 1))"; done; echo
    done
} >"$log"
FAKE
    chmod +x "$1/ncu"
}
