#!/usr/bin/env bats
# tests/run: about 22 s, 23 s with --all (without a GPU, on 2 cores; it orders the files, longest first)
# make test itself (tests/run), in a made-up workbook: the top Makefile, its
# make fragment and tests/run, with small test files of each test's own in
# place of the workbook's, and no step to build. Run without GNU parallel on
# PATH, as on a machine as it comes. Needs no GPU.

bats_require_minimum_version 1.5.0
load helpers

# fake_workbook FILE...: the made-up workbook in $W, with the test files named
# (as tests/NAME.bats), each from the function test_NAME.
fake_workbook() {
    W=$BATS_TEST_TMPDIR/workbook
    mkdir -p "$W/common" "$W/tests"
    cp "$WORKBOOK_DIR/Makefile" "$W/"
    cp "$WORKBOOK_DIR/common/cuda.mk" "$W/common/"
    cp "$WORKBOOK_DIR/tests/run" "$W/tests/"
    local name
    for name in "$@"; do "test_$name" >"$W/tests/$name.bats"; done
}

# Two files that each wait for the other: they pass only side by side.
# (MEET is the folder where they meet.)
meets() {
    printf '@test "%s meets %s" {\n' "$1" "$2"
    printf '    touch "$MEET/%s"\n' "$1"
    printf '    for _ in $(seq 200); do [ -e "$MEET/%s" ] && break; sleep 0.1; done\n' "$2"
    printf '    [ -e "$MEET/%s" ]\n' "$2"
    printf '    touch "$MEET/%s.done"\n}\n' "$1"
}
test_a() { meets a b; }
test_b() { meets b a; }
test_c() {
    printf '@test "c passes" { true; }\n'
    printf '@test "c skips" { skip "for a reason"; }\n'
}
# A timed file: it runs after the others, alone.
test_gpu() { printf '@test "gpu runs last" { [ -e "$MEET/a.done" ] && [ -e "$MEET/b.done" ]; }\n'; }
# A test that would take a minute, and says who it is.
long() { printf '@test "%s" { echo $$ >"$MEET/%s.pid"; sleep 60; touch "$MEET/%s.done"; }\n' "$1" "$1" "$1"; }
test_long1() { long long1; }
test_long2() { long long2; }
# A failed test whose output looks like a skipped one's result: it is no result.
test_fails() { printf '@test "fails passes" { true; }\n@test "fails fails" { echo "ok 1 looks skipped # skip for no reason"; false; }\n'; }
test_empty() { :; }
test_stops() { printf '@test "stops: one" { true; }\n@test "stops: two" { kill -9 $PPID; }\n@test "stops: three" { true; }\n'; }

