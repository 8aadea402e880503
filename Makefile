# The workbook's top-level Makefile. `make help` lists what it does.
#
# Variables:
#   EX=04            the step(s) to act on, by number: EX=04, EX=4 or EX="04 05"
#   SOLUTIONS=1      grade, sanitize, profile or explain the reference
#                    solutions instead of the exercises (SOLUTION=1 works too);
#                    in a copy without them (a handout) it says so in one line
#                    and make exits 1, having run nothing (a failure is 2)
#   JUNIT=FILE       `make grade` also writes JUnit XML there (GRADESCOPE=FILE,
#                    CLASSROOM=FILE: Gradescope's and GitHub Classroom's results)
#   JOBS=N           `make grade` grades up to N steps at once (grading/grade --jobs)
#   SM=90            build for these GPU architectures (default: this machine's GPU)
#   CUDA_PATH, NVCC  which CUDA toolkit to use
#   V=1              show every build command in full (by default: a line per
#                    step, "[3/8] 03-tiled-matmul", and one per file it builds)
#
# make sanitize, make profile and make explain need a GPU: they ask for one
# before they build anything, and where there is none they say so on one
# line ("make profile: skipped: no usable CUDA device (...)") and exit 0, a
# skip and not a failure. Their failures exit 2, make's status for any
# command that failed, under make's own "***" lines; the scripts they run
# (common/tools/sanitize.sh, profile.sh, explain.sh) exit 77 for a skip.

SHELL := /bin/bash
# make doctor and make help work where no CUDA toolkit does.
ifneq ($(if $(MAKECMDGOALS),$(filter-out doctor help,$(MAKECMDGOALS)),all),)
  include common/cuda.mk
endif

