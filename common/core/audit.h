// audit.h: the launch audit. What does the graded function put on the GPU?
//
// The timings only say how long the default stream took between two events;
// the checks only say that the output was right. Neither sees a library
// kernel doing the work or a launch shaped unlike the step's lesson. The
// audit reads the plans the learner's host code made (plan.h) -- every
// launch, memset and attribute, with its grid, block and stream -- at every
// size and block of the run, before any of them runs; and since the program
// replays exactly those plans for every check and timed run, what it
// certifies is what was checked and timed.
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
//   template=yes|no|or-block  yes: the kernel is a template on the block
//                      size, and the instance launched must be the one for
//                      the block asked for, kernel<256> (a number of its
//                      template arguments, at any depth); or-block: that
//                      instance, or a launch with the block asked for (a
//                      kernel that sizes its tile from blockDim); no: any
//                      (the default)
//   fills_gpu=yes|no   the grid holds no more blocks than the GPU runs at once,
//                      and at large n each thread sums several elements (default no)
//   memsets=N|MIN-MAX  how many memsets the call may issue (default 0-1; a
//                      one-pass reduction zeroes its total with one)
//
// kernel, function and launches are required; an empty STEP_AUDIT asks for
// no structure at all, only what every planned function must respect: its
// own kernels only, on the default stream, on the buffers it was given.
#pragma once

#include "harness.h"

#include "plan.h"

// The facts to check each plan against: STEP_AUDIT's text; and the track's
// size_symbol, for messages. Exits 2, naming the field, if it is malformed.
// Touches no CUDA API.
void audit_set_facts(const char *facts, const char *size_symbol);

// Check one plan of a learner's function (`label` names it), whose call is
// handed buffers of region_bytes: every plan for what every step must
// respect, the graded function's (`graded`) against the step's facts too,
// printed (--machine: an `audit` record and a `launch` record per action).
// Prints a `finding` record (or an "AUDIT:" line) per finding and returns how
// many; adds to *unsafe those that make the plan unfit to run (an address
// outside its buffers, a kernel not of the learner's file).
int audit_plan(const options *opt, const char *step, const plan *p, const char *label, const size_t *region_bytes,
               int region_count, bool graded, int *unsafe);

// Elements each thread of the graded kernel loads when the step's launches
// are levels (launches=levels per_thread=N): each block of the first level
// then sums N * block elements of the input; 0 for any other shape. After
// audit_set_facts.
int audit_levels_per_thread(void);

// What every module must respect: no kernel of the learner's reads a clock or
// the SM it runs on (%clock, %clock64, %globaltimer, %smid: kernels.awk).
// Prints a finding and returns 1 if one does, else 0.
int audit_module(const options *opt, const char *step);
