#!/usr/bin/env bash
# doctor.sh: what this machine has of what the workbook needs, each line with
# its fix. `make doctor` runs it; run it first on a new machine.
set -u

usage() {
    cat <<'EOF'
usage: common/tools/doctor.sh [-h|--help]

Checks, and says how to fix: the CUDA toolkit; the GPU and its compute
capability; the driver's CUDA version against nvcc's; the architectures the
current build holds; bats and its libraries; compute-sanitizer; ncu and
whether this GPU lets it read performance counters; the grader's sandbox
(bubblewrap); gnuplot.

Exit status: 0 everything grading needs is there, GPU included; 1 something
it needs is missing (with or without a GPU); 77 nothing is missing but a
usable GPU; 2 bad option. The last line names what is missing, and the GPU.
`make doctor` exits 0 only when this script does (make's own status, 2,
otherwise).
EOF
}

case ${1:-} in
-h | --help) usage; exit 0 ;;
"") ;;
*) echo "doctor: unknown option '$1' (try --help)" >&2; exit 2 ;;
esac

WORKBOOK_DIR=$(cd "$(dirname "$0")/../.." && pwd)
missing=()  # what grading needs and is not there, by name
absent=()   # what a GPU machine would need, noted where there is no GPU
host_skips=()  # what some host tests need, noted: they skip without it
no_gpu=0

# One line per check: its verdict, what was found; the fix on the next line.
ok() { printf '  ok       %-18s %s\n' "$1" "$2"; }
note() { printf '  note     %-18s %s\n' "$1" "$2"; [ -z "${3:-}" ] || printf '           %-18s fix: %s\n' "" "$3"; }
needed() { printf '  MISSING  %-18s %s\n' "$1" "$2"; printf '           %-18s fix: %s\n' "" "$3"; missing+=("$1"); }

# major.minor as one comparable number: 12.4 -> 1204.
version_number() { awk -F. '{ printf "%d\n", $1 * 100 + $2 }' <<<"$1"; }

echo "The workbook's doctor: what make, make grade, make sanitize and make profile need"
echo

# The toolkit: the same nvcc that make uses (CUDA_PATH, NVCC, PATH, /usr/local/cuda).
echo "CUDA toolkit"
command -v make >/dev/null || needed make "not found" "apt-get install make"
nvcc=$(make -s -f "$WORKBOOK_DIR/common/cuda.mk" --eval 'print: ; @echo $(NVCC)' print SM=0 2>/dev/null)
nvcc_version=""
if [ -n "$nvcc" ] && [ -x "$nvcc" ]; then
    nvcc_version=$("$nvcc" --version | sed -n 's/.*release \([0-9]*\.[0-9]*\).*/\1/p')
    ok nvcc "$nvcc, CUDA $nvcc_version"
    toolkit_bin=$(dirname "$(readlink -f "$nvcc")")
else
    needed nvcc "not found (${nvcc:-nvcc})" "install the CUDA toolkit (https://developer.nvidia.com/cuda-downloads), or make CUDA_PATH=/path/to/cuda"
    toolkit_bin=/usr/local/cuda/bin
fi

# A tool of the toolkit: from PATH, else beside nvcc.
find_tool() { command -v "$1" 2>/dev/null || { [ -x "$toolkit_bin/$1" ] && echo "$toolkit_bin/$1"; }; }

echo
echo "GPU and driver"
gpu_cc=""
driver_cuda=""
hidden=$(source "$WORKBOOK_DIR/common/tools/options.bash" && no_usable_gpu | grep CUDA_VISIBLE_DEVICES)
if [ -n "$hidden" ]; then
    note GPU "$hidden: no program can use it" "unset CUDA_VISIBLE_DEVICES, or set it to a GPU that nvidia-smi -L lists"
    no_gpu=1
elif ! command -v nvidia-smi >/dev/null; then
    note GPU "no nvidia-smi: no NVIDIA driver here" "a machine with an NVIDIA GPU and its driver (Colab: Runtime > Change runtime type > T4 GPU)"
    no_gpu=1
elif ! gpu=$(nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader 2>/dev/null | head -n 1) || [ -z "$gpu" ]; then
    note GPU "nvidia-smi sees no GPU" "check nvidia-smi's own message; on Colab, a GPU runtime"
    no_gpu=1