# STEP= names make handout's last step, and nothing else: on another goal
# it is a slip for EX=, which would otherwise go unnoticed.
ifeq ($(origin STEP),command line)
  ifneq ($(filter-out handout,$(or $(MAKECMDGOALS),all)),)
    $(error STEP= is make handout's option (the last step of the copy); to pick steps, use EX=, e.g. make grade EX=04)
  endif
endif

STEPS := $(sort $(wildcard [0-9][0-9]-*))
SOLVED := $(notdir $(wildcard $(addprefix solutions/,$(STEPS))))
# The step numbers EX names, two digits each (EX=4 is step 04), and their folders
# (all of them without EX).
EX_NUMBERS := $(foreach e,$(subst $(comma), ,$(EX)),$(call step_number_of,$(e)))
PICKED := $(if $(EX),$(foreach e,$(EX_NUMBERS),$(filter $(e)-%,$(STEPS))),$(STEPS))

.PHONY: all help test test-all test-mutants test-toolkits doctor grade bench bench-grading bench-sweep calibrate readme-figures sanitize profile explain clean harness micro-atomics float-sum handout $(STEPS)

all: $(STEPS)

# The shared harness first, once for all steps (common/build); then each step
# builds its exercise and, if there is one, its solution, after a line that
# says which step of how many ("[3/8] 03-tiled-matmul"; none under make -s).
harness:
	$(Q)$(MAKE) -C $(firstword $(STEPS)) harness $(NO_DIR)

STEP_NUMBERS := $(join $(addsuffix /,$(shell seq $(words $(STEPS)))),$(STEPS))
$(STEPS): harness
	$(if $(SILENT),,@echo "[$(firstword $(subst /, ,$(filter %/$@,$(STEP_NUMBERS))))/$(words $(STEPS))] $@")
	$(Q)$(MAKE) -C $@ all $(if $(filter $@,$(SOLVED)),solution) $(NO_DIR)

# A step by its number: `make 04` (or `make 4`) builds step 04, as `make
# 04-reduction-interleaved` does.
$(foreach s,$(STEPS),$(eval $(firstword $(subst -, ,$(s))) $(patsubst 0%,%,$(firstword $(subst -, ,$(s)))): $(s)))
.PHONY: $(foreach s,$(STEPS),$(firstword $(subst -, ,$(s))) $(patsubst 0%,%,$(firstword $(subst -, ,$(s)))))
# In a handout (no solutions/, no tests/mutants/), the commands that need
# them are not listed. Its examples name steps the copy holds: 04 and 05
# where it has them, else its last step.
help_ex = $(or $(filter $(1),$(STEP_NUMBER_LIST)),$(lastword $(STEP_NUMBER_LIST)))
STEP_NUMBER_LIST = $(foreach s,$(STEPS),$(firstword $(subst -, ,$(s))))

# Goals that name no step, which make would answer in its own words: a step
# number this copy has not (`make 09`), and solutions/, a folder that make
# would call up to date.
DIGITS := 0 1 2 3 4 5 6 7 8 9
NUMBER_GOALS := $(filter $(DIGITS) $(foreach a,$(DIGITS),$(addprefix $(a),$(DIGITS))),$(MAKECMDGOALS))
MISSING_STEP := $(firstword $(filter-out $(STEP_NUMBER_LIST) $(patsubst 0%,%,$(STEP_NUMBER_LIST)),$(NUMBER_GOALS)))
ifneq ($(MISSING_STEP),)
  $(error no step $(MISSING_STEP) here: the steps are $(STEP_NUMBER_LIST) (make 04 builds step 04))
endif
ifneq ($(filter solutions solutions/,$(MAKECMDGOALS)),)
  $(error $(if $(SOLVED),solutions/ is a folder$(comma) not a goal: make builds every solution with its exercise$(comma) and make grade SOLUTIONS=1 grades them,this copy has no solutions/ (a handout leaves them out)))
endif
help:
	@echo "make                 build every exercise$(if $(SOLVED), and every solution)"
	@echo "make $(call help_ex,04)              build one step (make $(call help_ex,04)-..., its folder's name, too)"
	@echo "make test            the workbook's own tests, the quick ones (needs bats$(if $(SOLVED),; a GPU for the graded part))"
	@echo "make test-all        every test (the slow ones too)$(if $(wildcard tests/mutants/run), and the checks that plant mistakes), as CI runs it"
	@echo "make grade [EX=$(call help_ex,04)]   grade your exercises ($(if $(SOLVED),SOLUTIONS=1: the reference solutions; )JUNIT=file)"
	@echo "                     (in a step's folder, make grade grades that step; make help there lists the rest)"
	@[ -z "$(SOLVED)" ] || echo "make bench           time every reference solution: the progression table, CSV and plot"
	@[ -z "$(SOLVED)" ] || echo "make bench-sweep     the kernels past the lesson against cuBLAS from N = 256 to 8192: CSV, table, plot"
	@[ -z "$(SOLVED)" ] || echo "make bench-grading   how long grading takes here: the solutions graded, each step's seconds by test"
	@[ -z "$(SOLVED)" ] || echo "make calibrate       measure this GPU and write its own speed thresholds"
	@[ -z "$(SOLVED)" ] || echo "make readme-figures  write the figures of the last make bench into the steps' READMEs"
	@echo "make sanitize EX=$(call help_ex,04)  compute-sanitizer memcheck, racecheck, synccheck and initcheck on one step"
	@echo "make profile EX=$(call help_ex,05)   the ncu metrics that show one step's lesson (kept in results/profile-$(call help_ex,05).txt)"
	@echo "make explain EX=$(call help_ex,05)   the lines of your file that the profiler blames, each with its figure and what it means"
	@[ ! -e tests/mutants/run ] || echo "make test-mutants    (GPU) check that grading catches the planted mistakes of tests/mutants,"
	@[ ! -e tests/mutants/run ] || echo "                     scores the honest variants of tests/honest, and make explain names tests/explain's lines"
	@[ ! -e common/micro/atomics.cu ] || echo "make micro-atomics   (GPU) what one atomicAdd per block costs: results/micro-atomics.txt"
	@[ ! -e $(FLOAT_SUM_SRC) ] || echo "make float-sum       (GPU) step 08 on floats: run-to-run sums, error, last-block finish: results/float-sum.txt"
	@echo "make handout STEP=$(call help_ex,05) DEST=dir   a copy for a class: the steps up to $(call help_ex,05), no solutions"
	@echo "make test-toolkits   build and test with CUDA 11.8, 12.4 and this nvcc, each unpacked into a cache"
	@echo "make doctor          what this machine has of what the workbook needs, each with its fix"
	@echo "make clean           remove every build output"

# The build uses every core, unless make was already given -j; then
# tests/run runs the tests: side by side those that time nothing, then alone
# those that grade with timings. Their TAP goes to results/tests.tap; the
# last lines say what was skipped, what failed (each with its file), and how
# long it all took.
# make test is the quick one: without a GPU it builds (and its tests build
# their copies) for one architecture, the oldest this nvcc builds, and the
# tests that take minutes skip, saying so. make test-all builds for every
# architecture (a build that warns fails it) and runs every test; then the
# guards' breaks (tests/guards/run), the planted mistakes on a GPU
# (test-mutants), the planners of its build asked for a call's launches
# (tests/toolkits/plan-probe) and the older toolkits (test-toolkits less
# "system", where apt-get, dpkg-deb and Debian's archive keyring are;
# CI_TOOLKITS=0 leaves them out). .ci/run runs make test-all.
CORES := $(shell nproc 2>/dev/null || echo 1)
BUILD_JOBS = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(CORES))
TEST_SM := $(if $(strip $(SM)),$(SM),$(firstword $(ARCHS)))
test:
	@start=$$(date +%s); export SM="$(TEST_SM)"; \
	$(MAKE) $(BUILD_JOBS) all || exit; \
	tests/run --since $$start

