#!/usr/bin/env bats
# The READMEs' measured figures come from a run: the tables that
# `make readme-figures` writes between <!-- bench:... -->, <!-- micro:atomics -->
# or <!-- profile:NN --> and their closing markers. A speedup ("1.61x"), a
# time ("0.1635 ms") or a share ("53.8%") in the prose around them must be one
# of those figures (to the digits the prose gives), a threshold from
# grading/thresholds.conf, or stand in a paragraph that says where it comes
# from: a published figure (Harris's G80, an RTX 3050), or a one-off run with
# its command. So when the tables are measured again, prose that was copied
# by hand from an older run shows here.
# Needs no GPU.

load helpers

# Every number inside the generated blocks of every README, and every number
# of grading/thresholds.conf: the figures prose may quote.
measured_figures() {
    awk '
    /^<!-- (bench:[a-z0-9]+|micro:atomics|profile:[0-9]+) -->$/ { inside = 1; next }
    /^<!-- \/(bench|micro|profile) -->$/ { inside = 0; next }
    inside { while (match($0, /[0-9]+(\.[0-9]+)?/)) { print substr($0, RSTART, RLENGTH); $0 = substr($0, RSTART + RLENGTH) } }
    ' "$WORKBOOK_DIR"/README.md "$WORKBOOK_DIR"/[0-9][0-9]-*/README.md
    grep -v '^#' "$WORKBOOK_DIR/grading/thresholds.conf" | grep -oE '[0-9]+\.[0-9]+'
}

# The prose's figures that none of those match: "file:line: figure".
unmatched_figures() {
    local pool=$1 readme
    for readme in "$WORKBOOK_DIR"/README.md "$WORKBOOK_DIR"/[0-9][0-9]-*/README.md; do
        awk -v name="${readme#"$WORKBOOK_DIR"/}" '
        function check(    i, line, figure, value, decimals, found, p) {
            if (para !~ /published|one-off|Harris|G80|RTX 3050/)
                for (i = 1; i <= count; i++) {
                    line = text[i]
                    while (match(line, /[0-9]+\.[0-9]+(x| ms|%)/)) {
                        figure = substr(line, RSTART, RLENGTH); line = substr(line, RSTART + RLENGTH)
                        value = figure; sub(/(x| ms|%)$/, "", value)
                        decimals = length(value) - index(value, ".")
                        found = 0
                        for (p in pool) if (sprintf("%." decimals "f", p) == value) { found = 1; break }
                        if (!found) print name ":" at[i] ": " figure
                    }
                }
            para = ""; count = 0
        }
        FNR == NR { pool[$0] = 1; next }
        /^<!-- (bench:[a-z0-9]+|micro:atomics|profile:[0-9]+) -->$/ { check(); inside = 1; next }
        /^<!-- \/(bench|micro|profile) -->$/ { inside = 0; next }
        inside { next }
        /^[[:space:]]*$/ { check(); next }
        { para = para " " $0; text[++count] = $0; at[count] = FNR }
        END { check() }' "$pool" "$readme"
    done
}

@test "every speedup, time and share in the READMEs' prose is a figure of their measured tables, or marked published" {
    measured_figures | sort -u >"$BATS_TEST_TMPDIR/pool"
    [ "$(wc -l <"$BATS_TEST_TMPDIR/pool")" -ge 50 ] || fail "the READMEs' measured tables were not found"
    run unmatched_figures "$BATS_TEST_TMPDIR/pool"
    [ -z "$output" ] || fail "figures that no measured table holds (copied from an older run?):
$output"
}

@test "the figure check catches a figure that drifted from its table" {
    measured_figures | sort -u >"$BATS_TEST_TMPDIR/pool"
    # The same READMEs, but a table figure changed as a new run would change it.
    grep -vx '1.61' "$BATS_TEST_TMPDIR/pool" >"$BATS_TEST_TMPDIR/pool.new"
    run unmatched_figures "$BATS_TEST_TMPDIR/pool.new"
    assert_output --partial "04-reduction-interleaved/README.md"
    assert_output --partial "1.61x"
}

@test "make readme-figures copies the atomics table and a step's last profile into the READMEs that show them" {
    [ -f "$WORKBOOK_DIR/06-reduction-direct/README.md" ] || skip "no step 06 in this copy (a handout): no atomics table"
    local copy=$BATS_TEST_TMPDIR/workbook
    mkdir -p "$copy"
    cp -r "$WORKBOOK_DIR"/[0-9][0-9]-* "$WORKBOOK_DIR/README.md" "$WORKBOOK_DIR/common" "$copy/"
    printf 'atomics on a fake GPU\n  131072   67108864   9.9999\n' >"$BATS_TEST_TMPDIR/micro.txt"
    # make profile's output for step 04 lies beside the log.
    mkdir -p "$BATS_TEST_TMPDIR/results"
    cp "$WORKBOOK_DIR/tests/fixtures/bench-h100.log" "$BATS_TEST_TMPDIR/results/bench.log"
    printf 'Measured on a fake GPU\n  reduce_interleaved_masked   12,345\n' >"$BATS_TEST_TMPDIR/results/profile-04.txt"
    MICRO_ATOMICS=$BATS_TEST_TMPDIR/micro.txt run "$copy/common/readme-figures.sh" \
        "$BATS_TEST_TMPDIR/results/bench.log" "$copy"
    assert_success
    run sed -n '/^<!-- profile:04 -->$/,/^<!-- \/profile -->$/p' "$copy/04-reduction-interleaved/README.md"
    assert_line '  reduce_interleaved_masked   12,345'
    refute_line --partial '8,126,464'  # the old profile is gone
    run sed -n '/^<!-- micro:atomics -->$/,/^<!-- \/micro -->$/p' "$copy/06-reduction-direct/README.md"
    assert_line 'atomics on a fake GPU'
    assert_line '  131072   67108864   9.9999'
    refute_line --partial 'NVIDIA H100'  # the old table is gone
    # Outside the block, nothing changed.
    diff <(sed '/^<!-- micro:atomics -->$/,/^<!-- \/micro -->$/d; /^<!-- bench:06 -->$/,/^<!-- \/bench -->$/d' \
        "$WORKBOOK_DIR/06-reduction-direct/README.md") \
        <(sed '/^<!-- micro:atomics -->$/,/^<!-- \/micro -->$/d; /^<!-- bench:06 -->$/,/^<!-- \/bench -->$/d' \
        "$copy/06-reduction-direct/README.md")
}
