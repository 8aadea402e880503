#!/usr/bin/env bats
# The READMEs' measured figures come from a run: the tables that
# `make readme-figures` writes between <!-- bench:... -->, <!-- micro:atomics -->,
# <!-- profile:NN --> or <!-- sweep:NN --> and their closing markers. A speedup ("1.61x"), a
# time ("0.1635 ms") or a share ("53.8%") in the prose around them must be one
# of those figures (to the digits the prose gives), a threshold or figure
# from steps.conf, or stand in a paragraph that says where it comes
# from: a published figure (Harris's G80, an RTX 3050), or a one-off run with
# its command. So when the tables are measured again, prose that was copied
# by hand from an older run shows here.
# Needs no GPU.

load helpers
load readme-pages

# Every number inside the generated blocks of every README (the pages of
# docs/ included: readme_pages), and every decimal
# of steps.conf (its thresholds, and the figures they were set from): the
# figures prose may quote.
measured_figures() {
    awk '
    /^<!-- (bench:[a-z0-9]+|micro:atomics|float:sum|profile:[0-9]+|sweep:[0-9]+) -->$/ { inside = 1; next }
    /^<!-- \/(bench|micro|float|profile|sweep) -->$/ { inside = 0; next }
    inside { while (match($0, /[0-9]+(\.[0-9]+)?/)) { print substr($0, RSTART, RLENGTH); $0 = substr($0, RSTART + RLENGTH) } }
    ' $(readme_pages "$WORKBOOK_DIR" | sed "s|^|$WORKBOOK_DIR/|")
    grep -oE '[0-9]+\.[0-9]+' "$WORKBOOK_DIR/steps.conf"
}

# The prose's figures that none of those match: "file:line: figure". A figure
# matches one of the pool that has at least its decimals and rounds to it:
# "1.61x" is 1.6128 of a table, but "3.00x" is not the integer 3 of a table
# (a count, a size, a column of ints), nor is "1.50x" a table's 1.5.
# The READMEs: those named after POOL, else all of them.
unmatched_figures() {
    local pool=$1 readme readmes
    shift
    readmes=("$@")
    [ $# -gt 0 ] || mapfile -t readmes < <(readme_pages "$WORKBOOK_DIR" | sed "s|^|$WORKBOOK_DIR/|")
    for readme in "${readmes[@]}"; do
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
                        for (p in pool)
                            if (pool[p] >= decimals && sprintf("%." decimals "f", p) == value) { found = 1; break }
                        if (!found) print name ":" at[i] ": " figure
                    }
                }
            para = ""; count = 0
        }
        FNR == NR { pool[$0] = index($0, ".") ? length($0) - index($0, ".") : 0; next }
        /^<!-- (bench:[a-z0-9]+|micro:atomics|float:sum|profile:[0-9]+|sweep:[0-9]+) -->$/ { check(); inside = 1; next }
        /^<!-- \/(bench|micro|float|profile|sweep) -->$/ { inside = 0; next }
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