# make test-all's toolkits: every one of tests/toolkits/run but "system", the
# nvcc make uses, whose row would build and test again what make test-all has
# just built and tested with it: the build for every architecture without a
# warning (checked here), the host-side tests (options, toolkit and doctor.bats,
# run by tests/run) and the integrity test of every exercise and solution
# (tests/integrity-clean.bats). Its planner probe runs on this build here.
# (tests/toolkit.bats checks this list against tests/toolkits/run's.)
TEST_ALL_TOOLKITS := 11.8 12.4 12.4+cccl12.9
test-all:
	@start=$$(date +%s); set -o pipefail; mkdir -p results; \
	$(MAKE) $(BUILD_JOBS) all 2>&1 | tee results/test-all-build.log || exit; \
	if grep -qi warning results/test-all-build.log; then \
	    echo "make test-all: the build warned (results/test-all-build.log): $$(grep -i -m 1 warning results/test-all-build.log)" >&2; exit 1; \
	fi; \
	tests/run --all --since $$start || exit; \
	if [ -x tests/guards/run ]; then tests/guards/run || exit; fi; \
	if [ -x tests/mutants/run ]; then tests/mutants/run; s=$$?; [ $$s = 0 ] || [ $$s = 77 ] || exit $$s; fi; \
	if [ -x tests/explain/run ]; then tests/explain/run; s=$$?; [ $$s = 0 ] || [ $$s = 77 ] || exit $$s; fi; \
	if [ -x tests/toolkits/plan-probe ]; then \
	    plans=$$(tests/toolkits/plan-probe "$(CURDIR)" 2>&1); s=$$?; \
	    if [ $$s = 77 ]; then echo "make test-all: skipped: the planner probe: $$plans"; \
	    elif [ $$s = 0 ] && [ "$$plans" = "plans right" ]; then echo "make test-all: the planners this build made with $(NVCC): $$plans"; \
	    else echo "make test-all: the planners this build made with $(NVCC) do not write a call's launches down: $$plans" >&2; exit 1; fi; \
	fi; \
	if [ "$${CI_TOOLKITS:-1}" = 0 ]; then \
	    echo "make test-all: skipped: the older toolkits (CI_TOOLKITS=0)"; \
	elif [ ! -f /usr/share/keyrings/debian-archive-keyring.gpg ] || ! command -v dpkg-deb >/dev/null; then \
	    echo "make test-all: skipped: the older toolkits need apt-get, dpkg-deb and Debian's archive keyring (apt-get install debian-archive-keyring)"; \
	else \
	    tests/toolkits/run $(TEST_ALL_TOOLKITS) || exit; \
	fi; \
	echo "make test-all: passed, in $$(($$(date +%s) - start)) s"

# SOLUTIONS=1 where a step it names has no solution (a handout has none):
# one line says so, and nothing runs -- not the grader on nothing. make's
# question mode (-q) runs nothing and exits 1: the one status of its own a
# makefile can give make, whose every failure is 2.
NO_SOLUTION := $(if $(filter 1,$(SOLUTIONS)),$(if $(filter grade sanitize profile explain,$(MAKECMDGOALS)),$(filter-out $(SOLVED),$(PICKED))))
ifneq ($(NO_SOLUTION),)
  $(info make: $(if $(SOLVED),no reference solution in this copy for $(NO_SOLUTION),this copy has no reference solutions (no solutions/)): $(SOLUTION_ASKED) has nothing to run)
  MAKEFLAGS += -q
