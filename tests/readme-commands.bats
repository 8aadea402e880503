#!/usr/bin/env bats
# Every program command that a README (or a page of docs/) or a source comment shows a reader
# (./reduction_interleaved --check -n 1,33 ..., ../07-unrolled/unrolled_solution
# -b 128,256) must parse: run with no visible GPU, a program whose options
# parse exits 77 ("no usable GPU"), or 0 for --help; 2 means the command as
# printed is refused. Needs no GPU.

bats_require_minimum_version 1.5.0
load helpers
load readme-pages

setup_file() {
    [ -n "$(all_programs)" ] || skip "nothing built: run make first"
}

# Print "file<TAB>program<TAB>arguments" for every command quoted in the
# READMEs and the sources: ./PROGRAM or ../NN-step/PROGRAM, its arguments up
# to a backtick, a pipe, a ';' or '&&', or two spaces (where a source comment
# starts its explanation). What follows a " #" on a README line is a comment
# about the command, not a command.
quoted_commands() {
    local file pages
    mapfile -t pages < <(readme_pages "$WORKBOOK_DIR")
    for file in "${pages[@]/#/$WORKBOOK_DIR/}" "$WORKBOOK_DIR"/[0-9][0-9]-*/*.cu \
        "$WORKBOOK_DIR"/solutions/*/*.cu "$WORKBOOK_DIR"/solutions/*/*/*.{cu,h} \
        "$WORKBOOK_DIR"/common/{core,tracks/*}/*.cu "$WORKBOOK_DIR"/common/{core,tracks/*}/*.h; do
        [ -f "$file" ] || continue
        sed -E 's/[[:space:]]#.*//' "$file" |
            grep -oP '(?<![\w./])(\./|\.\./[0-9][0-9]-[a-z-]+/)[a-z][a-z_]*( [^`|;&]*)?' |
            sed -E 's/  .*//; s/[ .,)]*$//' |
            awk -v f="${file#"$WORKBOOK_DIR"/}" '{ p = $1; sub(/^.*\//, "", p); $1 = ""; sub(/^ /, ""); print f "\t" p "\t" $0 }'
    done
    # A step's README also quotes bare options for its own program: `-n 2^22`.
    for file in "$WORKBOOK_DIR"/[0-9][0-9]-*/README.md; do
        local program
        program=$(program_of "$(dirname "$file")")
        grep -oP '`-[-a-z]+ [^`]+`' "$file" | tr -d '`' |
            awk -v f="${file#"$WORKBOOK_DIR"/}" -v p="$program" '{ print f "\t" p "\t" $0 }'
    done
}

@test "every program command quoted in a README or a source comment parses" {
    local file program args dir binary count=0
    declare -A step_of
    for dir in "${STEP_DIRS[@]}"; do
        step_of[$(program_of "$dir")]=$dir
    done
    while IFS=$'\t' read -r file program args; do
        dir=${step_of[${program%_solution}]:-}
        [ -n "$dir" ] || fail "$file quotes ./$program, which no step builds"
        # The exercise parses options exactly as its solution does (one harness);
        # it stands in where solutions/ is not there.
        binary=$dir$program
        [ -x "$binary" ] || binary=$dir${program%_solution}
        # shellcheck disable=SC2086
        run --separate-stderr env CUDA_VISIBLE_DEVICES= "$binary" $args
        case $status in
        0 | 77) ;;
        2) [[ $binary != "$dir$program" && $stderr == *"in the reference solution only"* ]] ||
            fail "$file: ./$program $args: exit $status (expected 77, or 0 for --help): $stderr" ;;
        *) fail "$file: ./$program $args: exit $status (expected 77, or 0 for --help): $stderr" ;;
        esac
        count=$((count + 1))
    done < <(quoted_commands)
    # The search itself must find the commands: the top README's learner's loop alone quotes two.
    [ "$count" -ge 20 ] || fail "only $count quoted commands found: the search is broken"
}
