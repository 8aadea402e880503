#!/usr/bin/env bats
# tests/run: about 17 s, 17 s with --all (without a GPU, on 2 cores; it orders the files, longest first)
# make doctor (common/tools/doctor.sh), on a machine made up for each test: a PATH
# of links to the real commands, less the ones a test takes away, plus fakes
# of nvidia-smi and ncu that answer as a given GPU would. No GPU is needed.

bats_require_minimum_version 1.5.0
load helpers

DOCTOR=$WORKBOOK_DIR/common/tools/doctor.sh

# The machine made up for a test has the GPUs its fake nvidia-smi lists, none
# hidden (make test in a handout runs these with CUDA_VISIBLE_DEVICES empty).
setup() {
    unset CUDA_VISIBLE_DEVICES
}

# fake_path NAME...: a folder of links to every command on PATH but NAMEs, and
# a fake ncu.
fake_path() {
    local bin
    bin=$(path_without ncu "$@")
    # nvcc as make finds it, whichever way that is here.
    [ -e "$bin/nvcc" ] || ln -s "$(make_nvcc)" "$bin/nvcc"
    # An ncu that reads the counters, at once.
    printf '#!/bin/sh\n[ "$1" = --version ] && { echo "Version 2099.1"; exit 0; }\necho "smsp__inst_executed.sum 1"\n' >"$bin/ncu"
    chmod +x "$bin/ncu"
    echo "$bin"
}

# fake_gpu BIN NAME CC DRIVER_CUDA: an nvidia-smi that reports this GPU.
fake_gpu() {
    cat >"$1/nvidia-smi" <<EOF
#!/bin/sh
case "\$*" in
*--query-gpu*) echo "$2, $3, 999.99" ;;
*) echo "| NVIDIA-SMI 999.99   Driver Version: 999.99   CUDA Version: $4 |" ;;
esac
EOF
    chmod +x "$1/nvidia-smi"
}

# The nvcc that make, and so the doctor, uses here.
make_nvcc() { make -s -f "$WORKBOOK_DIR/common/cuda.mk" --eval 'print: ; @echo $(NVCC)' print SM=0; }
nvcc_release() { "$(make_nvcc)" --version | sed -n 's/.*release \([0-9]*\.[0-9]*\).*/\1/p'; }

@test "doctor --help exits 0; a bad option exits 2" {
    run "$DOCTOR" --help
    assert_success
    assert_output --partial "usage: common/tools/doctor.sh"
    run "$DOCTOR" --bogus
    assert_failure 2
}

@test "with no GPU, the doctor checks everything else and exits 77" {
    bin=$(fake_path nvidia-smi)
    run env PATH="$bin" "$DOCTOR"
    assert_failure 77
    assert_line --regexp "note +GPU +no nvidia-smi"
    assert_line --regexp "^  ok +nvcc "
    assert_line --regexp " +bats "
    assert_line --regexp " +bats-assert "
    assert_line --regexp " +compute-sanitizer "
    assert_line --regexp " +ncu "
    assert_line --regexp " +gnuplot "
    assert_output --partial "no usable GPU"
}

@test "without bats on PATH, the doctor says so, with the fix" {
    [ ! -x "$WORKBOOK_DIR/.tools/bats/bin/bats" ] || skip "a bats packed into .tools/ beside the workbook is found without PATH"
    bin=$(fake_path bats nvidia-smi)
    run env PATH="$bin" "$DOCTOR"
    assert_failure 1
    assert_line --regexp "MISSING +bats +not found on PATH"
    assert_output --partial "fix: apt-get install bats"
    # With a GPU, the same machine cannot grade either.
    fake_gpu "$bin" "Tesla T4" 7.5 "$(nvcc_release)"
    run env PATH="$bin" "$DOCTOR"
    assert_failure 1
    assert_line --regexp "MISSING +bats "
}