endif

# The options, gathered first: make shows the command as one line.
GRADE_OPTIONS = $(strip $(if $(EX),--step "$(EX_NUMBERS)") $(if $(filter 1,$(SOLUTIONS)),--solutions) \
    $(if $(JOBS),--jobs "$(JOBS)") $(if $(JUNIT),--junit "$(JUNIT)") $(if $(GRADESCOPE),--gradescope "$(GRADESCOPE)") \
    $(if $(CLASSROOM),--classroom "$(CLASSROOM)"))
grade:
	grading/grade $(GRADE_OPTIONS)

# Without solutions/ (a copy handed out to a class), bench, calibrate and
# test-mutants have nothing to run: they say so and succeed.
UNSOLVED := $(filter-out $(SOLVED),$(STEPS))
define say_unsolved
$(if $(UNSOLVED),@echo "make $(1): skipped $(words $(UNSOLVED)) step(s) with no reference solution in solutions/: $(UNSOLVED)" >&2)
endef

# bench, bench-sweep and calibrate time on the GPU: they ask for it first (ask_for_gpu,
# common/cuda.mk), and without one say so in a line and build nothing.
# Where step 08 is solved, make bench also times it on floats (make float-sum).
bench:
	$(call say_unsolved,bench)
	$(if $(SOLVED),@$(call ask_for_gpu,bench) $(MAKE) $(SOLVED) && { common/tools/bench.sh $(SOLVED) || $(gpu_skip); }$(if $(and $(filter 08-cascaded,$(SOLVED)),$(wildcard $(FLOAT_SUM_SRC))), && $(MAKE) -s float-sum))

# How long grading takes here: the reference solutions graded (JOBS steps at
# once, 8 by default), each step's seconds by test (grading/bench).
bench-grading:
	$(if $(SOLVED),@$(call ask_for_gpu,bench-grading) grading/bench --jobs $(or $(JOBS),8) $(if $(EX),--step "$(EX_NUMBERS)"),@echo "make bench-grading: skipped: no reference solutions in solutions/" >&2)

bench-sweep:
	$(if $(SOLVED),@$(call ask_for_gpu,bench-sweep) $(MAKE) $(SOLVED) && { common/tools/bench-sweep.sh || $(gpu_skip); },@echo "make bench-sweep: skipped: no reference solutions in solutions/" >&2)

calibrate:
	$(call say_unsolved,calibrate)
	$(if $(SOLVED),@$(call ask_for_gpu,calibrate) $(MAKE) $(SOLVED) && { grading/calibrate || $(gpu_skip); })

readme-figures:
	common/tools/readme-figures.sh

# The planted mistakes: the grader must catch each, and score each honest
# variant in full (tests/mutants/run); make explain must name each culprit
# line (tests/explain/run). Both plant into copies of solutions/.
test-mutants:
	$(if $(wildcard tests/mutants/run),@$(call ask_for_gpu,test-mutants) $(MAKE) all && tests/mutants/run$(if $(wildcard tests/explain/run), && tests/explain/run),@echo "make test-mutants: skipped: no tests/mutants/ here (it plants mistakes in copies of solutions/)" >&2)

handout:
	$(if $(and $(STEP),$(DEST)),,$(error name the last step and a new folder: make handout STEP=05 DEST=../workbook-05))
	common/tools/handout.sh "$(STEP)" "$(DEST)"

test-toolkits:
	tests/toolkits/run

# The script's own status (1 something missing, 77 only the GPU) cannot
# pass through make, which exits 2 for any command that fails: make doctor
# exits 0 only when everything is ready.
doctor:
	@common/tools/doctor.sh

# one_step GOAL: the first line of a recipe for one step. Where SOLUTIONS=1
# has no solution to run, it is a command, which the question mode does not
# run and stops at, before any line that calls $(MAKE) (which it would run).
define one_step
$(if $(filter 1,$(words $(PICKED))),,$(error name one step: make $(1) EX=04$(if $(EX), (EX=$(EX) $(if $(PICKED),names $(words $(PICKED)) steps,names no step here: the steps are $(foreach s,$(STEPS),$(firstword $(subst -, ,$(s)))))))))$(if $(NO_SOLUTION),@:)
endef

# The step's own goals ask for the GPU first (common/step.mk).
sanitize:
	$(call one_step,sanitize)
	$(Q)$(MAKE) -C $(PICKED) sanitize $(if $(filter 1,$(SOLUTIONS)),SOLUTION=1) $(NO_DIR)