@test "the figure check catches made-up figures that a table holds with fewer decimals" {
    # Tables hold integers (a step number, a count, a size) and figures to one
    # decimal (sm_9.0): none of them backs a figure quoted to more decimals.
    printf '%s\n' 3 40 9.0 1.6128 >"$BATS_TEST_TMPDIR/pool"
    readme=$BATS_TEST_TMPDIR/README.md
    printf 'The new kernel is 3.00x faster than the old one, 9.00x faster than the first,\nat 40.0%% of the copy; the strided index gains 1.61x.\n' >"$readme"
    run unmatched_figures "$BATS_TEST_TMPDIR/pool" "$readme"
    assert_line --regexp ':1: 3\.00x$'
    assert_line --regexp ':1: 9\.00x$'
    assert_line --regexp ':2: 40\.0%$'
    assert_equal "${#lines[@]}" 3
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
    MICRO_ATOMICS=$BATS_TEST_TMPDIR/micro.txt run "$copy/common/tools/readme-figures.sh" \
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

# Profiler figures belong in the <!-- profile:NN --> blocks that
# `make readme-figures` writes from `make profile SOLUTIONS=1 EX=NN`, headed by
# that command and the GPU it ran on. Prints "file:line: why" for each
# README of the workbook at $1 that breaks this:
# - outside the generated blocks, a count of a million or more ("33,554,432"),
#   a table row with a count of a thousand or more ("| 2,612 |"), a line that
#   names an ncu metric (`l1tex__...`) beside a count or a decimal, or any
#   figure of 10,000 or more, or with two decimals, that a profile block holds
#   and no other measured block does (a bench table's 1.61x is that table's to
#   quote, though some profile reads 1.61 too): a copy that the next run leaves
#   behind. Inline code and the -n/-b lists of
#   commands are not figures; a paragraph that says its figures are published
#   or a one-off run may hold them.
# - a profile block whose first line does not say "Measured by
#   `make profile SOLUTIONS=1 EX=NN` on <GPU>, ..." for its own step (or, not
#   yet run, "Not measured yet: `make profile SOLUTIONS=1 EX=NN` ..."), that is
#   not closed, or whose paragraph before it does not say that
#   `make readme-figures` writes it from that command;
# - a step whose entry in steps.conf sets profile= without a profile block.
profile_figure_problems() {
    local root=$1 readme dir number
    local pool
    pool=$(mktemp)
    # The profile blocks' figures, digits only: "8,126,464" -> 8126464; less
    # those that another measured block (bench, atomics, float sums, sweep)
    # holds too.
    awk '
    /^<!-- profile:[0-9]+ -->$/ { inside = "profile"; next }
    /^<!-- (bench:[a-z0-9]+|micro:atomics|float:sum|sweep:[0-9]+) -->$/ { inside = "other"; next }
    /^<!-- \/(bench|micro|float|profile|sweep) -->$/ { inside = ""; next }
    inside != "" && !/^(Measured by|Not measured yet)/ {
        line = $0
        while (match(line, /[0-9][0-9,]*(\.[0-9]+)?/)) {
            figure = substr(line, RSTART, RLENGTH); line = substr(line, RSTART + RLENGTH)
            sub(/,$/, "", figure); gsub(/,/, "", figure)
            if (inside == "other") other[figure] = 1
            else if (figure ~ /\.[0-9][0-9]/ || (figure !~ /\./ && figure + 0 >= 10000)) profiled[figure] = 1
        }
    }
    END { for (figure in profiled) if (!(figure in other)) print figure }
    ' $(readme_pages "$root" | sed "s|^|$root/|") | sort -u >"$pool"
    for readme in $(readme_pages "$root" | sed "s|^|$root/|"); do
        dir=$(dirname "$readme"); number=$(basename "$dir"); number=${number%%-*}
        [[ $dir != "$root" && $dir != "$root/docs" ]] || number=
        awk -v name="${readme#"$root"/}" -v step="$number" '
        function figures(line, out,    n, figure) {  # the figures of a line, as printed
            gsub(/`[^`]*`/, " ", line)                # inline code: names, commands
            gsub(/-[nb] [0-9^,+x]+/, " ", line)        # size and block lists
            n = 0
            while (match(line, /[0-9][0-9,]*(\.[0-9]+)?/)) {
                figure = substr(line, RSTART, RLENGTH); line = substr(line, RSTART + RLENGTH)
                sub(/,$/, "", figure)
                out[++n] = figure
            }
            return n
        }
        # A power of two (131,072 blocks = 2^26 / 512) is a size the text
        # derives, not a measurement, even where a profile block holds it too.
        function power_of_two(d) { d += 0; while (d > 1 && d % 2 == 0) d /= 2; return d == 1 }
        function check(    i, n, k, f, digits, marked) {
            marked = para ~ /published|one-off|Harris|G80|RTX 3050/
            for (i = 1; !marked && i <= count; i++) {
                n = figures(text[i], f)
                for (k = 1; k <= n; k++) {
                    digits = f[k]; gsub(/,/, "", digits)
                    if (f[k] ~ /^[0-9][0-9]?[0-9]?(,[0-9][0-9][0-9])(,[0-9][0-9][0-9])+$/)
                        print name ":" at[i] ": a profiler-sized count outside a profile block: " f[k]
                    else if (text[i] ~ /^[ \t]*\|/ && f[k] ~ /^[0-9][0-9]?[0-9]?(,[0-9][0-9][0-9])+$/)
                        print name ":" at[i] ": a table of counts outside a profile block: " f[k]
                    else if (text[i] ~ /[a-z0-9]__[a-z]/ && f[k] ~ /[,.]/)
                        print name ":" at[i] ": an ncu metric with a figure outside a profile block: " f[k]
                    else if ((digits ~ /\.[0-9][0-9]/ || (digits !~ /\./ && digits + 0 >= 10000 && !power_of_two(digits))) && (digits in pool))
                        print name ":" at[i] ": a profile block'"'"'s figure copied outside it: " f[k]
                }
            }
            if (para != "") last = para
            para = ""; count = 0
        }
        FNR == NR { pool[$0] = index($0, ".") ? length($0) - index($0, ".") : 0; next }
        /^<!-- profile:[0-9]+ -->$/ {
            block = $0; gsub(/[^0-9]/, "", block)
            if (step != "" && block != step) print name ":" FNR ": a profile block of step " block " in step " step "'"'"'s README"
            command = "`make profile SOLUTIONS=1 EX=" block "`"
            before = (para != "" ? para : last); gsub(/`/, "", before); gsub(/[ \t]+/, " ", before)
            if (index(before, "make readme-figures") == 0 || index(before, substr(command, 2, length(command) - 2)) == 0)
                print name ":" FNR ": the paragraph before the block does not say that make readme-figures writes it from " command
            profiles[block] = 1
        }
        /^<!-- (bench:[a-z0-9]+|micro:atomics|float:sum|profile:[0-9]+|sweep:[0-9]+) -->$/ {
            check(); inside = $0; opened = FNR; header = ""; next
        }
        /^<!-- \/(bench|micro|float|profile|sweep) -->$/ {
            if (inside ~ /profile/ && header == "") print name ":" opened ": an empty profile block"
            inside = ""; next
        }
        inside != "" {
            if (inside ~ /profile/ && header == "" && $0 !~ /^(```)?[ \t]*$/) {
                header = $0
                if (index(header, "Measured by " command " on ") == 1) {
                    gpu = substr(header, length("Measured by " command " on ") + 1); sub(/,.*/, "", gpu)
                    if (gpu !~ /[A-Za-z0-9]/) print name ":" FNR ": the profile block does not name its GPU: " header
                } else if (header != "Not measured yet: " command " on a GPU, then `make readme-figures`, writes this block.")
                    print name ":" FNR ": the profile block is not headed \"Measured by " command " on <GPU>, ...\": " header
            }
            next
        }
        /^[[:space:]]*$/ { check(); next }
        { para = para " " $0; text[++count] = $0; at[count] = FNR }
        END {
            check()
            if (inside != "") print name ":" opened ": a block that is not closed"
            if (step != "" && wants_profile && !(step in profiles)) print name ": no <!-- profile:" step " --> block, though its entry in steps.conf sets profile="
        }' wants_profile="$(MANIFEST=$WORKBOOK_DIR/steps.conf step_field "$(basename "$dir")" profile 2>/dev/null | grep -q . && echo 1)" "$pool" "$readme"
    done
    rm -f "$pool"
}

@test "profiler figures stand only in profile blocks, each headed by make profile SOLUTIONS=1 EX=NN and its GPU" {
    run profile_figure_problems "$WORKBOOK_DIR"
    [ -z "$output" ] || fail "profiler figures out of place, or profile blocks without their command and GPU:
$output"
}

# A copy of the READMEs and step Makefiles, for a mutant to change.
readme_copy() {
    local copy=$BATS_TEST_TMPDIR/$1 dir
    mkdir -p "$copy"
    cp "$WORKBOOK_DIR/README.md" "$copy/"
    [ ! -d "$WORKBOOK_DIR/docs" ] || cp -r "$WORKBOOK_DIR/docs" "$copy/"
    for dir in "$WORKBOOK_DIR"/[0-9][0-9]-*/; do
        mkdir -p "$copy/$(basename "$dir")"
        cp "$dir/README.md" "$dir/Makefile" "$copy/$(basename "$dir")/"
    done
    echo "$copy"
}

@test "the profile check catches hand-copied profiler figures and profile blocks without their command or GPU" {
    local copy step04=04-reduction-interleaved/README.md
    [ -f "$WORKBOOK_DIR/$step04" ] || skip "no step 04 in this copy (a handout)"
    copy=$(readme_copy clean)
    run profile_figure_problems "$copy"
    assert_output ''
    # A count pasted into the prose, as a README would quote an old run.
    copy=$(readme_copy pasted)
    printf '\nThe strided kernel issued 4,456,448 instructions.\n' >>"$copy/$step04"
    run profile_figure_problems "$copy"
    assert_output --partial "$step04:"
    assert_output --partial 'a profiler-sized count outside a profile block: 4,456,448'
    # The same, smaller than a million, but one of the profile block's figures.
    copy=$(readme_copy quoted)
    sed -i '/^<!-- \/profile -->$/i\  reduce_interleaved_strided   123,457' "$copy/$step04"
    printf '\nThe strided kernel has 123,457 load conflicts.\n' >>"$copy/$step04"
    run profile_figure_problems "$copy"
    assert_output --partial "a profile block's figure copied outside it: 123,457"
    # A bench table's figure that a profile block happens to hold too is the
    # table's: the prose may quote it.
    copy=$(readme_copy shared)
    sed -i '/^<!-- \/profile -->$/i\  reduce_interleaved_strided   1.61' "$copy/$step04"
    grep -q '^| interleaved, strided index \[yours\] | .* | 1\.61x |' "$copy/$step04" ||
        fail "step 04's bench table no longer reads 1.61x: pick another of its figures here"
    run profile_figure_problems "$copy"
    assert_output ''
    # A hand-copied table of counts, and a metric quoted with its value.
    copy=$(readme_copy table)
    printf '\n| kernel | conflicts |\n|---|---:|\n| `reduce_sequential` | 1,615 |\n' >>"$copy/$step04"
    printf '\nHere `dram__throughput.avg.pct_of_peak_sustained_elapsed` reads 91.52.\n' >>"$copy/$step04"
    run profile_figure_problems "$copy"
    assert_output --partial 'a table of counts outside a profile block: 1,615'
    assert_output --partial 'an ncu metric with a figure outside a profile block: 91.52'
    # A profile output pasted as a code block outside the profile block.
    copy=$(readme_copy fenced)
    printf '\n```\nsmsp__inst_executed.sum\n  reduce_interleaved_masked   3,932,160\n```\n' >>"$copy/$step04"
    run profile_figure_problems "$copy"
    assert_output --partial 'outside a profile block: 3,932,160'
    # A profile block whose header lost the GPU (nvidia-smi found none), ...
    copy=$(readme_copy nogpu)
    sed -i '/^<!-- profile:04 -->$/,/^<!-- \/profile -->$/s/^\(Measured by `make profile SOLUTIONS=1 EX=04` on \)[^,]*,/\1,/' "$copy/$step04"
    run profile_figure_problems "$copy"
    assert_output --partial 'the profile block does not name its GPU'
    # ... that names no make profile command, or another step's, or the exercise's.
    local header
    for header in 'Measured on an H100:' \
        'Measured by `make profile SOLUTIONS=1 EX=05` on NVIDIA H100 80GB HBM3, 2026-11-22:' \
        'Measured by `make profile EX=04` on NVIDIA H100 80GB HBM3, 2026-11-22:'; do
        copy=$(readme_copy header)
        awk -v header="$header" '/^Measured by `make profile/ && !done { print header; done = 1; next } 1' \
            "$WORKBOOK_DIR/$step04" >"$copy/$step04"
        run profile_figure_problems "$copy"
        assert_output --partial "$step04:"
        assert_output --partial 'the profile block is not headed "Measured by `make profile SOLUTIONS=1 EX=04` on <GPU>'
    done
    # A step whose profile block is gone, and a block whose paragraph no longer
    # says where it comes from.
    copy=$(readme_copy gone)
    sed -i '/^<!-- profile:04 -->$/,/^<!-- \/profile -->$/d' "$copy/$step04"
    run profile_figure_problems "$copy"
    assert_output --partial 'no <!-- profile:04 --> block, though its entry in steps.conf sets profile='
    copy=$(readme_copy unsaid)
    sed -i 's/written here by `make readme-figures` from/written here from/' "$copy/$step04"
    run profile_figure_problems "$copy"
    assert_output --partial 'does not say that make readme-figures writes it from `make profile SOLUTIONS=1 EX=04`'
}

@test "make readme-figures fills every step's profile block, leaves one without its output as it was, and the result passes the profile check" {
    local copy=$BATS_TEST_TMPDIR/workbook readme number missing=
    mkdir -p "$copy" "$BATS_TEST_TMPDIR/results"
    cp -r "$WORKBOOK_DIR/README.md" "$WORKBOOK_DIR/common" "$copy/"
    for readme in "$WORKBOOK_DIR"/[0-9][0-9]-*/README.md; do
        mkdir -p "$copy/$(basename "$(dirname "$readme")")"
        cp "$readme" "$(dirname "$readme")/Makefile" "$copy/$(basename "$(dirname "$readme")")/"
    done
    cp "$WORKBOOK_DIR/tests/fixtures/bench-h100.log" "$BATS_TEST_TMPDIR/results/bench.log"
    # Every step's make profile output but the last one's, headed as the
    # Makefile heads it.
    for readme in "$copy"/[0-9][0-9]-*/README.md; do
        number=$(basename "$(dirname "$readme")"); number=${number%%-*}
        grep -q "^<!-- profile:$number -->$" "$readme" || continue
        [ -z "$missing" ] || printf 'Measured by `make profile SOLUTIONS=1 EX=%s` on Fake GPU %s, 2026-01-01:\n== ncu --metrics m ./p\n\nm\n  kernel_%s   1,234,567\n' \
            "$missing" "$missing" "$missing" >"$BATS_TEST_TMPDIR/results/profile-$missing.txt"
        missing=$number
    done
    [ -n "$missing" ] || fail "no README has a profile block"
    run "$copy/common/tools/readme-figures.sh" "$BATS_TEST_TMPDIR/results/bench.log" "$copy"
    assert_success
    assert_output --partial "no $BATS_TEST_TMPDIR/results/profile-$missing.txt: step $missing's profile stays as it is"
    for readme in "$copy"/[0-9][0-9]-*/README.md; do
        number=$(basename "$(dirname "$readme")"); number=${number%%-*}
        grep -q "^<!-- profile:$number -->$" "$readme" || continue
        run sed -n "/^<!-- profile:$number -->$/,/^<!-- \/profile -->$/p" "$readme"
        if [ "$number" = "$missing" ]; then
            # Left exactly as it was.
            diff <(echo "$output") <(sed -n "/^<!-- profile:$number -->$/,/^<!-- \/profile -->$/p" \
                "$WORKBOOK_DIR/${readme#"$copy"/}")
        else
            assert_line "Measured by \`make profile SOLUTIONS=1 EX=$number\` on Fake GPU $number, 2026-01-01:"
            assert_line "  kernel_$number   1,234,567"
            [ "$(grep -c '^Measured by' <<<"$output")" -eq 1 ] || fail "$readme: the old block was not replaced"
        fi
    done
    run profile_figure_problems "$copy"
    assert_output ''
}

@test "make readme-figures writes make profile's stall reasons between the README's stall question and its reading, and again changes nothing" {
    local copy=$BATS_TEST_TMPDIR/workbook results=$BATS_TEST_TMPDIR/results step number readme table shown=0
    mkdir -p "$copy" "$results"
    cp -r "$WORKBOOK_DIR/README.md" "$WORKBOOK_DIR/common" "$copy/"
    for readme in "$WORKBOOK_DIR"/[0-9][0-9]-*/README.md; do
        mkdir -p "$copy/$(basename "$(dirname "$readme")")"
        cp "$readme" "$(dirname "$readme")/Makefile" "$copy/$(basename "$(dirname "$readme")")/"
    done
    cp "$WORKBOOK_DIR/tests/fixtures/bench-h100.log" "$results/bench.log"
    # Each step that shows stall reasons: its make profile output, as
    # profile.sh prints it for the metrics of its steps.conf entry, headed
    # as the Makefile heads it.
    fake_ncu_for_metrics "$BATS_TEST_TMPDIR/bin"
    for step in $(manifest_steps); do
        [[ $(step_field "$step" profile) == *smsp__average_warps_issue_stalled_* ]] || continue
        [ -f "$copy/$step/README.md" ] || continue
        number=${step%%-*}
        table=$(CUDA_BIN="$BATS_TEST_TMPDIR/bin/" "$WORKBOOK_DIR/common/tools/profile.sh" "$(step_field "$step" profile)" /bin/true) ||
            fail "$step: profile.sh failed: $table"
        printf 'Measured by `make profile SOLUTIONS=1 EX=%s` on Fake GPU, 2026-01-01:\n%s\n' "$number" "$table" >"$results/profile-$number.txt"
    done
    run "$copy/common/tools/readme-figures.sh" "$results/bench.log" "$copy"
    assert_success
    for step in $(manifest_steps); do
        [ -f "$results/profile-${step%%-*}.txt" ] || continue
        number=${step%%-*} readme=$copy/$step/README.md
        shown=$((shown + 1))
        # The block holds the stall reasons in words, and the kernels' figures.
        run sed -n "/^<!-- profile:$number -->$/,/^<!-- \/profile -->$/p" "$readme"
        assert_line "Measured by \`make profile SOLUTIONS=1 EX=$number\` on Fake GPU, 2026-01-01:"
        assert_line 'smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio'
        assert_line --regexp '^  \(stall reason "long scoreboard", cycles per issued instruction: waiting for the data of a global'
        assert_line --partial '  (cycles from one instruction of a warp to its next'
        # The question stands before the block, and its reading after it.
        awk -v number="$number" '
            /^\*\*Predict, then measure: the stall reasons\.\*\*/ { asked = NR }
            $0 == "<!-- profile:" number " -->" { block = NR }
            /^\*\*The stall reasons, read\.\*\*/ { read = NR }
            END { exit !(asked && block && read && asked < block && block < read) }' "$readme" ||
            fail "$step: its README does not ask about the stall reasons before the profile block and read them after it"
    done
    [ "$shown" -ge 1 ] || fail "no step shows stall reasons"
    # Run again on the same outputs: every README stays as it is.
    cp -r "$copy" "$BATS_TEST_TMPDIR/before"
    run "$copy/common/tools/readme-figures.sh" "$results/bench.log" "$copy"
    assert_success
    diff -r "$BATS_TEST_TMPDIR/before" "$copy"
    run profile_figure_problems "$copy"
    assert_output ''
}
