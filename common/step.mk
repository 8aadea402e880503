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

# The launch audit (audit.cu) traces with CUPTI, the toolkit's tracing library:
# in include/ and lib64/ (or lib/) of the toolkit, or in extras/CUPTI/ of older
# ones. The program finds it at run time where it was found at build time.
CUDA_ROOT := $(abspath $(CUDA_BIN)/..)
CUPTI_INCLUDE := $(wildcard $(CUDA_ROOT)/extras/CUPTI/include)
CUPTI_LIB_DIRS := $(patsubst %/,%,$(dir $(wildcard $(addsuffix /libcupti.so,$(CUDA_ROOT)/extras/CUPTI/lib64 $(CUDA_ROOT)/lib64 $(CUDA_ROOT)/lib))))
LDLIBS += $(addprefix -L,$(CUPTI_LIB_DIRS)) $(addprefix -Xlinker -rpath=,$(CUPTI_LIB_DIRS)) -lcupti

ALL_FLAGS := $(NVCCFLAGS) $(GENCODE) -I$(COMMON_DIR) $(addprefix -I,$(CUPTI_INCLUDE))
# Rebuild everything when the flags change (another SM, another nvcc). Goals
# that build nothing (print-program, help, clean) leave the record alone.
ifneq ($(NEEDS_COMPILER),)
$(shell mkdir -p $(BUILD); [ "$$(cat $(BUILD)/flags 2>/dev/null)" = '$(NVCC) $(ALL_FLAGS)' ] || echo '$(NVCC) $(ALL_FLAGS)' > $(BUILD)/flags)
endif

SHARED_OBJS := $(BUILD)/main.o $(BUILD)/harness.o $(BUILD)/$(TRACK).o $(BUILD)/audit.o
TARGET := $(if $(filter 1,$(SOLUTION)),$(PROGRAM)_solution,$(PROGRAM))

.PHONY: all solution sanitize profile grade help clean print-program print-sanitize-args
.DELETE_ON_ERROR:

all: $(PROGRAM)

ifneq ($(wildcard $(SOLUTION_SRC)),)
solution: $(PROGRAM)_solution
else
solution:
	@echo "$(STEP): no solution to build: $(SOLUTION_SRC) is not there" >&2; exit 1
endif

$(PROGRAM): $(BUILD)/exercise.o $(SHARED_OBJS)
	$(NVCC) $(ALL_FLAGS) -o $@ $^ $(LDLIBS)

$(PROGRAM)_solution: $(BUILD)/solution.o $(SHARED_OBJS)
	$(NVCC) $(ALL_FLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/exercise.o: $(PROGRAM).cu $(BUILD)/flags
	$(NVCC) $(ALL_FLAGS) -MMD -MP -MF $(@:.o=.d) -c -o $@ $<

$(BUILD)/solution.o: $(SOLUTION_SRC) $(BUILD)/flags
	$(NVCC) $(ALL_FLAGS) -MMD -MP -MF $(@:.o=.d) -c -o $@ $<

$(BUILD)/main.o: main.cu $(BUILD)/flags
	$(NVCC) $(ALL_FLAGS) -MMD -MP -MF $(@:.o=.d) -c -o $@ $<

$(BUILD)/%.o: $(COMMON_DIR)/%.cu $(BUILD)/flags
	$(NVCC) $(ALL_FLAGS) -MMD -MP -MF $(@:.o=.d) -c -o $@ $<

-include $(wildcard $(BUILD)/*.d)

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
