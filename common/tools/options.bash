# options.bash: the manners every script of the workbook shares, so that each
# behaves the same way: --help prints the script's header comment and exits 0;
# a bad option, or an option without its value, says what is wrong on one
# line and exits 2; a tool of the CUDA toolkit is looked for in one order
# everywhere; a value is asked of make without make's own chatter. Sourced by
# the scripts in common/tools/, grading/ (and the grader's tests, grading/lib.bash)
# and tests/; each script sets OPTIONS_NAME (its name in messages) first.

# usage: the header comment of the running script (its lines after #!, up to
# the first line that is not a comment), without the leading "# ".
usage() {
    awk 'NR == 1 && /^#!/ { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"
}

# die MESSAGE: a bad command line: say so and exit 2 (2 is for bad options only).
die() {
    echo "${OPTIONS_NAME:-$(basename "$0")}: $*" >&2
    exit 2
}

# need_value "$@": call on an option that takes a value, with the arguments
# still to read; refuses the option when no value follows it.
need_value() {
    [ $# -ge 2 ] || die "$1 needs a value (try --help)"
}

# The words with which a program of the workbook says that the GPU's memory
# was short, on its stderr (where no kernel prints): a CUDA allocation that
# failed (CUDA_CHECK, exit 3), or its own check before it allocates
# (require_device_memory in common/core/harness.cu, exit 2). Read by
# sanitize.sh and the grader, which run such a run again alone.
GPU_MEMORY_SHORT='CUDA error cudaErrorMemoryAllocation|of GPU memory and .* is free'

# cuda_tool NAME [GIVEN]: the path of a program of the CUDA toolkit (nvcc,
# ncu, compute-sanitizer), looked for in this order:
#   1. GIVEN, where the caller was told which one to use (NVCC, GRADE_NCU,
#      COMPUTE_SANITIZER, ...): that one or none, a path or a name on PATH;
#   2. $CUDA_BIN, the bin/ of the toolkit make chose (common/cuda.mk exports
#      it), so that the tools come from the compiler's own toolkit;
#   3. PATH;
#   4. beside nvcc ($NVCC, else nvcc on PATH, its links followed: a link in
#      /usr/bin may stand for a whole toolkit elsewhere);
#   5. $CUDA_PATH/bin, or without CUDA_PATH the usual homes of a toolkit
#      that nobody put on PATH, /usr/local/cuda/bin and /opt/cuda/bin.
# Prints the path and succeeds, or prints nothing and fails.
cuda_tool() {
    local name=$1 given=${2:-} nvcc dir homes=(/usr/local/cuda/bin /opt/cuda/bin)
    if [ -n "$given" ]; then
        type -P "$given"
        return
    fi
    [ -z "${CUDA_PATH:-}" ] || homes=("$CUDA_PATH/bin")
    nvcc=$(type -P "${NVCC:-nvcc}") && nvcc=$(dirname "$(readlink -f "$nvcc")")
    for dir in ${CUDA_BIN:+"$CUDA_BIN"} PATH ${nvcc:+"$nvcc"} "${homes[@]}"; do
        if [ "$dir" = PATH ]; then
            type -P "$name" && return 0
        elif [ -f "${dir%/}/$name" ] && [ -x "${dir%/}/$name" ]; then
            echo "${dir%/}/$name"
            return 0
        fi
    done
    return 1
}

# need_tool NAME WHAT [GIVEN]: cuda_tool NAME [GIVEN], for a script that
# cannot go on without the tool: prints its path, or says what to install
# and exits 1 (a missing tool is no bad option).
need_tool() {
    local name=$1 what=$2 given=${3:-}
    cuda_tool "$name" "$given" && return 0
    if [ -n "$given" ]; then
        echo "${OPTIONS_NAME:-$(basename "$0")}: $name not found: $given, named for it, is not a program" >&2
    else
        echo "${OPTIONS_NAME:-$(basename "$0")}: $name not found${CUDA_BIN:+ in $CUDA_BIN} or on PATH: it is $what," \
            "part of the CUDA toolkit (install the toolkit, or set CUDA_PATH to one that has it)" >&2
    fi
    exit 1
}

# skip_without_gpu [PROGRAM]: exit 77, saying so, when a step's PROGRAM finds
# no usable GPU (--check -n 1, its smallest run, exits 77 before any CUDA
# call): a tool that would watch it has nothing to watch, installed or not.
# Without PROGRAM (nothing built yet: make bench, calibrate, sanitize, profile
# and explain ask first), no_usable_gpu answers, in a moment; where it cannot
# tell, the build goes ahead and the program's own check decides.
skip_without_gpu() {
    local why=""
    if [ $# -ge 1 ]; then
        local said reason
        said=$("$1" --check -n 1 2>&1 >/dev/null)
        [ $? -eq 77 ] || return 0
        # The program's own reason (a driver older than its runtime, say), and where to learn more.
        reason=$(sed -n 's/.*skipped: no usable CUDA device (\(.*\))$/\1/p' <<<"$said" | head -n 1)
        why=" for $(basename "$1")${reason:+ ($reason; make doctor says what to do)}"
    else
        why=" ($(no_usable_gpu))" || return 0
    fi
    say_no_gpu "$why"
    exit 77
}

# say_no_gpu [WHY]: the line said where no CUDA device can be used (the
# caller then exits 77): a skip, or under REQUIRE_GPU=1, which make turns
# into a failure, the reason it fails. WHY follows "no usable CUDA device".
say_no_gpu() {
    if [ "${REQUIRE_GPU:-0}" = 1 ]; then
        echo "${OPTIONS_NAME:-$(basename "$0")}: no usable CUDA device${1:-}, and REQUIRE_GPU=1 asks for one" >&2
    else
        echo "${OPTIONS_NAME:-$(basename "$0")}: skipped: no usable CUDA device${1:-}" >&2
    fi
}

# no_usable_gpu: true, with the reason on one line, where it is certain that
# no CUDA device can be used here -- known in a moment, before a build that
# takes minutes, and without one: CUDA_VISIBLE_DEVICES hides every GPU (it is
# empty, or its first entry is -1 or Slurm's NoDevFiles, or an index past
# those nvidia-smi lists, which CUDA reads as none); nvidia-smi fails (no
# driver that answers) or lists no GPU; or there is no nvidia-smi and no
# driver's device file (/dev/nvidia0, or WSL's /dev/dxg). Wherever it cannot
# tell (a UUID in CUDA_VISIBLE_DEVICES, a driver without nvidia-smi), it
# fails: a program's own check (exit 77, as skip_without_gpu reads it)
# decides then, so that no GPU is refused on a guess. Used by grading/batch,
# and by skip_without_gpu before make builds for a goal that needs a GPU.
no_usable_gpu() {
    local first="" listed count
    if [ -n "${CUDA_VISIBLE_DEVICES+set}" ]; then
        first=${CUDA_VISIBLE_DEVICES%%,*}
        first=${first// /}
        case $first in
        '' | -* | NoDevFiles) echo "CUDA_VISIBLE_DEVICES='$CUDA_VISIBLE_DEVICES' hides every GPU"; return 0 ;;
        esac
    fi
    if ! command -v nvidia-smi >/dev/null; then
        ls /dev/nvidia[0-9]* /dev/dxg >/dev/null 2>&1 && return 1
        echo "no NVIDIA driver here: no nvidia-smi, no /dev/nvidia0"
        return 0
    fi
    if ! listed=$(timeout 30 nvidia-smi -L 2>&1); then
        echo "nvidia-smi -L fails: $(head -n 1 <<<"$listed")"
        return 0
    fi
    count=$(grep -c '^GPU [0-9]' <<<"$listed")
    [ "$count" -gt 0 ] || { echo "nvidia-smi lists no GPU"; return 0; }
    if [[ $first =~ ^[0-9]+$ ]] && [ "$first" -ge "$count" ]; then
        echo "CUDA_VISIBLE_DEVICES='$CUDA_VISIBLE_DEVICES' names GPU $first, and nvidia-smi lists $count"
        return 0
    fi
    return 1
}

# make_value DIR GOAL: what GOAL, a goal of DIR's Makefile that only prints a
# value (print-program, print-sanitize-args), prints -- and nothing else. A
# make that runs this script hands its flags down in MAKEFLAGS: `make -C ..
# grade` hands down w, which wraps the value in "Entering directory" lines
# even under -s, and --trace or -n would change what is printed. Its
# variables (SM=90, NVCC=..., after the " -- ") go on, as the build had
# them: a goal that reads the toolchain records it (common/step.mk), and
# another would have the next make rebuild everything.
make_value() {
    local flags=" ${MAKEFLAGS:-}" vars=""
    [[ $flags == *" -- "* ]] && vars="-- ${flags#* -- }"
    MAKEFLAGS=$vars MFLAGS="" GNUMAKEFLAGS="" make -s -C "$1" "$2"
}
