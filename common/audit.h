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
// and GPU start and end. It runs outside the timed repetitions, after them.
//
// What each step must launch is in one table, STEP_FACTS in audit.cu.
#pragma once

#include "harness.h"

// False when another tool (ncu, compute-sanitizer) already traces the
// program: CUPTI serves one subscriber. Such runs go unaudited, say so on
// stderr once, and print no `audit` records -- which the grader's audit test,
// run with no such tool, requires one per size.
bool audit_available(void);

// Trace one call: audit_begin(), the call, audit_end(). Every device-side
// effect of the call lands in the trace, whichever stream it used. Exits 3
// (with a hint) if CUPTI cannot trace on this machine.
void audit_begin(void);
void audit_end(void);

// What the traced call was, for the step's facts.
typedef struct {
    const char *step;          // "08-cascaded"
    unsigned long long n;      // elements (reduction) or rows (matmul)
    block_shape block;
} audit_call;

// Check the last trace against the step's facts (STEP_FACTS); print it (--machine: an `audit`
// record, a `launch` record per activity, a `finding` record per finding;
// otherwise an "AUDIT:" line per finding). Returns the number of findings.
int audit_report(const options *opt, const audit_call *call);
