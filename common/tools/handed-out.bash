# handed-out.bash: which files of the workbook a learner of a step has, the
# one rule for a handout (common/tools/handout.sh), for what a confined build or
# run of the learner's file may see (grading/confine --step) and for what the
# grader's messages may quote (common/tools/quote-workbook.sh). Sourced; defines
# functions only.

# handed_out STEP PATH: true when a learner of STEP (its number, e.g. 05)
# has PATH, relative to the workbook's top.
#   solutions/, the mutants, the honest variants, the planted mistakes and
#   their recorded pages: answers;
#   the steps after STEP: each one's main.cu holds the previous step's answer;
#   common/tracks/reduction/block_sum.cuh: step 07's answer, which only step 08 needs;
#   common/micro/: it times steps 06's and 07's kernels, before step 08;
#   a step's built reference solution (PROGRAM_solution, build/PROGRAM_solution.*,
#   build/beyond*: its objects, module and planner);
#   results/, .git, .dev, .tools: no part of the workbook a learner gets.
handed_out() {
    local step=$1 path=${2#./} n
    case $path in
    solutions | solutions/* | tests/mutants | tests/mutants/* | tests/honest | tests/honest/*) return 1 ;;
    tests/explain | tests/explain/* | tests/fixtures/explain | tests/fixtures/explain/*) return 1 ;;
    results | results/* | .git | .git/* | .dev | .dev/* | .tools | .tools/*) return 1 ;;
    common/tracks/*/block_sum.cuh) [ "$step" \> 07 ] ;;
    common/micro | common/micro/*) [ "$step" \> 07 ] ;;
    # A built reference solution, and its objects: the answer, compiled.
    [0-9][0-9]-*/*_solution | [0-9][0-9]-*/build/*_solution.* | [0-9][0-9]-*/build/beyond*) return 1 ;;
    [0-9][0-9]-*) n=${path:0:2}; [ ! "$n" \> "$step" ] ;;
    *) return 0 ;;
    esac
}
