# The workbook's top-level Makefile. `make help` lists what it does.
#
# Variables:
#   EX=04            the step(s) to act on, by number: EX=04, EX=4 or EX="04 05"
#   SOLUTIONS=1      grade, sanitize or profile the reference solutions
#                    instead of the exercises (SOLUTION=1 works too)
#   JUNIT=FILE       `make grade` also writes JUnit XML there (GRADESCOPE=FILE,
#                    CLASSROOM=FILE: Gradescope's and GitHub Classroom's results)
#   SM=90            build for these GPU architectures (default: this machine's GPU)
#   CUDA_PATH, NVCC  which CUDA toolkit to use

SHELL := /bin/bash
include common/cuda.mk

STEPS := $(sort $(wildcard [0-9][0-9]-*))
SOLVED := $(notdir $(wildcard $(addprefix solutions/,$(STEPS))))
# The step numbers EX names, two digits each (EX=4 is step 04), and their folders
# (all of them without EX).
EX_NUMBERS := $(foreach e,$(subst $(comma), ,$(EX)),$(if $(filter 1 2 3 4 5 6 7 8 9,$(e)),0$(e),$(e)))
PICKED := $(if $(EX),$(foreach e,$(EX_NUMBERS),$(filter $(e)-%,$(STEPS))),$(STEPS))

.PHONY: all help test test-mutants grade bench calibrate readme-figures sanitize profile clean $(STEPS)

all: $(STEPS)

# Each step builds its exercise and, if there is one, its solution.
$(STEPS):
	$(MAKE) -C $@ all $(if $(filter $@,$(SOLVED)),solution)

help:
	@echo "make                 build every exercise and every solution"
	@echo "make test            the workbook's own tests (needs bats; a GPU for the graded part)"
	@echo "make grade [EX=04]   grade your exercises (SOLUTIONS=1: the reference solutions; JUNIT=file)"
	@echo "                     (in a step's folder, make grade grades that step; make help there lists the rest)"
	@echo "make bench           time every reference solution: the progression table, CSV and plot"
	@echo "make calibrate       measure this GPU and write its own speed thresholds"
	@echo "make readme-figures  write the figures of the last make bench into the steps' READMEs"
	@echo "make sanitize EX=04  compute-sanitizer memcheck, racecheck and synccheck on one step"
	@echo "make profile EX=05   the ncu metrics that show one step's lesson"
	@echo "make test-mutants    (GPU) check that grading catches 24 planted mistakes"
	@echo "make clean           remove every build output"

# The tests' TAP goes to results/tests.tap too; the last lines say what was skipped.
test: all
	@mkdir -p results
	set -o pipefail; bats --formatter tap tests | tee results/tests.tap
	@awk '/^(not )?ok / { n++ } /^not ok / { f++ } / # skip / { s++; sub(/^ok [0-9]+ /, ""); print "skipped: " $$0 } \
	    END { printf "make test: %d tests, %d failed, %d skipped\n", n, f, s }' results/tests.tap

grade:
	grading/grade $(if $(EX),--step "$(EX_NUMBERS)") $(if $(filter 1,$(SOLUTIONS)),--solutions) \
	    $(if $(JUNIT),--junit "$(JUNIT)") $(if $(GRADESCOPE),--gradescope "$(GRADESCOPE)") \
	    $(if $(CLASSROOM),--classroom "$(CLASSROOM)")

bench: $(SOLVED)
	common/bench.sh $(SOLVED)

calibrate: $(SOLVED)
	grading/calibrate

readme-figures:
	common/readme-figures.sh

test-mutants: all
	tests/mutants/run

define one_step
$(if $(filter 1,$(words $(PICKED))),,$(error name one step: make $(1) EX=04$(if $(EX), (EX=$(EX) names $(words $(PICKED)) steps))))
endef

sanitize:
	$(call one_step,sanitize)
	$(MAKE) -C $(PICKED) sanitize $(if $(filter 1,$(SOLUTIONS)),SOLUTION=1)

profile:
	$(call one_step,profile)
	$(MAKE) -C $(PICKED) profile $(if $(filter 1,$(SOLUTIONS)),SOLUTION=1)

clean:
	for s in $(STEPS); do $(MAKE) -C $$s clean; done
