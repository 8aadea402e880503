// audit.h: the launch audit. What did one call of the graded function really
// put on the GPU?
//
// The timings only say how long the default stream took between two events;
// the checks only say that the output was right. Neither sees a library
// kernel doing the work, a copy through the host, work on another stream
// that the events never wait for, or a launch shaped unlike the step's
// lesson. The audit traces one call with CUPTI's activity API (the
// toolkit's own tracing library; it needs no profiling permissions): every
// kernel, memset and copy, on any stream, with its name, grid, block, stream
// and GPU start and end. The traced call is one of the graded kernel's
// checks, drawn at random (run_step): outside the timed runs, but possibly
// between two of them.
//
// What the graded function must launch comes from the build, a step at a
// time: STEP_AUDIT, compiled into the step's main.cu (harness.h), a string of
// space-separated key=value facts:
//
//   kernel=NAME        the kernel it must launch (its name without template arguments)
//   function=NAME      the graded host function, as the learner knows it (for messages)
//   launches=SHAPE     one-launch: one launch of the kernel (the matmul steps);
//                      levels: one launch per level of a multi-pass reduction,
//                        as reduce_in_passes makes them, each thread loading
//                        per_thread elements: n -> ceil(n / (per_thread * block))
//                        -> ... -> 1;
//                      one-pass: exactly one kernel launch; with per_thread, a
//                        grid of ceil(n / (per_thread * block)) blocks
//   per_thread=N       elements each thread loads (default 0: any; levels needs one)
//   template=yes|no    the kernel is a template on the block size, and the
//                      instance launched must be the one for the block asked
//                      for, kernel<256> (default no)
//   fills_gpu=yes|no   the grid holds no more blocks than the GPU runs at once,
//                      and at large n each thread sums several elements (default no)
//   memsets=N|MIN-MAX  how many memsets the call may issue (default 0-1; a
//                      one-pass reduction zeroes its total with one)
//
// kernel, function and launches are required; an empty STEP_AUDIT asks for
// no structure at all, only what every step must respect (no copies, nothing
// on another stream, no GPU work the timing events do not see).
#pragma once

#include "harness.h"

// False when another tool (ncu, compute-sanitizer) already traces the
// program: CUPTI serves one subscriber. Such runs go unaudited, say so on
// stderr once, and print no `audit` records -- which the grader's audit test,
// run with no such tool, requires one per size.
bool audit_available(void);

// The facts to check each traced call against: STEP_AUDIT's text. Exits 2,
// naming the field, if it is malformed. Touches no CUDA API.
void audit_set_facts(const char *facts);

// Trace one call: audit_begin(), the call, audit_end(). Every device-side
// effect of the call lands in the trace, whichever stream it used. Exits 3
// (with a hint) if CUPTI cannot trace on this machine.
void audit_begin(void);
void audit_end(void);

// What the traced call was, for the facts.
typedef struct {
    const char *step;          // "08-cascaded"
    unsigned long long n;      // elements (reduction) or rows (matmul)
    block_shape block;
    const char *when;          // which call was traced: "check-guarded", "check-exact", "round-17"
} audit_call;

// Check the last trace against the facts; print it (--machine: an `audit`
// record, a `launch` record per activity, a `finding` record per finding;
// otherwise an "AUDIT:" line per finding). Returns the number of findings.
int audit_report(const options *opt, const audit_call *call);
