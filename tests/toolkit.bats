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
    env -u SM -u NVCC -u CUDA_PATH -u CCBIN make -s --no-print-directory -f "$WORKBOOK_DIR/common/cuda.mk" --eval "print: ; @echo \$($variable)" print "$@"
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
    # A copy of the workbook built with an nvcc that writes empty files and
    # logs, per call, "compile OUTPUT SOURCE" or "link OUTPUT INPUT...".
    local copy=$BATS_TEST_TMPDIR/wb log=$BATS_TEST_TMPDIR/nvcc.log
    mkdir -p "$copy" "$BATS_TEST_TMPDIR/bin"
    cp -r "$WORKBOOK_DIR"/{Makefile,steps.conf,common} "${STEP_DIRS[@]}" "$copy/"
    [ ! -d "$WORKBOOK_DIR/solutions" ] || cp -r "$WORKBOOK_DIR/solutions" "$copy/"
    cat >"$BATS_TEST_TMPDIR/bin/nvcc" <<'SCRIPT'
#!/usr/bin/env bash
# -M (what a learner's file includes, checked before it is compiled): nothing.
for arg; do [ "$arg" = -M ] && { echo "target: ${!#}"; exit 0; }; done
# --dryrun (what check-includes asks of its include folders): none.
for arg; do [ "$arg" = --dryrun ] && exit 0; done
# --list-gpu-arch (cuda.mk: may SM be built?): a list that holds the SM asked for.
[ "$1" = --list-gpu-arch ] && { printf 'compute_%s\n' 75 80 86 89 90 100 120; exit 0; }
mode=link inputs=() keep=""
while [ $# -gt 0 ]; do
    case $1 in
    -o) out=$2; shift ;;
    -c) mode=compile ;;
    --keep-dir) keep=$2; shift ;;
    -MF) deps=$2; shift ;;
    -MT) shift ;;
    *.cu | *.o) inputs+=("$1") ;;
    esac
    shift