# The profile also goes to results/profile-NN.txt, headed by what ran where:
# make readme-figures copies it into the step's README. The GPU is asked for
# first (ask_for_gpu, common/cuda.mk): without one, nothing is built or
# written; with one the program cannot use (its skip), nothing is written. A dry run (make -n), which runs a line that calls $(MAKE), only
# shows the step's commands.
PROFILED = results/profile-$(firstword $(subst -, ,$(PICKED))).txt
profile:
	$(call one_step,profile)
ifneq ($(DRY_RUN),)
	$(MAKE) -s -C $(PICKED) profile $(if $(filter 1,$(SOLUTIONS)),SOLUTION=1)
else
	@$(call ask_for_gpu,profile) mkdir -p results && set -o pipefail && \
	    gpu=$$({ nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null || :; } | head -n 1) && \
	    echo "Measured by \`make profile$(if $(filter 1,$(SOLUTIONS)), SOLUTIONS=1) EX=$(firstword $(subst -, ,$(PICKED)))\` on $${gpu:-a GPU that nvidia-smi does not name}, $$(date -u +%Y-%m-%d):" >$(PROFILED).new && \
	    $(MAKE) -s -C $(PICKED) profile $(if $(filter 1,$(SOLUTIONS)),SOLUTION=1) --no-print-directory | tee -a $(PROFILED).new && \
	    { [ $$(wc -l <$(PROFILED).new) -gt 1 ] && mv $(PROFILED).new $(PROFILED) || rm -f $(PROFILED).new; } || \
	    { status=$$?; rm -f $(PROFILED).new; exit $$status; }
endif

# The lines of the learner's file that ncu's source counters blame
# (common/tools/explain.sh; its own exit status says why it failed).
explain:
	$(call one_step,explain)
	$(Q)$(MAKE) -C $(PICKED) explain $(if $(filter 1,$(SOLUTIONS)),SOLUTION=1) $(NO_DIR)

# The atomics microbenchmark (common/micro/atomics.cu): its table goes to the
# screen and to results/micro-atomics.txt, which make readme-figures copies
# into the READMEs that use it.
# It includes block_sum.cuh, from the track's folder that holds it.
MICRO_ATOMICS := common/micro/build/atomics
BLOCK_SUM := $(firstword $(wildcard common/tracks/*/block_sum.cuh))
$(MICRO_ATOMICS): common/micro/atomics.cu $(BLOCK_SUM)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) $(GENCODE) -Icommon/core $(addprefix -I,$(dir $(BLOCK_SUM))) -o $@ $<

micro-atomics:
	$(if $(wildcard common/micro/atomics.cu),,$(error no common/micro/atomics.cu in this copy: it is handed out with step 08))
	@$(call ask_for_gpu,micro-atomics) $(MAKE) $(MICRO_ATOMICS) && mkdir -p results && set -o pipefail && \
	    $(MICRO_ATOMICS) | tee results/micro-atomics.txt.new && mv results/micro-atomics.txt.new results/micro-atomics.txt

# Step 08 on floats (past the lesson, in the reference solution's beyond/
# folder): a program of its own, as the track times ints only. Its table goes
# to the screen and to results/float-sum.txt, which make readme-figures copies
# into step 08's README.
FLOAT_SUM_SRC := solutions/08-cascaded/beyond/float_sum.cu
FLOAT_SUM := solutions/08-cascaded/beyond/build/float_sum
$(FLOAT_SUM): $(FLOAT_SUM_SRC) $(BLOCK_SUM)
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) $(GENCODE) $(addprefix -I,$(dir $(BLOCK_SUM))) -o $@ $<

float-sum:
	$(if $(wildcard $(FLOAT_SUM_SRC)),,$(error no $(FLOAT_SUM_SRC) in this copy: it comes with the reference solutions))
	@$(call ask_for_gpu,float-sum) $(MAKE) $(FLOAT_SUM) && mkdir -p results && set -o pipefail && \
	    $(FLOAT_SUM) | tee results/float-sum.txt.new && mv results/float-sum.txt.new results/float-sum.txt

clean:
	for s in $(STEPS); do $(MAKE) -C $$s clean; done
	rm -rf solutions/08-cascaded/beyond/build
	rm -rf common/micro/build
	rm -rf common/build
