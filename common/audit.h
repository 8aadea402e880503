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

enum { AUDIT_NAME_LEN = 256 };

typedef enum { AUDIT_KERNEL, AUDIT_MEMSET, AUDIT_COPY } audit_kind;

// One thing the traced call put on the GPU.
typedef struct {
    audit_kind kind;
    char name[AUDIT_NAME_LEN];  // a kernel's demangled name; a copy's direction ("host to device")
    unsigned int grid[3], block[3];
    unsigned int stream;        // CUPTI's id of the stream it ran on
    bool host_copy;             // a copy from or to host memory
    unsigned long long start_ns, end_ns;
} audit_activity;

enum { AUDIT_MAX_ACTIVITIES = 64 };

// One traced call.
typedef struct {
    audit_activity items[AUDIT_MAX_ACTIVITIES];
    int count;                  // items recorded (the call's own; the harness's marker left out)
    int dropped;                // more than AUDIT_MAX_ACTIVITIES, or records CUPTI lost
    unsigned int timed_stream;  // the stream the harness times: the legacy default stream
    double span_ms;             // GPU time from the call's start to the end of its last activity
    double event_ms;            // the same call timed as the timed repetitions are, with events
    double audit_ms;            // host time the audit took, tracing set-up included
} audit_trace;

// False when another tool (ncu, compute-sanitizer) already traces the
// program: CUPTI serves one subscriber. Such runs go unaudited, say so on
// stderr once, and print no `audit` records -- which the grader's audit test,
// run with no such tool, requires one per size.
bool audit_available(void);

// Trace one call: audit_begin(), the call, audit_end(). Every device-side
// effect of the call lands in the trace, whichever stream it used. Exits 3
// (with a hint) if CUPTI cannot trace on this machine.
void audit_begin(void);
void audit_end(audit_trace *trace);

// What one call of the graded function was, for the step's facts.
typedef struct {
    const char *step;          // "08-cascaded"
    unsigned long long n;      // elements (reduction) or rows (matmul)
    block_shape block;
} audit_call;

// Check the trace against the step's facts (STEP_FACTS); print the trace
// (--machine: an `audit` record, a `launch` record per activity, a `finding`
// record per finding; otherwise an "AUDIT:" line per finding). Returns the
// number of findings.
int audit_report(const options *opt, const audit_call *call, const audit_trace *trace);