done
: >"$out"
# --keep-dir (the learner's file, kept for its module and PTX): empty ones,
# and its dependency list (-MF): the file alone.
[ -z "$keep" ] || { : >"$keep/$(basename "${inputs[0]}" .cu).fatbin"; : >"$keep/none.ptx"; echo "$out: ${inputs[0]}" >"$deps"; }
echo "$mode $(realpath -m "$out" "${inputs[@]}" | tr '\n' ' ')" >>"$NVCC_LOG"
SCRIPT
    chmod +x "$BATS_TEST_TMPDIR/bin/nvcc"
    local nvcc=$BATS_TEST_TMPDIR/bin/nvcc
    make -s -C "$copy" clean NVCC="$nvcc" >/dev/null
    NVCC_LOG=$log run make -s -C "$copy" -j2 NVCC="$nvcc" SM=90
    assert_success
    shared=$(make -s --no-print-directory -f "$WORKBOOK_DIR/common/common.mk" --eval 'print: ; @echo $(COMMON_SOURCES)' print)
    tracks=$(make -s --no-print-directory -f "$WORKBOOK_DIR/common/common.mk" --eval 'print: ; @echo $(TRACKS)' print)
    [ -n "$shared" ] && [ -n "$tracks" ] || fail "common.mk names no shared sources ($shared) or tracks ($tracks)"
    # Each shared source is compiled once, into common/build, in the folders
    # the sources are in: the trusted program's (common/core/) and every file
    # of each track's folder (common/tracks/TRACK/).
    # others TRACK: the track's files other than its own TRACK.cu, which both
    # programs of its steps link.
    others() { (cd "$copy/common" && for f in tracks/"$1"/*.cu; do [ "$f" = "tracks/$1/$1.cu" ] || echo "${f%.cu}"; done); }
    sources=$(for source in $shared; do echo "core/$source"; done
        for track in $tracks; do echo "tracks/$track/$track"; others "$track"; done)
    for source in $sources; do
        compiles=$(grep " $copy/common/$source.cu $" "$log")
        [ "$(grep -c . <<<"$compiles")" -eq 1 ] || fail "$(printf 'common/%s.cu is compiled other than once:\n%s' "$source" "$compiles")"
        grep -q "^compile $copy/common/build/$source.o $copy/common/$source.cu $" "$log" ||
            fail "common/$source.cu is not compiled into common/build: $(grep "/common/$source.cu" "$log")"
    done
    # Every program links every shared object of common/build and its
    # track's, and nothing that the build did not compile (a copy of one);
    # each planner (build/PROGRAM.plan, the learner's host code) links the
    # learner's object, which no program links.
    planners=$(grep '^link [^ ]*\.plan ' "$log")
    links=$(grep '^link ' "$log" | grep -v '^link [^ ]*\.plan ')
    while read -r _ planner inputs; do
        [[ " $inputs " == *" ${planner%.plan}.o "* ]] || fail "$planner does not link the learner's object: $inputs"
        [[ " $inputs " == *" $copy/common/build/core/planner.o "* ]] || fail "$planner does not link common/build/core/planner.o: $inputs"
        track=$(step_field "$(basename "$(dirname "$(dirname "$planner")")")" track)
        for source in $(others "$track"); do
            [[ " $inputs " == *" $copy/common/build/$source.o "* ]] || fail "$planner does not link common/build/$source.o: $inputs"
        done
    done <<<"$planners"
    expected=0
    for dir in "${STEP_DIRS[@]}"; do
        expected=$((expected + 1))
        [ ! -d "$WORKBOOK_DIR/solutions/$(basename "$dir")" ] || expected=$((expected + 1))
    done
    [ "$(wc -l <<<"$links")" -eq "$expected" ] || fail "$(printf '%s programs expected, linked:\n%s' "$expected" "$links")"
    [ "$(wc -l <<<"$planners")" -eq "$expected" ] || fail "$(printf '%s planners expected, linked:\n%s' "$expected" "$planners")"
    while read -r _ program inputs; do
        [[ " $inputs " != *" $(dirname "$program")/build/$(basename "$program").o "* ]] || fail "$program links the learner's object: $inputs"
        track=$(step_field "$(basename "$(dirname "$program")")" track)
        for source in $(for s in $shared; do echo "core/$s"; done) "tracks/$track/$track" $(others "$track"); do
            [[ " $inputs " == *" $copy/common/build/$source.o "* ]] || fail "$program does not link common/build/$source.o: $inputs"
        done
        for input in $inputs; do
            grep -q "^compile $input " "$log" || fail "$program links $input, which the build did not compile"
        done
    done <<<"$links"
}

@test "the programs hold machine code for every architecture of the build" {
    local program=$WORKBOOK_DIR/04-reduction-interleaved/reduction_interleaved
    [ -x "$program" ] || skip "nothing built: run make first"
    local cuobjdump
    cuobjdump=$(dirname "$(make -s --no-print-directory -f "$WORKBOOK_DIR/common/cuda.mk" --eval 'print: ; @echo $(NVCC)' print)")/cuobjdump
    [ -x "$cuobjdump" ] || skip "no cuobjdump beside nvcc"
    run "$cuobjdump" --list-elf "$program"
    assert_success
    archs=$(make -s --no-print-directory -f "$WORKBOOK_DIR/common/cuda.mk" --eval 'print: ; @echo $(ARCHS)' print)
    [ -n "$archs" ] || fail "cuda.mk names no architecture to build for"
    for arch in $archs; do
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

# make test-all runs tests/toolkits/run with every toolkit but "system": the
# nvcc on PATH is the one its own build and tests use, and it probes that
# build's planners itself (Makefile, TEST_ALL_TOOLKITS). A toolkit added to
# tests/toolkits/run must not be left out of CI.
@test "make test-all runs every toolkit of tests/toolkits/run but system, and probes its own build's planners" {
    local known listed
    known=$(sed -n 's/^ALL_TOOLKITS=(\(.*\))$/\1/p' "$WORKBOOK_DIR/tests/toolkits/run")
    [ -n "$known" ] || fail "tests/toolkits/run has no line ALL_TOOLKITS=(...)"
    listed=$(sed -n 's/^TEST_ALL_TOOLKITS := //p' "$WORKBOOK_DIR/Makefile")
    [ -n "$listed" ] || fail "the Makefile has no line TEST_ALL_TOOLKITS := ..."
    assert_equal "$listed" "$(printf '%s\n' $known | grep -vx system | paste -sd ' ')"
    grep -q 'tests/toolkits/run $(TEST_ALL_TOOLKITS)' "$WORKBOOK_DIR/Makefile" ||
        fail "make test-all does not run tests/toolkits/run \$(TEST_ALL_TOOLKITS)"
    grep -q 'tests/toolkits/plan-probe "$(CURDIR)"' "$WORKBOOK_DIR/Makefile" ||
        fail "make test-all does not probe its own build's planners (tests/toolkits/plan-probe \"\$(CURDIR)\")"
}