# A compute capability that the build here runs on: its newest machine code,
# else 7.5 (nothing built, or no cuobjdump to read it: the doctor then only
# notes the build).
build_cc() {
    local program=$WORKBOOK_DIR/04-reduction-interleaved/reduction_interleaved cuobjdump held=""
    cuobjdump=$(dirname "$(readlink -f "$(make_nvcc)")")/cuobjdump
    [ -x "$program" ] && [ -x "$cuobjdump" ] &&
        held=$("$cuobjdump" --list-elf "$program" 2>/dev/null | sed -n 's/.*\.sm_\([0-9]*\)\.cubin$/\1/p' | sort -n | tail -n 1)
    if [ -n "$held" ]; then echo "${held:0:${#held}-1}.${held: -1}"; else echo 7.5; fi
}

@test "a missing piece outranks a missing GPU: exit 1, the last line names both; make doctor exits 0 only when ready" {
    bin=$(fake_path nvidia-smi)
    mkdir -p "$BATS_TEST_TMPDIR/nolibs"
    run env PATH="$bin" BATS_LIB_PATH="$BATS_TEST_TMPDIR/nolibs" "$DOCTOR"
    assert_failure 1
    [[ ${lines[-1]} == *bats-support*bats-assert*"no usable GPU"* ]] || fail "the last line: ${lines[-1]}"
    # Through make, whose own status for a failed command is 2, whatever the script's.
    run env PATH="$bin" BATS_LIB_PATH="$BATS_TEST_TMPDIR/nolibs" make -s -C "$WORKBOOK_DIR" doctor
    assert_failure 2
    assert_output --partial "MISSING (above, with the fix): bats-support, bats-assert; and no usable GPU"
    # Only the GPU missing: 77 from the script, 2 from make.
    run env PATH="$bin" "$DOCTOR"
    assert_failure 77
    [[ ${lines[-1]} == *"no usable GPU"*"nothing else is missing"* ]] || fail "the last line: ${lines[-1]}"
    run env PATH="$bin" make -s -C "$WORKBOOK_DIR" doctor
    assert_failure 2
    # With a GPU, the grader's sanitizer test needs compute-sanitizer: missing,
    # it is missing (where the toolkit has none beside nvcc, which the doctor
    # would find).
    fake_gpu "$bin" "Some GPU" "$(build_cc)" "$(nvcc_release)"
    rm -f "$bin/compute-sanitizer"
    if [ ! -e "$(dirname "$(readlink -f "$(command -v nvcc)")")/compute-sanitizer" ]; then
        run env PATH="$bin" "$DOCTOR"
        assert_failure 1
        assert_equal "${lines[-1]}" "doctor: MISSING (above, with the fix): compute-sanitizer (status 1; through make, 2)"
    fi
    # Nothing missing: 0 from both.
    printf '#!/bin/sh\necho "NVIDIA (R) Compute Sanitizer"\necho "Version 2099.1"\n' >"$bin/compute-sanitizer"
    chmod +x "$bin/compute-sanitizer"
    run env PATH="$bin" "$DOCTOR"
    assert_success
    assert_equal "${lines[-1]}" "doctor: everything grading needs is here"
    run env PATH="$bin" make -s -C "$WORKBOOK_DIR" doctor
    assert_success
}

@test "without bats's libraries, the doctor names the one missing" {
    bin=$(fake_path nvidia-smi)
    mkdir -p "$BATS_TEST_TMPDIR/lib/bats-support"
    touch "$BATS_TEST_TMPDIR/lib/bats-support/load.bash"
    run env PATH="$bin" BATS_LIB_PATH="$BATS_TEST_TMPDIR/lib" "$DOCTOR"
    assert_line --regexp "ok +bats-support "
    assert_line --regexp "MISSING +bats-assert +not in $BATS_TEST_TMPDIR/lib"
}