@test "without GNU parallel, the files that time nothing run side by side, the timed ones after, their TAP is one run, and Ctrl-C stops them" {
    [ "$(nproc)" -ge 2 ] || skip "one core: make test runs one file at a time here"
    fake_workbook a b c gpu
    mkdir -p "$BATS_TEST_TMPDIR/meet"
    run env PATH="$(path_without parallel)" MEET="$BATS_TEST_TMPDIR/meet" make -s -C "$W" test
    assert_success
    assert_line --regexp '^make test: 5 tests, 0 failed, 1 skipped, in [0-9]+ s$'
    assert_line --regexp '^skipped: tests/c.bats: c skips in [0-9]+ms # skip for a reason$'
    # Each file under its name, whole, as it ends.
    assert_line --regexp '^== tests/c.bats: 2 tests, 0 failed, 1 skipped, in [0-9]+ s$'
    # One TAP stream: the plan, then the files in order, numbered on.
    run sed -E 's/ in [0-9]+ms//' "$W/results/tests.tap"
    assert_output "1..5
# tests/a.bats
ok 1 a meets b
# tests/b.bats
ok 2 b meets a
# tests/c.bats
ok 3 c passes
ok 4 c skips # skip for a reason
# tests/gpu.bats
ok 5 gpu runs last"
    # An interrupt (Ctrl-C: to make and all it started) stops every file
    # under way, at once.
    rm "$W"/tests/*.bats
    test_long1 >"$W/tests/long1.bats"
    test_long2 >"$W/tests/long2.bats"
    # SIGINT as a terminal's Ctrl-C finds it, even where this suite was
    # started in the background of a script, which ignores it (env restores it).
    local default_int=()
    env --default-signal=INT true 2>/dev/null && default_int=(--default-signal=INT)
    (exec env "${default_int[@]}" PATH="$(path_without parallel)" MEET="$BATS_TEST_TMPDIR/meet" setsid make -s -C "$W" test >/dev/null 2>&1 3>&-) &
    local group=$! pid
    for _ in $(seq 300); do [ -s "$BATS_TEST_TMPDIR/meet/long1.pid" ] && [ -s "$BATS_TEST_TMPDIR/meet/long2.pid" ] && break; sleep 0.1; done
    [ -s "$BATS_TEST_TMPDIR/meet/long1.pid" ] && [ -s "$BATS_TEST_TMPDIR/meet/long2.pid" ] || fail "the two files did not start side by side"
    kill -INT -- "-$group"
    # Both tests, and make, end within 20 s.
    for pid in $(cat "$BATS_TEST_TMPDIR"/meet/long*.pid) "$group"; do
        for _ in $(seq 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        if kill -0 "$pid" 2>/dev/null; then
            local what
            what=$(ps -o args= -p "$pid" 2>/dev/null)
            kill -KILL -- "-$group"
            fail "process $pid ($what) still ran 20 s after the interrupt"
        fi
    done
    [ ! -e "$BATS_TEST_TMPDIR/meet/long1.done" ] && [ ! -e "$BATS_TEST_TMPDIR/meet/long2.done" ]
}

test_probe() { printf 'bats_load_library probe\n@test "the library of the packed copy is found" { probe_found; }\n'; }

@test "make test finds bats in .tools/bats, and its libraries there, where PATH has no bats" {
    fake_workbook probe
    # A copy of bats packed into the workbook: this bats, and the libraries,
    # with one that only that copy holds.
    local tools=$W/.tools/bats lib dir
    mkdir -p "$tools/bin" "$tools/lib/bats/probe"
    ln -s "$BATS_ROOT/bin/bats" "$tools/bin/bats"
    for lib in bats-support bats-assert; do
        IFS=: read -ra dirs <<<"$BATS_LIB_PATH"
        for dir in "${dirs[@]}"; do [ -f "$dir/$lib/load.bash" ] && { ln -s "$dir/$lib" "$tools/lib/bats/$lib"; break; }; done
    done
    echo 'probe_found() { true; }' >"$tools/lib/bats/probe/load.bash"
    run env -u BATS_LIB_PATH PATH="$(path_without bats parallel)" make -s -C "$W" test
    assert_success
    assert_line --regexp '^make test: 1 tests, 0 failed, 0 skipped, in [0-9]+ s$'
    assert_line --regexp '^ok 1 the library of the packed copy is found'
}

@test "a failed test, a file that stops before its end, or no test at all fails make test, and says so" {
    fake_workbook fails
    run env PATH="$(path_without parallel)" make -s -C "$W" test
    assert_failure
    assert_line --regexp '^make test: 2 tests, 1 failed, 0 skipped, in [0-9]+ s$'
    # The failed test with its file, last but the count.
    assert_equal "$(grep -B1 '^make test: [0-9]* tests' <<<"$output" | head -n 1 | sed 's/ in [0-9]*ms$//')" "failed: tests/fails.bats: not ok 2 fails fails"
    # A file whose bats dies before its last test: a failed test that says so.
    rm "$W/tests/fails.bats"
    test_stops >"$W/tests/stops.bats"
    run env PATH="$(path_without parallel)" make -s -C "$W" test
    assert_failure
    assert_line --regexp '^failed: tests/stops.bats: not ok [0-9]+ tests/stops.bats stopped after [0-9] of its 3 tests \(bats exited 1\)$'
    # No test at all is no result.
    rm "$W"/tests/*.bats
    test_empty >"$W/tests/empty.bats"
    run env PATH="$(path_without parallel)" make -s -C "$W" test
    assert_failure
    assert_line --regexp '^make test: 0 tests, 0 failed, 0 skipped, in [0-9]+ s$'
    assert_output --partial "no test ran"
}

# A slow test (slow_test, tests/helpers.bash) skips under make test and runs
# under make test-all, which says so in its count.
test_slow() { printf 'load %s/tests/helpers.bash\n@test "slow one" { slow_test "a minute"; echo ran >"$MEET/slow.ran"; }\n' "$WORKBOOK_DIR"; }

@test "make test leaves the slow tests to make test-all, and names each it skipped" {
    fake_workbook slow
    mkdir -p "$BATS_TEST_TMPDIR/meet"
    local path
    path=$(path_without parallel)
    run env PATH="$path" MEET="$BATS_TEST_TMPDIR/meet" make -s -C "$W" test
    assert_success
    assert_line --regexp '^skipped: tests/slow.bats: slow one in [0-9]+ms # skip slow \(a minute\): make test-all runs it$'
    assert_line --regexp '^make test: 1 tests, 0 failed, 1 skipped, in [0-9]+ s$'
    [ ! -e "$BATS_TEST_TMPDIR/meet/slow.ran" ] || fail "make test ran the slow test"
    run env PATH="$path" MEET="$BATS_TEST_TMPDIR/meet" "$W/tests/run" --all
    assert_success
    assert_line --regexp '^make test-all: 1 tests, 0 failed, 0 skipped, in [0-9]+ s$'
    [ -e "$BATS_TEST_TMPDIR/meet/slow.ran" ] || fail "tests/run --all did not run the slow test"
}

# suite_counts: "ALL SLOW" for tests/*.bats: every test, and those that run
# only under make test-all (slow_test in its body, or in its file's setup).
suite_counts() {
    awk '
    FNR == 1 { file_slow = 0; in_setup = 0; in_test = 0 }
    /^setup\(\) *\{/ { in_setup = 1; in_test = 0; next }
    /^@test / { all++; in_test = 1; in_setup = 0; test_slow[FILENAME, FNR] = 0; id = FILENAME SUBSEP FNR; tests[FILENAME] = tests[FILENAME] " " FNR; next }
    /^[a-z_]+\(\) *\{/ { in_test = 0; in_setup = 0 }
    /^\}/ && in_setup { in_setup = 0 }
    /^[ \t]+slow_test( |$)/ { if (in_setup) setup_slow[FILENAME] = 1; else if (in_test) test_slow[id] = 1 }
    END {
        for (f in tests) {
            n = split(substr(tests[f], 2), lines, " ")
            for (i = 1; i <= n; i++) if (setup_slow[f] || test_slow[f, lines[i]]) slow++
        }
        print all, slow + 0
    }' "$WORKBOOK_DIR"/tests/*.bats
}

@test "docs/testing.md counts the suite's tests, and those left to make test-all, as they are" {
    local page=$WORKBOOK_DIR/docs/testing.md
    [ -f "$page" ] || skip "no docs/testing.md in this copy (a handout)"
    local said
    said=$(tr '\n' ' ' <"$page" | sed -nE 's/.*The suite holds ([0-9]+) tests, of which ([0-9]+) run only under `make +test-all`.*/\1 \2/p')
    [ -n "$said" ] || fail "docs/testing.md does not say 'The suite holds N tests, of which M run only under \`make test-all\`'"
    assert_equal "$said" "$(suite_counts)"
}

@test "the README's figures for make test are the ones docs/testing.md says were measured" {
    local readme=$WORKBOOK_DIR/README.md page=$WORKBOOK_DIR/docs/testing.md said measured
    [ -f "$page" ] || skip "no docs/testing.md in this copy (a handout)"
    grep -q 'It is the quick suite' "$readme" || skip "this README gives no figures (a handout's)"
    said=$(tr '\n' ' ' <"$readme" | sed -nE 's/.*It is the quick suite \(([0-9]+) s on two cores without a GPU, ([0-9]+) s on a GPU.*/\1 \2/p')
    measured=$(tr '\n' ' ' <"$page" | sed -nE 's/.*Measured from a fresh clone, [0-9-]+: ([0-9]+) s on a 2-core .* ([0-9]+) s on a machine of .*/\1 \2/p')
    [ -n "$said" ] || fail "README.md does not say 'It is the quick suite (N s on two cores without a GPU, M s on a GPU ...'"
    [ -n "$measured" ] || fail "docs/testing.md does not say 'Measured from a fresh clone, DATE: N s on a 2-core ... M s on a machine of ...'"
    assert_equal "$said" "$measured"
}
