# step.mk: how every step is built. A step's Makefile sets two variables and
# includes this file:
#
#   PROGRAM := reduction_interleaved   # PROGRAM.cu is the exercise; its solution
#                                      # is ../solutions/<step>/PROGRAM.cu
#   TRACK   := reduction               # reduction or matmul: the harness it links
#
# and may set PROFILE_METRICS (the ncu metrics that show the step's lesson).
#
#   make                  ./PROGRAM, from the exercise
#   make solution         ./PROGRAM_solution, from the reference solution
#   make sanitize         compute-sanitizer memcheck, racecheck and synccheck on
#                         ./PROGRAM at small sizes (SOLUTION=1: on the solution)
#   make profile          ncu: the metrics of PROFILE_METRICS, per kernel
#   make grade            grade this step (SOLUTION=1: the reference solution)
#   make help             these lines
#   make clean

COMMON_DIR := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
include $(COMMON_DIR)/cuda.mk

STEP := $(notdir $(CURDIR))
# What the step's graded function must launch, for the launch audit: the
# key=value facts that audit.h describes, compiled into main.cu as STEP_AUDIT.
STEP_AUDIT_01-naive-matmul := kernel=matmul_naive function=run_naive launches=one-launch memsets=0-1
STEP_AUDIT_02-register-temp := kernel=matmul_register function=run_register launches=one-launch
STEP_AUDIT_03-tiled-matmul := kernel=matmul_tiled function=run_tiled launches=one-launch template=yes
STEP_AUDIT_04-reduction-interleaved := kernel=reduce_interleaved_strided function=sum_interleaved_strided launches=levels per_thread=1
STEP_AUDIT_05-reduction-sequential := kernel=reduce_sequential function=sum_sequential launches=levels per_thread=1
STEP_AUDIT_06-reduction-direct := kernel=reduce_direct function=sum_direct launches=one-pass per_thread=2 memsets=1
STEP_AUDIT_07-unrolled := kernel=reduce_unrolled function=sum_unrolled launches=levels per_thread=2 template=yes
STEP_AUDIT_08-cascaded := kernel=reduce_cascaded function=sum_cascaded launches=one-pass template=yes fills_gpu=yes memsets=1
STEP_AUDIT ?= $(STEP_AUDIT_$(STEP))
SOLUTION_SRC := $(abspath $(COMMON_DIR)/../solutions/$(STEP)/$(PROGRAM).cu)
BUILD := build

ifeq ($(TRACK),matmul)
  LDLIBS += -lcublas
  SANITIZE_SIZES ?= 1,17,33,100
  SANITIZE_BLOCKS ?= 8x8,16x16,32x32
  PROFILE_ARGS ?= -n 1024 -r 1
else
  SANITIZE_SIZES ?= 1,33,1000,65537
  SANITIZE_BLOCKS ?= 32,256,1024
  PROFILE_ARGS ?= -n 2^20 -b 256 -r 1
endif

# The launch audit (audit.cu) traces with CUPTI, the toolkit's tracing library
# (its folders: CUPTI_INCLUDE and CUPTI_LIB, in cuda.mk).
LDLIBS += -lcupti

ALL_FLAGS := $(NVCCFLAGS) $(NVCC_HOST) $(GENCODE) -I$(COMMON_DIR) $(CUPTI_CFLAGS)
# The shared harness is compiled once for every step, into common/build.
COMMON_BUILD := $(COMMON_DIR)/build
include $(COMMON_DIR)/common.mk
# Rebuild everything when the flags change (another SM, another nvcc). The file
# is replaced whole, so that a make running beside this one never reads half.
define note_flags
$(shell mkdir -p $(1); [ "$$(cat $(1)/flags 2>/dev/null)" = '$(NVCC) $(ALL_FLAGS) $(CUDA_LDFLAGS)' ] || \
    { echo '$(NVCC) $(ALL_FLAGS) $(CUDA_LDFLAGS)' > $(1)/flags.$$$$ && mv $(1)/flags.$$$$ $(1)/flags; })
