#!/usr/bin/env bats
# common/cuda.mk's choices for a toolkit: the architectures it builds, the
# path to the toolkit's libraries; and what the build made of
# them. The choices are checked against made-up toolkits (an nvcc that only
# answers --list-gpu-arch), so that every layout is tried on any machine.

bats_require_minimum_version 1.5.0
load helpers

# fake_toolkit DIR ARCH...: a toolkit whose nvcc builds for these architectures.
fake_toolkit() {
    local dir=$1 arch
    shift
    mkdir -p "$dir/bin" "$dir/lib64"
    {
        echo '#!/bin/sh'
        echo '[ "$1" = --list-gpu-arch ] || exit 1'
        for arch in "$@"; do echo "echo compute_$arch"; done
    } >"$dir/bin/nvcc"
    chmod +x "$dir/bin/nvcc"
}

# cuda_mk VARIABLE [MAKE ARGUMENT...]: what cuda.mk sets VARIABLE to.
cuda_mk() {
    local variable=$1
    shift
    env -u SM -u NVCC -u CUDA_PATH -u CCBIN make -s -f "$WORKBOOK_DIR/common/cuda.mk" --eval "print: ; @echo \$($variable)" print "$@"
}

@test "with no GPU, each toolkit builds the common architectures it can: sm_70 up to CUDA 12, sm_75 on from 13" {
    fake_toolkit "$BATS_TEST_TMPDIR/cuda-11.8" 35 37 50 52 53 60 61 62 70 72 75 80 86 87 89 90
    fake_toolkit "$BATS_TEST_TMPDIR/cuda-12.4" 50 52 53 60 61 62 70 72 75 80 86 87 89 90 90a
    fake_toolkit "$BATS_TEST_TMPDIR/cuda-13.0" 75 80 86 87 88 89 90 100 103 110 120 121
    run cuda_mk ARCHS SM= CUDA_PATH="$BATS_TEST_TMPDIR/cuda-11.8"
    assert_output "70 75 80 86 89 90"
    run cuda_mk ARCHS SM= CUDA_PATH="$BATS_TEST_TMPDIR/cuda-12.4"
    assert_output "70 75 80 86 89 90"
    run cuda_mk ARCHS SM= CUDA_PATH="$BATS_TEST_TMPDIR/cuda-13.0"
    assert_output "75 80 86 89 90 100 120"
    # PTX of the newest, for a GPU newer than all of them.
    run cuda_mk GENCODE SM= CUDA_PATH="$BATS_TEST_TMPDIR/cuda-12.4"
    assert_output --partial "arch=compute_90,code=compute_90"
    refute_output --partial "compute_70,code=compute_70"
}

@test "SM picks the architectures, whatever the toolkit" {
    fake_toolkit "$BATS_TEST_TMPDIR/cuda" 75 80 90
    run cuda_mk GENCODE SM="75 90" CUDA_PATH="$BATS_TEST_TMPDIR/cuda"
    assert_output --partial "arch=compute_75,code=sm_75 -gencode arch=compute_90,code=sm_90"
    refute_output --partial "code=compute_"
}

@test "a toolkit in CUDA_PATH: the programs carry the path to its libraries" {
    fake_toolkit "$BATS_TEST_TMPDIR/cuda" 75 90
    run cuda_mk CUDA_LDFLAGS SM= CUDA_PATH="$BATS_TEST_TMPDIR/cuda"
    assert_output "-Xlinker -rpath=$BATS_TEST_TMPDIR/cuda/lib64"
}

@test "the toolkit is found from nvcc without CUDA_PATH; the system's own folders get no rpath" {
    fake_toolkit "$BATS_TEST_TMPDIR/opt/cuda" 75 90
    run cuda_mk CUDA_ROOT SM= NVCC="$BATS_TEST_TMPDIR/opt/cuda/bin/nvcc"
    assert_output "$BATS_TEST_TMPDIR/opt/cuda"
    # Debian's packages: nvcc in /usr/bin, libraries in the system's folders.
    run cuda_mk CUDA_LDFLAGS SM=90 CUDA_PATH=/usr NVCC="$(command -v nvcc)"
    refute_output --partial rpath
}

@test "CCBIN picks the host compiler" {
    run cuda_mk NVCC_HOST SM=90 CCBIN=g++-11
    assert_output "-ccbin g++-11"
    run cuda_mk NVCC_HOST SM=90
    assert_output ""
}

@test "the shared harness is compiled once, into common/build, and linked into every program" {
    [ -n "$(all_programs)" ] || skip "nothing built: run make first"
    local objects=("$WORKBOOK_DIR"/common/build/*.o)
    [ -e "${objects[0]}" ] || fail "common/build holds no objects"
    for dir in "${STEP_DIRS[@]}"; do
        run compgen -G "$dir/build/harness.o"
        assert_failure
    done
}

@test "the programs hold machine code for every architecture of the build" {
    local program=$WORKBOOK_DIR/04-reduction-interleaved/reduction_interleaved
    [ -x "$program" ] || skip "nothing built: run make first"
    local cuobjdump
    cuobjdump=$(dirname "$(make -s -f "$WORKBOOK_DIR/common/cuda.mk" --eval 'print: ; @echo $(NVCC)' print)")/cuobjdump
    [ -x "$cuobjdump" ] || skip "no cuobjdump beside nvcc"
    run "$cuobjdump" --list-elf "$program"
    assert_success
    for arch in $(make -s -f "$WORKBOOK_DIR/common/cuda.mk" --eval 'print: ; @echo $(ARCHS)' print); do
        assert_output --regexp "\.sm_${arch}\.cubin"
    done
}

@test "tests/toolkits/run: --help exits 0; an unknown toolkit or option exits 2, before fetching anything" {
    run "$WORKBOOK_DIR/tests/toolkits/run" --help
    assert_success
    assert_output --partial "usage: tests/toolkits/run"
    run --separate-stderr "$WORKBOOK_DIR/tests/toolkits/run" --cache "$BATS_TEST_TMPDIR/cache" 10.2
    assert_failure 2
    assert_equal "$stderr" "toolkits: no toolkit 10.2: one of 11.8 12.4 12.4+cccl12.9 system"
    run "$WORKBOOK_DIR/tests/toolkits/run" --bogus
    assert_failure 2
    [ ! -e "$BATS_TEST_TMPDIR/cache" ] || fail "a bad argument created the cache folder"
}
