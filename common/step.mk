# step.mk: how every step is built. A step's Makefile is one line,
#
#   include ../common/step.mk
#
# and the step's entry in steps.conf (the step manifest) says the rest: its
# program (PROGRAM.cu is the exercise; its solution is
# ../solutions/<step>/PROGRAM.cu), its track (the harness it links), the
# launch audit's facts and the metrics of make profile.
#
#   make                  ./PROGRAM, from the exercise
#   make solution         ./PROGRAM_solution, from the reference solution
#   make V=1              the same, showing each command in full
#   make sanitize         compute-sanitizer memcheck, racecheck, synccheck and
#                         initcheck on ./PROGRAM at small sizes and at the timed
#                         size, as the grader runs them (SOLUTION=1: on the solution)
#   make profile          ncu: the counters that show this step's idea, per kernel
#   make explain          ncu's source counters: the lines of your file with bank
#                         conflicts, uncoalesced or divergent accesses, repeated
#                         stores, and those behind the lesson's counter
#                         (SOLUTION=1: the solution's; EXPLAIN_ARGS: another run)
#   make grade            grade this step (SOLUTION=1: the reference solution)
#   make help             these lines
#   make clean
#
# In a copy without the step's solution (a handout), make solution and
# SOLUTION=1 say so in one line, run nothing, and exit 1 (a failure is 2).

COMMON_DIR := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
include $(COMMON_DIR)/cuda.mk

