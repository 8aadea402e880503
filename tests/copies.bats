#!/usr/bin/env bats
# The deliberate copies stay copies. Each step starts from the previous step's
# answer, so its main.cu holds a copy of that step's reference kernel, and
# common/tracks/reduction/block_sum.cuh holds step 07's tree for step 08. A fix to one must
# reach the other: this compares each copy with its original, comments and
# layout aside, and allows only the differences listed here. Needs no GPU.

load helpers

# One copy per row: the copy and the original, each "FILE FUNCTION [FROM..TO]"
# -- the definition of FUNCTION in FILE, or only the part of it from the line
# holding FROM to the line holding TO -- then the differences the copy is
# meant to have, as "ORIGINAL=>COPY" replacements in the original's text
# (- for none), separated by |.
COPIES='
02-register-temp/main.cu matmul_naive | solutions/01-naive-matmul/naive_matmul.cu matmul_naive | -
03-tiled-matmul/main.cu matmul_register | solutions/02-register-temp/register_temp.cu matmul_register | -
05-reduction-sequential/main.cu reduce_interleaved_strided | solutions/04-reduction-interleaved/reduction_interleaved.cu reduce_interleaved_strided | -
06-reduction-direct/main.cu reduce_sequential | solutions/05-reduction-sequential/reduction_sequential.cu reduce_sequential | -
common/tracks/reduction/block_sum.cuh warp_sum | solutions/07-unrolled/unrolled.cu warp_sum | FULL_WARP=>0xffffffffu
common/tracks/reduction/block_sum.cuh block_sum if (BLOCK >= 1024)..v = WARP_SUM::of(v); | solutions/07-unrolled/unrolled.cu reduce_unrolled if (BLOCK >= 1024)..v = warp_sum(v); | warp_sum(v)=>WARP_SUM::of(v)
08-cascaded/main.cu reduce_unrolled __shared__..v += in[i + BLOCK]; | solutions/07-unrolled/unrolled.cu reduce_unrolled __shared__..v += in[i + BLOCK]; | -
'

# span FILE FUNCTION [FROM..TO]: the normalized text -- no comments, one space
# for any run of blank space -- of that definition or part of it.
span() {
    local file=$1 function=$2 range=${3:-} from="" to=""
    if [ -n "$range" ]; then from=${range%%..*}; to=${range#*..}; fi
    awk -v function_name="$function" -v from="$from" -v to="$to" '
    { sub(/\/\/.*/, "") }
    !started && match($0, "(^|[^A-Za-z0-9_])" function_name "(<[^>]*>)?\\(") && ($0 ~ /__(global|device)__/ || previous ~ /__(global|device)__/) { started = 1 }
    { previous = $0 }
    !started { next }
    {
        depth += gsub(/{/, "{") - gsub(/}/, "}")
        if (from == "" || (!taking && index($0, from))) taking = 1
        if (taking) text = text " " $0
        if (taking && to != "" && index($0, to)) exit
        if (depth == 0 && index(text, "{")) exit
    }
    END { gsub(/[ \t]+/, " ", text); sub(/^ /, "", text); print text }' "$WORKBOOK_DIR/$file"
}

# copy_problems: one paragraph per copy that no longer matches; status 1 if any.
copy_problems() {
    local row copy original changes a b pair status=0
    while IFS= read -r row; do
        [ -n "$row" ] || continue
        IFS='|' read -r copy original changes <<<"$row"
        read -r cfile cfunction crange <<<"$copy"
        read -r ofile ofunction orange <<<"$original"
        # The tests run only where solutions/ is: there every file is, and one
        # that is not was renamed, its copy no longer checked.
        [ -f "$WORKBOOK_DIR/$cfile" ] || { echo "no $cfile: rename it in tests/copies.bats"; status=1; continue; }
        [ -f "$WORKBOOK_DIR/$ofile" ] || { echo "no $ofile: rename it in tests/copies.bats"; status=1; continue; }
        a=$(span "$cfile" "$cfunction" "$crange")
        b=$(span "$ofile" "$ofunction" "$orange")
        [ -n "$a" ] || { echo "no $cfunction ${crange:+($crange) }in $cfile"; status=1; continue; }
        [ -n "$b" ] || { echo "no $ofunction ${orange:+($orange) }in $ofile"; status=1; continue; }
        changes=$(sed 's/^ *//; s/ *$//' <<<"$changes")
        if [ "$changes" != - ]; then
            while IFS= read -r pair; do
                b=${b//"${pair%%=>*}"/"${pair#*=>}"}
            done < <(tr ';' '\n' <<<"$changes")
        fi
        if [ "$a" != "$b" ]; then
            printf '%s in %s is no longer a copy of %s in %s:\n  copy:     %s\n  original: %s\n' \
                "$cfunction" "$cfile" "$ofunction" "$ofile" "$a" "$b"
            status=1
        fi
    done <<<"$COPIES"
    return $status
}

@test "each deliberate copy matches its original, but for the differences listed" {
    [ -d "$WORKBOOK_DIR/solutions" ] || skip "no solutions/ in this copy"
    run copy_problems
    [ "$status" -eq 0 ] || fail "$(printf '%s\nFix the one that is behind, or list the difference in tests/copies.bats.' "$output")"
}

@test "the copy check sees a copy drift" {
    [ -d "$WORKBOOK_DIR/solutions" ] || skip "no solutions/ in this copy"
    local copy=$BATS_TEST_TMPDIR/wb
    mkdir -p "$copy"
    cp -r "$WORKBOOK_DIR"/[0-9][0-9]-* "$WORKBOOK_DIR/common" "$WORKBOOK_DIR/solutions" "$copy/"
    # A fix made to step 05's solution only, and one to block_sum.cuh only.
    sed -i 's/partial\[tid\] += partial\[tid + s\];/partial[tid] = partial[tid] + partial[tid + s];/' \
        "$copy/solutions/05-reduction-sequential/reduction_sequential.cu"
    sed -i 's/if (tid < 256)/if (tid < 256u)/' "$copy/common/tracks/reduction/block_sum.cuh"
    WORKBOOK_DIR=$copy run copy_problems
    assert_failure
    assert_output --partial "reduce_sequential in 06-reduction-direct/main.cu is no longer a copy of reduce_sequential in solutions/05-reduction-sequential/reduction_sequential.cu"
    assert_output --partial "block_sum in common/tracks/reduction/block_sum.cuh is no longer a copy"
    refute_output --partial "matmul_naive"
    # A file gone (renamed) is a problem, not a copy left unchecked.
    copy=$BATS_TEST_TMPDIR/renamed
    mkdir -p "$copy"
    cp -r "$WORKBOOK_DIR"/[0-9][0-9]-* "$WORKBOOK_DIR/common" "$WORKBOOK_DIR/solutions" "$copy/"
    mv "$copy/08-cascaded/main.cu" "$copy/08-cascaded/harness.cu"
    WORKBOOK_DIR=$copy run copy_problems
    assert_failure
    assert_output "no 08-cascaded/main.cu: rename it in tests/copies.bats"
}