else
    IFS=, read -r gpu_name gpu_cc driver_version <<<"$gpu"
    gpu_cc=${gpu_cc// /}
    ok GPU "${gpu_name# }, compute capability $gpu_cc (sm_${gpu_cc/./}), driver ${driver_version# }"
    driver_cuda=$(nvidia-smi 2>/dev/null | sed -n 's/.*CUDA Version: *\([0-9]*\.[0-9]*\).*/\1/p' | head -n 1)
fi
if [ -n "$driver_cuda" ] && [ -n "$nvcc_version" ]; then
    d=$(version_number "$driver_cuda")
    t=$(version_number "$nvcc_version")
    if [ "$((d / 100))" -lt "$((t / 100))" ]; then
        needed "driver vs nvcc" "the driver runs CUDA $driver_cuda programs, nvcc is CUDA $nvcc_version: its programs will not start" \
            "a newer driver, or a CUDA $((d / 100)).x toolkit: make CUDA_PATH=/usr/local/cuda-$((d / 100)).x"
    elif [ "$d" -lt "$t" ]; then
        # The minor-version mismatch Colab has: machine code (SASS) for the GPU
        # runs; PTX newer than the driver does not load. The next check says
        # which the build holds.
        note "driver vs nvcc" "driver CUDA $driver_cuda, nvcc CUDA $nvcc_version: programs run only from machine code for this GPU, not from PTX" \
            "build for this GPU (make, with no SM, does; or make SM=${gpu_cc/./})"
    else
        ok "driver vs nvcc" "driver CUDA $driver_cuda, nvcc CUDA $nvcc_version"
    fi
fi

echo
echo "The build"
# The first step's program that is built, in the manifest's order.
program=""
source "$WORKBOOK_DIR/common/tools/manifest.bash"
for folder in $(manifest_steps 2>/dev/null); do
    name=$(step_field "$folder" program)
    for p in "$WORKBOOK_DIR/$folder/${name}_solution" "$WORKBOOK_DIR/$folder/$name"; do
        [ -x "$p" ] && [ -f "$p" ] && { program=$p; break 2; }
    done
done
cuobjdump=$(find_tool cuobjdump)
if [ -z "$cuobjdump" ]; then
    # Not needed to build, run or grade; the doctor and a few tests read a build with it.
    note cuobjdump "not found: the doctor cannot say which GPUs a build is for, and make test skips the tests that read a build's machine code" \
        "it comes with the CUDA toolkit (package cuda-cuobjdump-X-Y), beside nvcc"
    host_skips+=(cuobjdump)
elif [ -z "$program" ]; then
    note architectures "nothing built yet" "make"
else
    sass=$("$cuobjdump" --list-elf "$program" 2>/dev/null | sed -n 's/.*\.\(sm_[0-9]*a\{0,1\}\)\.cubin$/\1/p' | sort -u -t_ -k2n | tr '\n' ' ')
    ptx=$("$cuobjdump" --list-ptx "$program" 2>/dev/null | sed -n 's/.*\.\(sm_[0-9]*\)\.ptx$/\1/p' | sort -u | tr '\n' ' ')
    held="machine code ${sass:-none}${ptx:+, PTX $ptx}"
    if [ -z "$gpu_cc" ]; then
        ok architectures "$held"
    else
        # Machine code runs on its own major version at an equal or higher minor:
        # sm_80 runs on an sm_86 GPU; sm_90a only on sm_90.
        major=${gpu_cc%.*} minor=${gpu_cc#*.} runs=""
        for s in $sass; do
            s=${s#sm_}
            [[ $s == *a ]] && { [ "${s%a}" = "$major$minor" ] && runs=1; continue; }
            [ "${s:0:${#s}-1}" = "$major" ] && [ "${s: -1}" -le "$minor" ] && runs=1
        done
        if [ -n "$runs" ]; then
            ok architectures "$held: runs on this sm_$major$minor GPU"
        else
            needed architectures "$held: no machine code for this sm_$major$minor GPU" "make clean && make (builds for this GPU), or make SM=$major$minor"
        fi
    fi
fi

echo
echo "Grading: bats and its libraries"
# The suite loads its libraries with bats_load_library: bats 1.7.0 or newer.
BATS_MINIMUM=1.7.0
bats=$(command -v bats) || { [ -x "$WORKBOOK_DIR/.tools/bats/bin/bats" ] && bats=$WORKBOOK_DIR/.tools/bats/bin/bats; }
bats_fix="apt-get install bats bats-support bats-assert; where its bats is older than $BATS_MINIMUM (Ubuntu 22.04's), bats-core from github.com/bats-core/bats-core: install.sh /usr/local"
if [ -z "$bats" ]; then
    needed bats "not found on PATH" "$bats_fix"
else
    bats_version=$("$bats" --version 2>/dev/null | sed -n 's/^Bats \([0-9.]*\).*/\1/p')
    if [ "$(printf '%s\n' "$BATS_MINIMUM" "$bats_version" | sort -V | head -n 1)" = "$BATS_MINIMUM" ]; then
        ok bats "$bats, $bats_version"
    else
        needed bats "$bats, ${bats_version:-version unknown}: older than $BATS_MINIMUM" "$bats_fix"
    fi
fi
lib_path=${BATS_LIB_PATH:-/usr/lib/bats:/usr/local/lib/bats:$WORKBOOK_DIR/.tools/bats/lib/bats}
for lib in bats-support bats-assert; do
    found=""
    IFS=: read -ra dirs <<<"$lib_path"
    for d in "${dirs[@]}"; do [ -f "$d/$lib/load.bash" ] && { found=$d/$lib; break; }; done
    if [ -n "$found" ]; then
        version=$(dpkg-query -W -f='${Version}' "$lib" 2>/dev/null || sed -n 's/.*"version": *"\([^"]*\)".*/\1/p' "$found/package.json" 2>/dev/null)
        ok "$lib" "$found${version:+, $version}"
    else
        needed "$lib" "not in $lib_path" "apt-get install $lib, or set BATS_LIB_PATH to the folder that holds $lib"
    fi
done

echo
echo "make sanitize, make profile, make bench"
if sanitizer=$(find_tool compute-sanitizer); then
    ok compute-sanitizer "$sanitizer, $("$sanitizer" --version 2>/dev/null | sed -n 's/.*Version \(.*\)/\1/p' | head -n 1)"
elif [ "$no_gpu" = 0 ]; then
    # With a GPU, the grader's sanitizer test needs it: without, it skips and scores nothing.
    needed compute-sanitizer "not found: make sanitize, the grader's sanitizer test and the launch audit's census cannot run" "it comes with the CUDA toolkit (the cuda-sanitizer package), beside nvcc"
else
    note compute-sanitizer "not found: make sanitize cannot run, and grading skips its sanitizer test and the launch audit's census" "it comes with the CUDA toolkit (the cuda-sanitizer package), beside nvcc"
    absent+=(compute-sanitizer)
fi
if ncu=$(find_tool ncu); then
    ok ncu "$ncu, $("$ncu" --version 2>/dev/null | sed -n 's/.*Version \([^ ]*\).*/\1/p' | head -n 1)"
    # A GPU may keep its counters to administrators (ERR_NVGPUCTRPERM).
    # Asked of ncu itself, on one tiny run of a built program.
    if [ "$no_gpu" = 0 ] && [ -n "$program" ]; then
        counters=$(timeout 120 "$ncu" --clock-control none --metrics smsp__inst_executed.sum "$program" --check -n 1 -b 32 2>&1)
        if grep -q ERR_NVGPUCTRPERM <<<"$counters"; then
            note counters "this GPU keeps its performance counters to administrators: make profile cannot read them" \
                "sudo make profile EX=..., or options nvidia NVreg_RestrictProfilingToAdminUsers=0 in /etc/modprobe.d/ and a reboot"
        elif grep -q 'smsp__inst_executed.sum' <<<"$counters"; then
            ok counters "ncu reads this GPU's performance counters"
        else
            note counters "ncu did not profile a run: $(tail -n 1 <<<"$counters")" "run ncu on a program by hand to see why"
        fi
    fi
elif [ "$no_gpu" = 0 ]; then
    # With a GPU, the grader's lesson test needs it: without, it skips and scores nothing.
    needed ncu "not found: make profile, make explain and the grader's lesson test cannot run" "it comes with the CUDA toolkit (Nsight Compute), or apt-get install nsight-compute"
else
    note ncu "not found: make profile, make explain and, on a GPU, the grader's lesson test cannot run" "it comes with the CUDA toolkit (Nsight Compute), or apt-get install nsight-compute"
    absent+=(ncu)
fi
# The grader's sandbox: optional, but what a class's grading should have.
if sandbox=$("$WORKBOOK_DIR/grading/confine" --check 2>&1); then
    ok sandbox "$sandbox"
else
    note sandbox "none: the grader confines nothing, and bounds time and memory only (grading/confine)" "apt-get install bubblewrap"
fi
if command -v gnuplot >/dev/null; then
    ok gnuplot "$(gnuplot --version 2>/dev/null)"
else
    note gnuplot "not found: make bench writes its table and CSV, not the plot" "apt-get install gnuplot-nox"
fi

echo
# Something missing comes first, whether or not there is a GPU: a script that
# reads only the status must learn of it, and the last line names it all.
if [ ${#missing[@]} -gt 0 ]; then
    list=$(printf '%s, ' "${missing[@]}")
    echo "doctor: MISSING (above, with the fix): ${list%, }$([ "$no_gpu" = 1 ] && echo "; and no usable GPU") (status 1; through make, 2)"
    exit 1
fi
if [ "$no_gpu" = 1 ]; then
    also=""
    [ ${#absent[@]} -eq 0 ] || also="; a GPU machine would need $(printf '%s, ' "${absent[@]}" | sed 's/, $//') as well (notes above)"
    hosts="nothing else is missing for the build and the host tests"
    [ ${#host_skips[@]} -eq 0 ] || hosts="nothing else is missing for the build; without $(printf '%s, ' "${host_skips[@]}" | sed 's/, $//'), a few host tests skip (note above)"
    echo "doctor: no usable GPU: the programs and the grader's GPU tests cannot run here; $hosts$also (status 77; through make, 2)"
    exit 77
fi
echo "doctor: everything grading needs is here"
exit 0
