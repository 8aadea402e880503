#!/usr/bin/env bats
# tests/run: about 16 s, 96 s with --all (without a GPU, on 2 cores; it orders the files, longest first)
# grading/batch grading several students at once (--jobs), without a GPU: a
# copy of the workbook with one step, 04, built by a fake nvcc, whose program
# notes each run -- the student, the GPU it was given, the Slurm step it ran
# in, when it started and ended -- and then finds no GPU (exit 77). Fake GPUs
# (a fake nvidia-smi, --gpus, CUDA_VISIBLE_DEVICES) on one machine, and a real
# single-node Slurm (slurmctld, slurmd, munged from the distribution's
# packages, started and stopped here) where it can be run.

bats_require_minimum_version 1.5.0
load helpers

setup() {
    [ -d "$WORKBOOK_DIR/04-reduction-interleaved" ] || skip "no step 04 in this copy (a handout of earlier steps)"
    W=$BATS_TEST_TMPDIR/wb
    TOOLKIT=$BATS_TEST_TMPDIR/toolkit
    FAKE_BIN=$BATS_TEST_TMPDIR/bin
    mkdir -p "$W/04-reduction-interleaved" "$TOOLKIT/bin" "$FAKE_BIN"
    cp -r "$WORKBOOK_DIR/common" "$WORKBOOK_DIR/grading" "$WORKBOOK_DIR/Makefile" "$W/"
    cp "$WORKBOOK_DIR/04-reduction-interleaved/"{Makefile,*.cu} "$W/04-reduction-interleaved/"
    awk '/^[0-9][0-9]-/ { inside = ($1 == "04-reduction-interleaved") } inside' "$WORKBOOK_DIR/steps.conf" >"$W/steps.conf"
    # The fake nvcc makes every program a script: one line per run in
    # $FAKE_RUNS ("student GPU job.step start end"), $FAKE_SECONDS long
    # (the student named $FAKE_SLOW takes 4 times as long), then no GPU.
    cat >"$TOOLKIT/bin/nvcc" <<'SCRIPT'
#!/usr/bin/env bash
# -M (the check of what a file includes): it includes nothing.
for arg; do [ "$arg" = -M ] && { echo "target: ${!#}"; exit 0; }; done
# --dryrun (what check-includes asks of its include folders): none.
for arg; do [ "$arg" = --dryrun ] && exit 0; done
# --keep-dir D (the learner's file, kept for its module and its PTX): an
# empty module, no kernel, and a dependency list (-MF) of the file alone.
keep="" source=${!#}
while [ $# -gt 0 ]; do
    [ "$1" = -o ] && out=$2
    [ "$1" = --keep-dir ] && keep=$2
    [ "$1" = -MF ] && deps=$2
    shift
done
[ -z "$keep" ] || { : >"$keep/$(basename "$source" .cu).fatbin"; : >"$keep/none.ptx"; echo "$out: $source" >"$deps"; }
cat >"$out" <<'PROGRAM'
#!/usr/bin/env bash
student=$(basename "$(cd "$(dirname "$0")/.." && pwd)")
student=${student#*-}  # the copy is <place>-<name>
seconds=${FAKE_SECONDS:-0}
[ "$student" = "${FAKE_SLOW:-}" ] && seconds=$(awk -v s="$seconds" 'BEGIN { print 4 * s }')
echo $$ >>"$FAKE_RUNS.pids"
start=$(date +%s.%N)
sleep "$seconds"
gpu=${CUDA_VISIBLE_DEVICES-unset}
echo "$student ${gpu:-empty} ${SLURM_JOB_ID:--}.${SLURM_STEP_ID:--} $start $(date +%s.%N)" >>"$FAKE_RUNS"
echo "$(basename "$0"): skipped: no usable CUDA device" >&2
exit 77
PROGRAM
chmod +x "$out"
SCRIPT
    chmod +x "$TOOLKIT/bin/nvcc"
    # Two fake GPUs, by UUID as nvidia-smi -L lists them; no other answer.
    printf '#!/bin/sh\n[ "$1" = -L ] || exit 9\necho "GPU 0: Fake GPU (UUID: GPU-fake-0)"\necho "GPU 1: Fake GPU (UUID: GPU-fake-1)"\n' >"$FAKE_BIN/nvidia-smi"
    chmod +x "$FAKE_BIN/nvidia-smi"
    export NVCC=$TOOLKIT/bin/nvcc SM=90 FAKE_RUNS=$BATS_TEST_TMPDIR/runs FAKE_SECONDS=0.2
    # The fake programs note their runs in a file outside the workbook, which
    # a sandbox would hide: what is tested here is the sharing out of GPUs
    # (tests/confine.bats tests the sandbox).
    export GRADE_SANDBOX=none
    rm -f "$FAKE_RUNS" "$FAKE_RUNS.pids"
}

# class NAME...: a folder of repositories, one per name, each with step 04's exercise.
class() {
    CLASS=$BATS_TEST_TMPDIR/class
    local name
    for name in "$@"; do
        mkdir -p "$CLASS/$name/04-reduction-interleaved"
        cp "$W/04-reduction-interleaved/reduction_interleaved.cu" "$CLASS/$name/04-reduction-interleaved/"
    done
}

# spans: per student, from $FAKE_RUNS: "student GPUs first-start last-end job.steps",
# with the GPUs and the job steps it ran on joined by commas.
spans() {
    awk '{ s = $1
           if (!(s in first) || $4 < first[s]) first[s] = $4
           if ($5 > last[s]) last[s] = $5
           if (index("," gpus[s] ",", "," $2 ",") == 0) gpus[s] = gpus[s] (gpus[s] == "" ? "" : ",") $2
           if (index("," steps[s] ",", "," $3 ",") == 0) steps[s] = steps[s] (steps[s] == "" ? "" : ",") $3 }
         END { for (s in first) printf "%s %s %.3f %.3f %s\n", s, gpus[s], first[s], last[s], steps[s] }' "$FAKE_RUNS" | sort
}

# overlapping: the pairs of students graded at the same time, "a b" a line.
overlapping() {
    spans | awk '{ n++; name[n] = $1; gpu[n] = $2; from[n] = $3; to[n] = $4 }
        END { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
                  if (from[i] < to[j] && from[j] < to[i]) print name[i], gpu[i], name[j], gpu[j] }'
}

@test "batch refuses a bad --jobs, --step-jobs, --gpus or class with exit 2, before grading anyone" {
    class alice
    for jobs in 0 -1 two 1.5 99999 ""; do
        run --separate-stderr "$W/grading/batch" --jobs "$jobs" --out "$BATS_TEST_TMPDIR/out" "$CLASS"
        [ "$status" -eq 2 ] || fail "--jobs '$jobs': exit $status"
        [[ $stderr == "batch: --jobs $jobs: how many students to grade at once, a whole number from 1 to 9999" ]] || fail "--jobs '$jobs': $stderr"
    done
    for jobs in 0 two 100 ""; do
        run --separate-stderr "$W/grading/batch" --step-jobs "$jobs" --out "$BATS_TEST_TMPDIR/out" "$CLASS"
        [ "$status" -eq 2 ] || fail "--step-jobs '$jobs': exit $status"
        [[ $stderr == "batch: --step-jobs $jobs: how many steps of a student to grade at once, a whole number from 1 to 99" ]] || fail "--step-jobs '$jobs': $stderr"
    done
    for args in "--gpus 0,,1" "--gpus ,0" "--gpus 0;1" "--gpus 0,1 --launcher srun" "--gpus 1,0,1"; do
        # shellcheck disable=SC2086
        run --separate-stderr "$W/grading/batch" $args --out "$BATS_TEST_TMPDIR/out" "$CLASS"
        [ "$status" -eq 2 ] || fail "$args: exit $status"
        [ "${#stderr_lines[@]}" -eq 1 ] || fail "$args: $stderr"
    done
    run --separate-stderr "$W/grading/batch" --jobs
    assert_equal "$status" 2
    assert_equal "$stderr" "batch: --jobs needs a value (try --help)"
    run --separate-stderr "$W/grading/batch" --gpus 1,0,1 --out "$BATS_TEST_TMPDIR/out" "$CLASS"
    assert_equal "$stderr" "batch: --gpus names GPU 1 twice: each student needs a GPU of its own"
    run --separate-stderr env CUDA_VISIBLE_DEVICES=0,0 "$W/grading/batch" --jobs 2 --out "$BATS_TEST_TMPDIR/out" "$CLASS"
    assert_equal "$status" 2
    assert_equal "$stderr" "batch: CUDA_VISIBLE_DEVICES names GPU 0 twice: each student needs a GPU of its own"
    # A class folder with no repository in it: no student named "*".
    mkdir -p "$BATS_TEST_TMPDIR/empty-class"
    run --separate-stderr "$W/grading/batch" --out "$BATS_TEST_TMPDIR/out" "$BATS_TEST_TMPDIR/empty-class"
    assert_equal "$status" 2
    assert_equal "$stderr" "batch: no repositories to grade"
    # Two students of one name would write one report folder at once.
    run --separate-stderr "$W/grading/batch" --jobs 2 --out "$BATS_TEST_TMPDIR/out" --list <(printf 'x %s\nx %s\n' "$CLASS/alice" "$CLASS/alice")
    assert_equal "$status" 2
    [[ $stderr == "batch: two students named 'x' "* ]] || fail "$stderr"
    assert [ ! -e "$BATS_TEST_TMPDIR/out" ]
    assert [ ! -e "$FAKE_RUNS" ]
}

@test "batch --jobs on one machine: a GPU per student, never two on one, rows in the class's order" {
    slow_test "a class of four graded"
    # a-slow is first in the class and takes longest: others finish before it.
    # Its run (4 x 1.5 s) outlasts the seconds a busy machine may take to
    # start the next student's, so that two runs overlap however loaded.
    class a-slow b c d e
    FAKE_SECONDS=1.5 FAKE_SLOW=a-slow run --separate-stderr env -u CUDA_VISIBLE_DEVICES PATH="$FAKE_BIN:$PATH" \
        "$W/grading/batch" --jobs 3 --step 04 --out "$BATS_TEST_TMPDIR/out" "$CLASS"
    # No real GPU: every student says "no GPU", as with one at a time.
    assert_equal "$status" 1
    summaries=$(grep '^== ' <<<"$output")
    [[ $stderr == *"batch: --jobs 3, but nvidia-smi -L gives 2 GPU(s): grading 2 student(s) at a time, one per GPU"* ]] || fail "$stderr"
    [[ $stderr == *"batch: grading a-slow on GPU 0"* ]] || fail "$stderr"
    [[ $stderr == *"batch: 1/5 students done, 1 failed so far, about "*" left"* ]] || fail "$stderr"
    [[ $stderr == *"batch: 5/5 students done, 5 failed, in "* ]] || fail "$stderr"
    # Each student ran on one GPU of the two, all of its runs.
    run spans
    assert_equal "${#lines[@]}" 5
    for line in "${lines[@]}"; do
        [[ $line =~ ^[a-e](-slow)?\ GPU-fake-[01]\  ]] || fail "not one fake GPU per student: $line"
    done
    # Some students were graded at once, never two on one GPU.
    run overlapping
    [ "${#lines[@]}" -ge 1 ] || fail "no two students were graded at the same time: $(spans)"
    for line in "${lines[@]}"; do
        read -r s1 g1 s2 g2 <<<"$line"
        [ "$g1" != "$g2" ] || fail "$s1 and $s2 were graded at the same time on $g1: $(spans)"
    done
    # The others finished before a-slow; the gradebook keeps the class's order.
    [[ $(head -n 1 <<<"$summaries") == "== b "* ]] || fail "b did not finish first: $summaries"
    run cut -d, -f1 "$BATS_TEST_TMPDIR/out/gradebook.csv"
    assert_output "$(printf 'student\n"a-slow"\n"b"\n"c"\n"d"\n"e"')"
    run cut -d, -f5- "$BATS_TEST_TMPDIR/out/gradebook.csv"
    assert_output "$(printf 'gpu,status\n'; for s in 1 2 3 4 5; do echo '"","no GPU: not graded"'; done)"
    for s in a-slow b c d e; do
        assert [ -f "$BATS_TEST_TMPDIR/out/$s/junit.xml" ]
        assert [ -f "$BATS_TEST_TMPDIR/out/$s/records/tests.tsv" ]
    done
    assert [ ! -e "$BATS_TEST_TMPDIR/out/.work" ]
}

@test "batch takes its GPUs from --gpus, else CUDA_VISIBLE_DEVICES; with none there, it grades no one and says so at once" {
    slow_test "batch started in every way it finds GPUs"
    class alice bob
    FAKE_SECONDS=0.05
    run --separate-stderr env CUDA_VISIBLE_DEVICES=1,0 PATH="$FAKE_BIN:$PATH" \
        "$W/grading/batch" --jobs 2 --step 04 --out "$BATS_TEST_TMPDIR/out" "$CLASS"
    assert_equal "$status" 1
    assert_equal "$(spans | cut -d' ' -f2 | sort | paste -sd' ')" "0 1"
    rm -f "$FAKE_RUNS"
    # More jobs than the GPUs named: one at a time on GPU 1.
    run --separate-stderr env CUDA_VISIBLE_DEVICES=1,0 PATH="$FAKE_BIN:$PATH" \
        "$W/grading/batch" --jobs 2 --gpus 1 --step 04 --out "$BATS_TEST_TMPDIR/out" "$CLASS"
    assert_equal "$status" 1
    [[ $stderr == *"batch: --jobs 2, but --gpus gives 1 GPU(s): grading 1 student(s) at a time, one per GPU"* ]] || fail "$stderr"
    assert_equal "$(spans | cut -d' ' -f2 | paste -sd' ')" "1 1"
    run overlapping
    assert_output ""
    rm -f "$FAKE_RUNS"
    # No GPU at all (none that CUDA_VISIBLE_DEVICES allows, or an index past
    # the two there are): no one is graded, nothing is built, and batch says
    # so in one line and fails, at once.
    rm -rf "$BATS_TEST_TMPDIR/out"
    for visible in "" 2 -1; do
        run --separate-stderr env CUDA_VISIBLE_DEVICES="$visible" PATH="$FAKE_BIN:$PATH" \
            "$W/grading/batch" --jobs 2 --step 04 --out "$BATS_TEST_TMPDIR/out" "$CLASS"
        assert_equal "$status" 1
        [ "${#stderr_lines[@]}" -eq 1 ] || fail "CUDA_VISIBLE_DEVICES=$visible: $stderr"
        [[ $stderr == "batch: NO GPU: no usable CUDA device here (CUDA_VISIBLE_DEVICES='$visible' "*"), so none of the 2 student(s) can be graded; nothing was built or written."* ]] ||
            fail "CUDA_VISIBLE_DEVICES=$visible: $stderr"
        assert [ ! -e "$FAKE_RUNS" ]
        assert [ ! -e "$BATS_TEST_TMPDIR/out" ]
    done
}

@test "batch stopped (SIGTERM) ends the gradings under way, keeps the rows of those done, exits 143" {
    class alice bob carol
    FAKE_SECONDS=60 env -u CUDA_VISIBLE_DEVICES PATH="$FAKE_BIN:$PATH" \
        "$W/grading/batch" --jobs 2 --step 04 --out "$BATS_TEST_TMPDIR/out" "$CLASS" \
        >"$BATS_TEST_TMPDIR/log" 2>&1 3>&- &
    batch=$!
    # Wait until both first students' programs run.
    for _ in $(seq 100); do
        [ "$(wc -l 2>/dev/null <"$FAKE_RUNS.pids")" = 2 ] && break
        sleep 0.2
    done
    assert_equal "$(wc -l <"$FAKE_RUNS.pids")" 2
    kill -TERM "$batch"
    wait "$batch" && status=0 || status=$?
    assert_equal "$status" 143
    grep -q "batch: stopped after 0 of 3 students" "$BATS_TEST_TMPDIR/log" || fail "$(cat "$BATS_TEST_TMPDIR/log")"
    # Nothing of theirs is left running, and carol was never started.
    sleep 1
    while read -r pid; do
        ! kill -0 "$pid" 2>/dev/null || fail "program $pid still runs after batch was stopped"
    done <"$FAKE_RUNS.pids"
    assert_equal "$(cat "$BATS_TEST_TMPDIR/out/gradebook.csv")" "student,04,total,max,gpu,status"
    assert [ ! -e "$BATS_TEST_TMPDIR/out/.work" ]
    assert [ ! -e "$BATS_TEST_TMPDIR/out/carol" ]
}

@test "a student stopped by --student-timeout leaves nothing running on its GPU for the next one" {
    slow_test "two students waited out"
    class alice bob
    # Each program run would take 60 s, within a per-run timeout of 50 s of
    # its own; each student may take 12 s (time to reach a program run on a
    # busy machine: 3 s did not always).
    FAKE_SECONDS=60 run --separate-stderr env -u CUDA_VISIBLE_DEVICES PATH="$FAKE_BIN:$PATH" \
        "$W/grading/batch" --jobs 2 --gpus 0 --timeout 50 --student-timeout 12 --step 04 --out "$BATS_TEST_TMPDIR/out" "$CLASS"
    # Stopped is not graded: batch says so in its status (0 only when every student was graded).
    assert_equal "$status" 1
    run cut -d, -f1,6 "$BATS_TEST_TMPDIR/out/gradebook.csv"
    assert_output "$(printf 'student,status\n"alice","stopped after 12s"\n"bob","stopped after 12s"')"
    assert_equal "$(wc -l <"$FAKE_RUNS.pids")" 2
    while read -r pid; do
        ! kill -0 "$pid" 2>/dev/null || fail "program $pid still runs after its student was stopped"
    done <"$FAKE_RUNS.pids"
}

@test "tests/batch-gpu/run: --help, bad options, and no two GPUs here" {
    run --separate-stderr "$WORKBOOK_DIR/tests/batch-gpu/run" --help
    assert_success
    [[ $output == *"--jobs 1"*"--jobs 2"* ]] || fail "$output"
    for args in "--bogus" "--step" "--step 4" "--step 99" "--timeout 0" "--step-jobs 0" "--step-jobs x" "--step-jobs"; do
        # shellcheck disable=SC2086
        run --separate-stderr "$WORKBOOK_DIR/tests/batch-gpu/run" $args
        [ "$status" -eq 2 ] || fail "$args: exit $status ($stderr)"
        [ "${#stderr_lines[@]}" -eq 1 ] || fail "$args: $stderr"
    done
    [ -d "$WORKBOOK_DIR/solutions" ] || return 0  # a handout: the script skips for want of them
    # One fake GPU: it needs two, and grades nothing.
    printf '#!/bin/sh\necho "GPU 0: Fake GPU (UUID: GPU-fake-0)"\n' >"$FAKE_BIN/nvidia-smi"
    OUT=$BATS_TEST_TMPDIR/gpu-out run --separate-stderr env PATH="$FAKE_BIN:$PATH" "$WORKBOOK_DIR/tests/batch-gpu/run"
    assert_equal "$status" 77
    assert_equal "$stderr" "batch-gpu/run: skipped: nvidia-smi -L lists 1 GPU(s); this needs two"
    assert [ ! -e "$BATS_TEST_TMPDIR/gpu-out" ]
}

# A single-node Slurm in a folder of its own: MUNGE with a new key, slurmctld
# and slurmd on free ports, no GPUs (no GRES), cons_tres over cores and
# memory as a site would have it. Sets SLURM_CONF, or says in $why why not.
start_slurm() {
    why=""
    local tool
    [ "$(id -u)" -eq 0 ] || { why="slurmd runs its job steps as root here: run the tests as root"; return 1; }
    for tool in munged slurmctld slurmd srun salloc sinfo; do
        command -v "$tool" >/dev/null || { why="$tool is not installed (apt-get install slurm-wlm munge)"; return 1; }
    done
    SLURM_DIR=$(mktemp -d /tmp/batch-slurm.XXXXXX)  # short: MUNGE's socket path has a limit
    mkdir -p "$SLURM_DIR/munge" "$SLURM_DIR/state" "$SLURM_DIR/spool"
    chmod 700 "$SLURM_DIR/munge"
    head -c 1024 /dev/urandom >"$SLURM_DIR/munge/key"
    chmod 400 "$SLURM_DIR/munge/key"
    munged --force --key-file="$SLURM_DIR/munge/key" --socket="$SLURM_DIR/munge/socket" \
        --pid-file="$SLURM_DIR/munge/pid" --log-file="$SLURM_DIR/munge/log" --seed-file="$SLURM_DIR/munge/seed" \
        </dev/null >/dev/null 2>&1 3>&- || { why="munged did not start: $(tail -n 2 "$SLURM_DIR/munge/log" 2>/dev/null)"; return 1; }
    local node cpus port listening
    node=$(slurmd -C 2>/dev/null | head -n 1)
    [[ $node == NodeName=* ]] || { why="slurmd -C says nothing of this node"; return 1; }
    cpus=$(sed -n 's/.* CPUs=\([0-9]*\).*/\1/p' <<<"$node")
    [ "${cpus:-0}" -ge 2 ] || { why="two students at once need 2 CPUs; slurmd -C finds ${cpus:-none}"; return 1; }
    # Two free ports in a row, not in use by anything listening here.
    listening=$(awk 'NR > 1 && $4 == "0A" { split($2, a, ":"); print a[2] }' /proc/net/tcp /proc/net/tcp6 2>/dev/null |
        while read -r hex; do echo $((16#$hex)); done)
    for _ in $(seq 20); do
        port=$((20000 + RANDOM % 20000))
        ! grep -qx -e "$port" -e "$((port + 1))" <<<"$listening" && break
    done
    SLURM_NODE=$(sed 's/^NodeName=\([^ ]*\).*/\1/' <<<"$node")
    cat >"$SLURM_DIR/slurm.conf" <<CONF
ClusterName=batchtest
SlurmctldHost=$SLURM_NODE(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$SLURM_DIR/munge/socket
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$SLURM_DIR/state
SlurmdSpoolDir=$SLURM_DIR/spool
SlurmctldPidFile=$SLURM_DIR/slurmctld.pid
SlurmdPidFile=$SLURM_DIR/slurmd.pid
SlurmctldLogFile=$SLURM_DIR/slurmctld.log
SlurmdLogFile=$SLURM_DIR/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
MailProg=/bin/true
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=batchtest Nodes=$SLURM_NODE Default=YES MaxTime=INFINITE State=UP
CONF
    export SLURM_CONF=$SLURM_DIR/slurm.conf
    slurmctld -f "$SLURM_CONF" </dev/null >/dev/null 2>&1 3>&- || { why="slurmctld did not start: $(tail -n 2 "$SLURM_DIR/slurmctld.log")"; return 1; }
    slurmd -f "$SLURM_CONF" </dev/null >/dev/null 2>&1 3>&- || { why="slurmd did not start: $(tail -n 2 "$SLURM_DIR/slurmd.log")"; return 1; }
    for _ in $(seq 60); do
        [ "$(sinfo -h -o %t 2>/dev/null)" = idle ] && return 0
        sleep 0.5
    done
    why="the node did not come up: sinfo says '$(sinfo -h -o %t 2>&1)'; $(tail -n 2 "$SLURM_DIR/slurmd.log" 2>/dev/null)"
    return 1
}

# Stop what start_slurm started, by the ids in its pid files.
stop_slurm() {
    [ -n "${SLURM_DIR:-}" ] || return 0
    local pidfile pid
    for pidfile in "$SLURM_DIR/slurmd.pid" "$SLURM_DIR/slurmctld.pid" "$SLURM_DIR/munge/pid"; do
        pid=$(cat "$pidfile" 2>/dev/null) || continue
        kill -TERM "$pid" 2>/dev/null
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    done
    rm -rf "$SLURM_DIR"
}

teardown() {
    stop_slurm
}

@test "batch --jobs 2 in a real single-node Slurm's sbatch job: students side by side in job steps, a whole gradebook" {
    slow_test "a Slurm started and a class graded"
    start_slurm || skip "no Slurm to grade through: $why"
    class alice bob carol dave
    # In an allocation of 2 CPUs, each student in a job step of its own (the
    # launcher the README gives, less the GPU this node does not have).
    # The README's sbatch script, less the GPUs this node does not have: an
    # allocation of 2 CPUs, each student in a job step of its own.
    cat >"$BATS_TEST_TMPDIR/grade-class.sbatch" <<SCRIPT
#!/bin/bash
#SBATCH --ntasks=2
#SBATCH --mem=1000
#SBATCH --output=$BATS_TEST_TMPDIR/slurm.out
"$W/grading/batch" --jobs 2 --launcher "srun --exclusive -n1 --mem=0" --step 04 --out "$BATS_TEST_TMPDIR/out" "$CLASS"
SCRIPT
    local job state
    job=$(env -u CUDA_VISIBLE_DEVICES FAKE_SECONDS=0.4 sbatch --parsable "$BATS_TEST_TMPDIR/grade-class.sbatch")
    # (sbatch --wait would do, but looks only every few seconds.)
    for _ in $(seq 300); do
        state=$(squeue -h -j "$job" -o %T 2>/dev/null)
        [ -z "$state" ] || [ "$state" = COMPLETED ] || [ "$state" = FAILED ] && break
        sleep 0.5
    done
    output=$(cat "$BATS_TEST_TMPDIR/slurm.out")
    [[ $(scontrol show job "$job") == *" ExitCode=1:0"* ]] || fail "the job's exit status is not batch's 1 (no GPU): $(scontrol show job "$job" | grep -o 'JobState=[^ ]*\|ExitCode=[^ ]*'); $output"
    [[ $output != *"batch: note: srun"* ]] || fail "$output"
    # Every run of every student was in a Slurm job step, one step per student.
    run spans
    assert_equal "${#lines[@]}" 4
    for line in "${lines[@]}"; do
        [[ $line =~ ^[a-z]+\ unset\ [0-9.]+\ [0-9.]+\ [0-9]+\.[0-9]+$ ]] || fail "not one Slurm job step per student: $(spans)"
    done
    assert_equal "$(spans | cut -d' ' -f5 | sort -u | wc -l)" 4
    # Students ran side by side.
    run overlapping
    [ "${#lines[@]}" -ge 1 ] || fail "no two students were graded at the same time: $(spans)"
    # The gradebook is whole, in the class's order.
    run cut -d, -f1,6 "$BATS_TEST_TMPDIR/out/gradebook.csv"
    assert_output "$(printf 'student,status\n"alice","no GPU: not graded"\n"bob","no GPU: not graded"\n"carol","no GPU: not graded"\n"dave","no GPU: not graded"')"
}

@test "batch takes a student's files as regular files only: a symbolic link is refused, a missing file not graded, their rows say so, nothing of the target shows" {
    class alice bob carol
    rm "$CLASS/carol/04-reduction-interleaved/reduction_interleaved.cu"  # handed in no file of step 04
    local secret=$BATS_TEST_TMPDIR/instructor/key.txt
    mkdir -p "$(dirname "$secret")"
    echo TOP-SECRET-INSTRUCTOR-KEY-12345 >"$secret"
    ln -sf "$secret" "$CLASS/bob/04-reduction-interleaved/reduction_interleaved.cu"
    run --separate-stderr env -u CUDA_VISIBLE_DEVICES PATH="$FAKE_BIN:$PATH" "$W/grading/batch" --step 04 --out "$BATS_TEST_TMPDIR/out" "$CLASS"
    run grep -E '^"(alice|bob|carol)",' "$BATS_TEST_TMPDIR/out/gradebook.csv"
    assert_line --regexp '^"alice",.*,"no GPU: not graded"$'
    assert_line --regexp '^"bob",.*,"no GPU: not graded, hand-in refused: 04-reduction-interleaved/reduction_interleaved.cu"$'
    assert_line --regexp '^"carol",.*,"no GPU: not graded, not handed in: 04-reduction-interleaved/reduction_interleaved.cu"$'
    run grep -F "is a symbolic link" "$BATS_TEST_TMPDIR/out/bob/hand-in.txt" "$BATS_TEST_TMPDIR/out/bob/grade.log"
    assert_success
    run grep -rl TOP-SECRET "$BATS_TEST_TMPDIR/out"
    assert_failure 1
}
