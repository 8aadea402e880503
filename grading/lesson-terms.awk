# lesson-terms.awk: term_family(NAME), the family of instructions (the
# feeds records of common/tools/kernels.awk) without which an ncu counter of
# a lesson's ?term stays 0, read from its name: "atomic" for the atomics'
# and reductions' counters (op_atom, op_red, global_atom, shared_atom ...),
# "cp.async" for ldgsts, "cp.async.bulk" for the TMA's, "ldmatrix" for
# ldsm, "stmatrix" for stsm. "" for any other: a counter no family is known
# to feed, which the lesson always keeps (grading/lib.bash,
# lesson_metric_here).
function term_family(name) {
    if (name ~ /_(atom|red)(\.|_|$)/) return "atomic"
    if (name ~ /ldgsts/) return "cp.async"
    if (name ~ /tma/) return "cp.async.bulk"
    if (name ~ /ldsm/) return "ldmatrix"
    if (name ~ /stsm/) return "stmatrix"
    return ""
}