# The step is the folder: a STEP= on the command line (make handout's, or a
# slip for EX=) reaches every sub-make, and must not rename it.
override STEP := $(notdir $(CURDIR))
# An EX= typed here (as at the top) that names another step is refused, not
# ignored: this folder's make acts on this step alone.
# The command to type instead: a step that does not exist is named so;
# make grade, sanitize, profile and explain take EX= at the top; any other
# goal (all, clean, solution) is run in the other step's folder.
ifeq ($(MAKELEVEL)$(origin EX),0command line)
  EX_OTHERS := $(filter-out $(firstword $(subst -, ,$(STEP))),$(foreach e,$(subst $(comma), ,$(EX)),$(call step_number_of,$(e))))
  ifneq ($(EX_OTHERS),)
    EX_FOLDERS := $(foreach n,$(EX_OTHERS),$(notdir $(wildcard $(COMMON_DIR)/../$(n)-*)))
    EX_GOALS := $(or $(filter-out print-%,$(MAKECMDGOALS)),all)
    ifneq ($(words $(EX_FOLDERS)),$(words $(EX_OTHERS)))
      $(error EX=$(EX): no such step here (the steps: $(foreach f,$(notdir $(wildcard $(COMMON_DIR)/../[0-9][0-9]-*)),$(firstword $(subst -, ,$(f))))); this folder's make acts on $(STEP) alone)
    else ifeq ($(filter-out grade sanitize profile explain,$(EX_GOALS)),)
      $(error EX=$(EX) names a step other than this folder's, $(STEP): run make here without EX, or make -C .. $(EX_GOALS) EX=$(EX) from the top)
    else
      $(error EX=$(EX) names a step other than this folder's, $(STEP): run make here without EX, or $(foreach f,$(EX_FOLDERS),make -C ../$(f) $(EX_GOALS)) for that step)
    endif
  endif
endif
# The step's entry in the manifest: one field of it.
MANIFEST := $(abspath $(COMMON_DIR)/../steps.conf)
step_field = $(shell awk -f $(COMMON_DIR)/tools/manifest.awk -v step='$(STEP)' -v key='$(1)' '$(MANIFEST)')
ifneq ($(shell awk -f $(COMMON_DIR)/tools/manifest.awk -v step='$(STEP)' '$(MANIFEST)' >/dev/null 2>&1; echo $$?),0)
  $(error $(STEP) has no entry in $(MANIFEST) (or the file is malformed: awk -f common/tools/manifest.awk steps.conf says why): copy a step's entry there and name it $(STEP))
endif
PROGRAM := $(call step_field,program)
TRACK := $(call step_field,track)
STEP_AUDIT := $(call step_field,audit)
PROFILE_METRICS := $(call step_field,profile)
$(if $(PROGRAM),,$(error steps.conf: $(STEP) has no program=))
SOLUTION_SRC := $(abspath $(COMMON_DIR)/../solutions/$(STEP)/$(PROGRAM).cu)
BUILD := build
# The solution's kernels past the lesson, when its entry names files for them:
# build/beyond/ holds their objects, in the folders the files are in.
BEYOND_SOURCES := $(call step_field,beyond_sources)
BEYOND_OBJS := $(patsubst %.cu,$(BUILD)/beyond/%.o,$(BEYOND_SOURCES))

# The program loads the learner's kernels with the driver API (plan.cu), from
# the driver's library as the runtime loads it: dlopen.
LDLIBS += -ldl

# The workbook's headers, included by name: the trusted program's (core/) and
# the step's track's (tracks/TRACK/).
ALL_FLAGS := $(NVCCFLAGS) $(NVCC_HOST) $(GENCODE) -I$(COMMON_DIR)/core -I$(COMMON_DIR)/tracks/$(TRACK)
# The shared harness is compiled once for every step, into common/build,
# whatever the step's track: the core names no track, and a track's files
# find their own header beside them, so core/ alone is on the include path
# (and a new track changes no shared object's flags).
COMMON_BUILD := $(COMMON_DIR)/build
include $(COMMON_DIR)/common.mk
SHARED_FLAGS := $(NVCCFLAGS) $(NVCC_HOST) $(GENCODE) -I$(COMMON_DIR)/core

$(if $(filter $(TRACKS),$(TRACK)),,$(error steps.conf: $(STEP) has track=$(TRACK); it must be one of: $(TRACKS) (a track is a folder common/tracks/NAME whose NAME.cu declares its TRACK_FACTS)))
# What the track's file declares (TRACK_FACTS): the libraries it links, and
# the runs of make sanitize and make profile.
LDLIBS += $(call track_fact,$(TRACK),libs)
SANITIZE_SIZES ?= $(call track_fact,$(TRACK),sanitize_sizes)
SANITIZE_BLOCKS ?= $(call track_fact,$(TRACK),sanitize_blocks)
PROFILE_ARGS ?= $(call track_fact,$(TRACK),profile_args)
# At the timed size, the tools that finish there ("": all four).
SANITIZE_TIMED_TOOLS ?= $(addprefix --tools ,$(call track_fact,$(TRACK),sanitize_timed_tools))
# Rebuild everything when the flags change (another SM, another nvcc). The file
# is replaced whole, so that a make running beside this one never reads half.
quote = '$(subst ','\'',$(1))'
define note_record
$(shell mkdir -p $(dir $(1)); [ "$$(cat $(1) 2>/dev/null)" = $(call quote,$(2)) ] || \
    { printf '%s\n' $(call quote,$(2)) > $(1).$$$$ && mv $(1).$$$$ $(1); })
endef
note_flags = $(call note_record,$(1)/flags,$(NVCC) $(2) $(CUDA_LDFLAGS))
# The shared objects say where the workbook lies only through COMMON_DIR: their
# flags are recorded, and their dependency files rewritten, with $$(COMMON_DIR)
# for the folder's path, so that a copy of the workbook made with its
# common/build (grading/batch: one build for a whole class) finds them up to date.
# (A compiler that writes no dependency file, as a test's stand-in, leaves none.)
relocatable = $(subst $(COMMON_DIR)/,$$(COMMON_DIR)/,$(1))
define relocate_deps
	$(Q)[ ! -f $(1) ] || { awk -v dir=$(call quote,$(COMMON_DIR)/) '{ out = ""; while ((i = index($$0, dir)) > 0) { out = out substr($$0, 1, i - 1) "$$(COMMON_DIR)/"; $$0 = substr($$0, i + length(dir)) } print out $$0 }' \
	    $(1) >$(1).new && mv $(1).new $(1); }
endef
# main.cu learns its step's name and launch-audit facts from the manifest; a
# changed entry rebuilds it (the record step-defines, like flags).
STEP_DEFINES := -DSTEP_NAME='"$(STEP)"' -DSTEP_AUDIT='"$(STEP_AUDIT)"'
# Goals that build nothing (print-program, help, clean, and those that print
# what a build would use) leave the records alone.
ifneq ($(filter-out print-learner-flags print-sanitize-args,$(NEEDS_COMPILER)),)
$(call note_flags,$(BUILD),$(ALL_FLAGS))
$(call note_flags,$(COMMON_BUILD),$(call relocatable,$(SHARED_FLAGS)))
$(call note_record,$(BUILD)/step-defines,$(STEP_DEFINES))
endif

SHARED_OBJS := $(BUILD)/main.o $(call core_objs,$(COMMON_SOURCES)) $(call track_obj,$(TRACK)) $(call track_source_objs,$(TRACK))
PLANNER_OBJS := $(BUILD)/main.o $(call core_objs,$(PLANNER_SOURCES)) $(call track_source_objs,$(TRACK))
TARGET := $(if $(filter 1,$(SOLUTION)),$(PROGRAM)_solution,$(PROGRAM))

.PHONY: all solution harness sanitize profile explain grade help clean print-program print-sanitize-args print-learner-flags
.DELETE_ON_ERROR:

# (The empty recipes keep make from saying "Nothing to be done" when all is built.)
all: $(PROGRAM)
	@:

# Every shared object, both tracks: the top-level make builds them first, once.
harness: $(call core_objs,$(COMMON_SOURCES) $(PLANNER_SOURCES)) $(foreach t,$(TRACKS),$(call track_obj,$(t)) $(call track_source_objs,$(t)))
	@:

solution: $(PROGRAM)_solution
	@:

# Without the solution (a handout), a goal that asks for it says so, and
# nothing runs: make's question mode (-q) exits 1, the one status of its own
# a makefile can give make, whose every failure is 2.
ifeq ($(wildcard $(SOLUTION_SRC)),)
ifneq ($(filter solution $(PROGRAM)_solution $(if $(filter 1,$(SOLUTION)),sanitize profile explain grade),$(MAKECMDGOALS)),)
  $(info $(STEP): this copy has no reference solution (no $(SOLUTION_SRC)): $(if $(filter 1,$(SOLUTION)),$(SOLUTION_ASKED),make solution) has nothing to run)
  MAKEFLAGS += -q
endif
endif

# A step's two programs (common/core/plan.h). ./PROGRAM checks, times and audits,
# and links none of the learner's host code: the learner's file is compiled
# once, into an object from which its planner, build/PROGRAM.plan, is linked
# (static, with the stand-in runtime of planner.cpp), and into its module,
# build/PROGRAM.fatbin, which the program loads; build/PROGRAM.kernels lists
# the module's kernels, their parameters and variables (kernels.awk, from the
# PTX of the same compile).
$(PROGRAM): $(SHARED_OBJS) $(BUILD)/$(PROGRAM).plan
	$(call say,LD,$@)
	$(Q)$(NVCC) $(ALL_FLAGS) -o $@ $(SHARED_OBJS) $(CUDA_LDFLAGS) $(LDLIBS)

$(PROGRAM)_solution: $(SHARED_OBJS) $(BEYOND_OBJS) $(BUILD)/$(PROGRAM)_solution.plan
	$(call say,LD,$@)
	$(Q)$(NVCC) $(ALL_FLAGS) -o $@ $(SHARED_OBJS) $(BEYOND_OBJS) $(CUDA_LDFLAGS) $(LDLIBS)

# The planner may call only what planner.cpp defines of the CUDA runtime: a
# call it lacks is an undefined reference, which the link names.
$(BUILD)/%.plan: $(BUILD)/%.o $(PLANNER_OBJS)
	$(call say,LD,$@)
	$(Q)$(NVCC) $(ALL_FLAGS) -cudart none -Xcompiler -static -o $@ $^

# learner_object SOURCE: the object, and beside it the module, its table
# and the host code as compiled (common/tools/compile-learner.sh). The file
# may include the workbook's headers, the toolkit's and the system's, and
# nothing else: checked before it is compiled and after, from the
# preprocessor's own lists.
define learner_object
	$(call say,CC,$@)
	$(Q)$(COMMON_DIR)/tools/compile-learner.sh $(1) $@ $(NVCC) $(ALL_FLAGS)
endef

# (A change in how it is compiled, in what it may include, or in how its
# module is read, compiles it again.)
LEARNER_TOOLS := $(COMMON_DIR)/tools/compile-learner.sh $(COMMON_DIR)/tools/check-includes.sh $(COMMON_DIR)/tools/kernels.awk

$(BUILD)/$(PROGRAM).o: $(PROGRAM).cu $(BUILD)/flags $(LEARNER_TOOLS)
	$(call learner_object,$<)

$(BUILD)/$(PROGRAM)_solution.o: $(SOLUTION_SRC) $(BUILD)/flags $(LEARNER_TOOLS)
	$(call learner_object,$<)

$(BUILD)/beyond/%.o: $(dir $(SOLUTION_SRC))%.cu $(BUILD)/flags
	@mkdir -p $(@D)
	$(call say,CC,$@)
	$(Q)$(NVCC) $(ALL_FLAGS) -MMD -MP -MF $(@:.o=.d) -c -o $@ $<

$(BUILD)/main.o: main.cu $(BUILD)/flags $(BUILD)/step-defines
	$(call say,CC,$@)
	$(Q)$(NVCC) $(ALL_FLAGS) $(STEP_DEFINES) -MMD -MP -MF $(@:.o=.d) -c -o $@ $<

$(COMMON_BUILD)/%.o: $(COMMON_DIR)/%.cu $(COMMON_BUILD)/flags
	@mkdir -p $(@D)
	$(call say,CC,$@)
	$(Q)$(NVCC) $(SHARED_FLAGS) -MMD -MP -MF $(@:.o=.d) -c -o $@ $<
	$(call relocate_deps,$(@:.o=.d))

$(COMMON_BUILD)/%.o: $(COMMON_DIR)/%.cpp $(COMMON_BUILD)/flags
	@mkdir -p $(@D)
	$(call say,CC,$@)
	$(Q)$(NVCC) $(SHARED_FLAGS) -MMD -MP -MF $(@:.o=.d) -c -o $@ $<
	$(call relocate_deps,$(@:.o=.d))

-include $(wildcard $(BUILD)/*.d $(COMMON_BUILD)/core/*.d $(COMMON_BUILD)/tracks/*/*.d $(BEYOND_OBJS:.o=.d))

# Twice, the learner's kernels alone (--only yours: the given ones are the
# workbook's): at the small sizes, every block size; and at the timed run's
# size and block (a kernel may behave otherwise there), one call on the
# exact-size input as a timed run makes it (--exact), under the tools that
# finish there (SANITIZE_TIMED_TOOLS: all, unless named).
SANITIZE_RUNS := --check --only yours -n $(SANITIZE_SIZES) -b $(SANITIZE_BLOCKS);$(strip $(SANITIZE_TIMED_TOOLS) --check --exact --only yours $(call step_field,timed))

# make sanitize, profile and explain need a GPU: each asks for one before it
# builds anything (ask_for_gpu, common/cuda.mk), and without one says so in a
# line and succeeds. on_gpu,COMMAND: the recipe that asks, builds the
# program (by its goal, all or solution, of which make says nothing when
# it is built), then runs COMMAND; under make -n, the goal has the program as a
# prerequisite and its recipe is COMMAND alone, shown and not run (a line
# that calls $(MAKE) would run even then).
on_gpu = $(if $(DRY_RUN),$(1),$(Q)$(call ask_for_gpu,$@) $(MAKE) $(if $(filter 1,$(SOLUTION)),solution,all) $(NO_DIR) && { ( $(1) ) || $(gpu_skip); })
sanitize: $(if $(DRY_RUN),$(TARGET))
	$(call on_gpu,IFS=';'; for args in $$(echo '$(SANITIZE_RUNS)'); do \
	    IFS=' '; $(COMMON_DIR)/tools/sanitize.sh ./$(TARGET) $$args || exit; \
	done)

profile: $(if $(DRY_RUN),$(TARGET))
	$(call on_gpu,$(COMMON_DIR)/tools/profile.sh '$(PROFILE_METRICS)' ./$(TARGET) $(PROFILE_ARGS))

explain: $(if $(DRY_RUN),$(TARGET))
	$(call on_gpu,$(COMMON_DIR)/tools/explain.sh $(if $(filter 1,$(SOLUTION)),--solution) $(if $(EXPLAIN_ARGS),--run $(call quote,$(EXPLAIN_ARGS))) $(STEP))

# Grading runs from the top (grading/grade); here, for this step alone.
grade:
	$(COMMON_DIR)/../grading/grade --step $(firstword $(subst -, ,$(STEP))) $(if $(filter 1,$(SOLUTION)),--solutions)

# The workbook's own commands run from its top folder; typed here, they get
# the command to type rather than make's "No rule to make target".
TOP_ONLY := test test-all test-mutants test-toolkits bench bench-sweep calibrate doctor handout readme-figures \
            float-sum micro-atomics
.PHONY: $(TOP_ONLY)
$(TOP_ONLY):
	@echo "make $@ runs from the workbook's top folder: make -C .. $@" >&2; exit 2

# Without solutions/ (a handout), no line offers the reference solution.
HELP_WITHOUT_SOLUTION := -e '/^make solution /d' -e 's/ *(SOLUTION=1: [^;)]*)//' -e 's/(SOLUTION=1: [^;)]*; /(/'
help:
	@sed -n '/^#   make  /,/^#   make clean/s/^#   //p' $(COMMON_DIR)/step.mk | sed 's/PROGRAM/$(PROGRAM)/g' \
	    $(if $(wildcard $(SOLUTION_SRC)),,| sed $(HELP_WITHOUT_SOLUTION))
	@echo "(the workbook's other commands -- make test$(if $(wildcard $(SOLUTION_SRC)),$(comma) make bench) -- run from its top folder: make -C .. help)"

print-program:
	@echo $(PROGRAM)

# The flags the learner's file is compiled with: grading/integrity, given a
# file without the object the build made of it, compiles it with these very
# flags, so that no macro (the list of architectures, __CUDA_ARCH_LIST__,
# among them) tells its check from the build.
print-learner-flags:
	@echo '$(ALL_FLAGS)'

# What the grader's sanitizer test runs the program with, a run a line: the
# same as make sanitize.
print-sanitize-args:
	@echo '$(SANITIZE_RUNS)' | tr ';' '\n'

clean:
	rm -rf $(BUILD) $(PROGRAM) $(PROGRAM)_solution HAND-IN-REFUSED