@test "a driver of an older CUDA major version than nvcc's is a failure, with the fix" {
    bin=$(fake_path nvidia-smi)
    fake_gpu "$bin" "Tesla T4" 7.5 "$(($(nvcc_release | cut -d. -f1) - 1)).4"
    run env PATH="$bin" "$DOCTOR"
    assert_failure 1
    assert_line --regexp "ok +GPU +Tesla T4, compute capability 7.5 \(sm_75\)"
    assert_line --regexp "MISSING +driver vs nvcc +.*will not start"
}

@test "an older minor version (Colab's case) is a note: machine code for the GPU is what runs" {
    local release
    release=$(nvcc_release)
    [ "${release#*.}" -gt 0 ] || skip "nvcc $release: no older minor version to fake"
    bin=$(fake_path nvidia-smi)
    fake_gpu "$bin" "Tesla T4" 7.5 "${release%.*}.$((${release#*.} - 1))"
    run env PATH="$bin" "$DOCTOR"
    assert_line --regexp "note +driver vs nvcc +.*only from machine code for this GPU"
}

@test "the doctor reads the build's architectures and says whether they run on the GPU" {
    local program=$WORKBOOK_DIR/04-reduction-interleaved/reduction_interleaved
    [ -x "$program" ] || skip "nothing built: run make first"
    local held cuobjdump
    cuobjdump=$(dirname "$(readlink -f "$(make_nvcc)")")/cuobjdump
    held=$("$cuobjdump" --list-elf "$program" 2>/dev/null | sed -n 's/.*\.sm_\([0-9]*\)\.cubin$/\1/p' | sort -n | tail -n 1)
    [ -n "$held" ] || skip "no cuobjdump here"
    bin=$(fake_path nvidia-smi)
    # The build's own newest architecture: it runs.
    fake_gpu "$bin" "Some GPU" "${held:0:${#held}-1}.${held: -1}" "$(nvcc_release)"
    run env PATH="$bin" "$DOCTOR"
    assert_line --regexp "ok +architectures +machine code .*sm_$held.*runs on this sm_$held GPU"
    # A GPU older than anything in the build: the fix is a build for it.
    fake_gpu "$bin" "Old GPU" 5.0 "$(nvcc_release)"
    run env PATH="$bin" "$DOCTOR"
    assert_line --regexp "MISSING +architectures +.*no machine code for this sm_50 GPU"
    assert_output --partial "make SM=50"
}

@test "a GPU that keeps its counters from ncu: the doctor says so, with the fix" {
    local program=$WORKBOOK_DIR/04-reduction-interleaved/reduction_interleaved
    [ -x "$program" ] || skip "nothing built: run make first"
    bin=$(fake_path nvidia-smi)
    fake_gpu "$bin" "Tesla T4" 7.5 "$(nvcc_release)"
    printf '#!/bin/sh\n[ "$1" = --version ] && { echo "Version 2099.1"; exit 0; }\necho "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission"\nexit 1\n' >"$bin/ncu"
    chmod +x "$bin/ncu"
    run env PATH="$bin" "$DOCTOR"
    assert_line --regexp "note +counters +.*keeps its performance counters to administrators"
    assert_output --partial "NVreg_RestrictProfilingToAdminUsers=0"
}

# CUDA_VISIBLE_DEVICES that hides every GPU (empty, -1) leaves the driver's
# GPU to no program: the doctor says so, as the make goals do, and not "ok".
@test "a GPU that CUDA_VISIBLE_DEVICES hides is no usable GPU to the doctor, with the fix" {
    bin=$(fake_path nvidia-smi)
    fake_gpu "$bin" "Tesla T4" 7.5 "$(nvcc_release)"
    for hidden in "" -1; do
        run env PATH="$bin" CUDA_VISIBLE_DEVICES="$hidden" "$DOCTOR"
        [ "$status" -eq 77 ] || [ "$status" -eq 1 ] || fail "exit $status"  # (1: something else missing here besides)
        assert_line --regexp "note +GPU +CUDA_VISIBLE_DEVICES='$hidden' hides every GPU: no program can use it"
        assert_line --partial "no usable GPU"
        refute_line --regexp "ok +GPU"
    done
}