endef
# Goals that build nothing (print-program, help, clean) leave the records alone.
ifneq ($(NEEDS_COMPILER),)
$(call note_flags,$(BUILD))
$(call note_flags,$(COMMON_BUILD))
endif

SHARED_OBJS := $(BUILD)/main.o $(addprefix $(COMMON_BUILD)/,$(addsuffix .o,$(COMMON_SOURCES) $(TRACK)))
TARGET := $(if $(filter 1,$(SOLUTION)),$(PROGRAM)_solution,$(PROGRAM))

.PHONY: all solution harness sanitize profile grade help clean print-program print-sanitize-args
.DELETE_ON_ERROR:

all: $(PROGRAM)

# Every shared object, both tracks: the top-level make builds them first, once.
harness: $(addprefix $(COMMON_BUILD)/,$(addsuffix .o,$(COMMON_SOURCES) $(TRACKS)))

ifneq ($(wildcard $(SOLUTION_SRC)),)
solution: $(PROGRAM)_solution
else
solution:
	@echo "$(STEP): no solution to build: $(SOLUTION_SRC) is not there" >&2; exit 1
endif

$(PROGRAM): $(BUILD)/exercise.o $(SHARED_OBJS)
	$(NVCC) $(ALL_FLAGS) -o $@ $^ $(CUDA_LDFLAGS) $(LDLIBS)

$(PROGRAM)_solution: $(BUILD)/solution.o $(SHARED_OBJS)
	$(NVCC) $(ALL_FLAGS) -o $@ $^ $(CUDA_LDFLAGS) $(LDLIBS)

$(BUILD)/exercise.o: $(PROGRAM).cu $(BUILD)/flags
	$(NVCC) $(ALL_FLAGS) -MMD -MP -MF $(@:.o=.d) -c -o $@ $<

$(BUILD)/solution.o: $(SOLUTION_SRC) $(BUILD)/flags
	$(NVCC) $(ALL_FLAGS) -MMD -MP -MF $(@:.o=.d) -c -o $@ $<

$(BUILD)/main.o: main.cu $(BUILD)/flags
	$(NVCC) $(ALL_FLAGS) -DSTEP_NAME='"$(STEP)"' -DSTEP_AUDIT='"$(STEP_AUDIT)"' -MMD -MP -MF $(@:.o=.d) -c -o $@ $<

$(COMMON_BUILD)/%.o: $(COMMON_DIR)/%.cu $(COMMON_BUILD)/flags
	$(NVCC) $(ALL_FLAGS) -MMD -MP -MF $(@:.o=.d) -c -o $@ $<

-include $(wildcard $(BUILD)/*.d $(COMMON_BUILD)/*.d)

sanitize: $(TARGET)
	$(COMMON_DIR)/sanitize.sh ./$(TARGET) --check -n $(SANITIZE_SIZES) -b $(SANITIZE_BLOCKS)

profile: $(TARGET)
	$(COMMON_DIR)/profile.sh '$(PROFILE_METRICS)' ./$(TARGET) $(PROFILE_ARGS)

# Grading runs from the top (grading/grade); here, for this step alone.
grade:
	$(COMMON_DIR)/../grading/grade --step $(firstword $(subst -, ,$(STEP))) $(if $(filter 1,$(SOLUTION)),--solutions)

help:
	@sed -n '/^#   make  /,/^#   make clean/s/^#   //p' $(COMMON_DIR)/step.mk
	@echo "(the workbook's other commands -- make test, make bench -- run from its top folder: make -C .. help)"

print-program:
	@echo $(PROGRAM)

# What the grader's sanitizer test runs the program with: the same as make sanitize.
print-sanitize-args:
	@echo --check -n $(SANITIZE_SIZES) -b $(SANITIZE_BLOCKS)

clean:
	rm -rf $(BUILD) $(PROGRAM) $(PROGRAM)_solution
