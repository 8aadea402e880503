# cuda.mk: the CUDA toolchain and the GPU architectures to build for.
# Included by step.mk and by the top-level Makefile.
#
#   NVCC       the compiler: $(CUDA_PATH)/bin/nvcc when CUDA_PATH is set, else nvcc
#              from PATH, else /usr/local/cuda/bin/nvcc. Its folder is CUDA_BIN,
#              exported for the scripts that need the toolkit's other tools.
#   SOLUTIONS=1 and SOLUTION=1  the same thing, at the top and in a step folder
#   SM         architectures without the dot, e.g. SM=90 or SM="80 90". Unset: the
#              local GPUs' own (from nvidia-smi); with no GPU, a list of common
#              ones, less those this nvcc cannot build (CUDA 13 starts at sm_75).
#   CCBIN      the host compiler, when nvcc's default is too new for it (CUDA 11.8
#              wants g++ 11 or older: CCBIN=g++-11)
#   V=1        every command in full; without it, a line per file built (say,
#              below), and under make -s not even that

ifdef CUDA_PATH
  NVCC ?= $(CUDA_PATH)/bin/nvcc
else
  NVCC ?= $(or $(shell command -v nvcc 2>/dev/null),/usr/local/cuda/bin/nvcc)
endif
# The toolkit's bin/, where the scripts look for compute-sanitizer and ncu
# first, so that they come from the same toolkit as the compiler.
NVCC_PATH := $(shell command -v '$(NVCC)' 2>/dev/null)
CUDA_BIN := $(dir $(NVCC_PATH))
export NVCC CUDA_BIN

# Goals that need no compiler: they work, and say what they say, without one.
NO_COMPILER_GOALS := help clean print-program grade readme-figures
NEEDS_COMPILER := $(filter-out $(NO_COMPILER_GOALS),$(or $(MAKECMDGOALS),all))
ifneq ($(NEEDS_COMPILER),)
  ifeq ($(NVCC_PATH),)
    $(error the CUDA compiler $(NVCC) was not found: install the CUDA toolkit, or point CUDA_PATH (or NVCC) at one)
  endif
endif

# The toolkit's root: CUDA_PATH, else the folder above the real nvcc's bin/.
CUDA_ROOT := $(or $(CUDA_PATH),$(patsubst %/bin/,%,$(dir $(realpath $(NVCC)))))
# A toolkit outside the loader's path (CUDA_PATH=/opt/...) builds programs that
# would not start ("libcublas.so.12: cannot open shared object file"): they
# carry the path to its libraries. The system's own folders need none.
CUDA_LIB_DIRS := $(filter-out /usr/lib% /lib%,$(wildcard $(CUDA_ROOT)/lib64))
CUDA_LDFLAGS := $(addprefix -Xlinker -rpath=,$(CUDA_LIB_DIRS))
NVCC_HOST := $(if $(CCBIN),-ccbin $(CCBIN))

ifeq ($(origin SM),undefined)
  SM := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | tr -d . | grep -E '^[0-9]+$$' | sort -u)
  export SM  # sub-makes inherit the answer, even an empty one, and ask nvidia-smi no more
endif

# SOLUTION=1 and SOLUTIONS=1 are the only values (0 or none: the exercises);
# another would act on the exercises as if unset, without a word. And EX
# spelled in another case would be ignored as well.
$(foreach v,SOLUTION SOLUTIONS,$(if $(filter-out 0 1,$(strip $($(v)))),$(error $(v)=$($(v)): write $(v)=1 (or leave it out))))
$(foreach v,Ex ex eX,$(if $(filter command line,$(origin $(v))),$(error $(v)=$($(v)): the steps are picked with EX=, in capitals)))

# An architecture is its digits, with an a or f after them for the
# architecture-specific targets (90a, 100f): SM=9.0 or SM=sm_90 would reach
# nvcc as a flag it cannot read.
BAD_SM := $(shell printf '%s\n' $(SM) | grep -vE '^[0-9]+[af]?$$')
ifneq ($(strip $(BAD_SM)),)
  $(error SM=$(SM): name each architecture by its digits, without a dot or sm_, e.g. SM=90 or SM="80 90")
endif

# 70 (V100) still builds with CUDA 11.8 and 12.x; the filter drops it for 13.
COMMON_ARCHS := 70 75 80 86 89 90 100 120
ifeq ($(strip $(SM)),)
  NVCC_ARCHS := $(if $(NEEDS_COMPILER),$(shell $(NVCC) --list-gpu-arch 2>/dev/null | sed -n 's/^compute_//p'))
  ARCHS := $(filter $(NVCC_ARCHS),$(COMMON_ARCHS))
  # PTX of the newest as well, so that a GPU newer than all of them can still run.
  PTX_ARCH := $(lastword $(ARCHS))
else
  ARCHS := $(SM)
  # One this nvcc cannot build for (sm_70 with CUDA 13) is said so, with the
  # ones it can, rather than by nvcc's "Unsupported gpu architecture". (SM=0:
  # a script reading cuda.mk's variables, the doctor's $(NVCC), builds nothing.)
  ifneq ($(NEEDS_COMPILER),)
    NVCC_ARCHS := $(if $(filter-out 0,$(SM)),$(shell $(NVCC) --list-gpu-arch 2>/dev/null | sed -n 's/^compute_//p'))
    UNBUILDABLE := $(if $(NVCC_ARCHS),$(foreach a,$(filter-out 0,$(SM)),$(if $(filter $(shell echo '$(a)' | tr -d af),$(NVCC_ARCHS)),,$(a))))
    ifneq ($(strip $(UNBUILDABLE)),)
      $(error SM=$(strip $(SM)): $(NVCC) cannot build for sm_$(firstword $(UNBUILDABLE)) (it builds for $(NVCC_ARCHS)); a GPU of that architecture needs an older CUDA toolkit (sm_70, the V100, is built by CUDA 11.8 and 12.x: docs/toolkits.md))
    endif
  endif
endif
ifneq ($(NEEDS_COMPILER),)
  ifeq ($(strip $(ARCHS)),)
    $(error cannot tell which GPU architectures $(NVCC) builds for; set SM, e.g. make SM=90)
  endif
endif

comma := ,
# step_number_of,ITEM: the two-digit step an item of EX= names: 4, 04, or
# the step's folder, 04-reduction-interleaved.
step_number_of = $(foreach n,$(firstword $(subst -, ,$(1))),$(if $(filter 1 2 3 4 5 6 7 8 9,$(n)),0$(n),$(n)))
# The newer 12.x nvcc warn that sm_70 is deprecated: building it for V100s is
# deliberate.
GENCODE := $(foreach a,$(ARCHS),-gencode arch=compute_$(a)$(comma)code=sm_$(a)) \
           $(if $(PTX_ARCH),-gencode arch=compute_$(PTX_ARCH)$(comma)code=compute_$(PTX_ARCH)) \
           -Wno-deprecated-gpu-targets
NVCCFLAGS ?= -O3 -lineinfo -std=c++17 -Xcompiler -Wall

# Quiet by default: a line per file built, "  CC   common/build/core/plan.o"
# or "  LD   01-naive-matmul/naive_matmul" (its path from the workbook's top,
# wherever make runs), instead of nvcc's command lines of several hundred
# characters; V=1 shows those. The compiler's warnings and errors show in
# full either way. make -s prints neither; make -n shows the commands alone.
# (The first word of MAKEFLAGS holds make's one-letter flags: s, n.)
TOP_DIR := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/..)
SILENT := $(findstring s,$(firstword -$(MAKEFLAGS)))
DRY_RUN := $(findstring n,$(firstword -$(MAKEFLAGS)))
ifeq ($(V),1)
  Q :=
  NO_DIR :=
  say :=
else
  Q := @
  # A make under make says nothing of the folders it enters: each line names its file.
  NO_DIR := --no-print-directory
  # say,WHAT,FILE: the recipe's line that says what it builds (CC an object,
  # LD a program).
  say = $(if $(SILENT)$(DRY_RUN),,@printf '  %-4s %s\n' '$(1)' '$(patsubst $(TOP_DIR)/%,%,$(abspath $(2)))')
endif

# ask_for_gpu,GOAL: the start of a recipe's command for a goal that needs a
# GPU (make bench, calibrate, sanitize, profile, explain, ...), before it
# builds anything: where no CUDA device can be used, it says so on one line
# ("make profile: skipped: no usable CUDA device (...)") and ends the command
# with exit 0, a skip and not a failure, so make adds no error lines (the
# scripts themselves exit 77). skip_without_gpu (common/tools/options.bash)
# asks no_usable_gpu, which says no only where it is sure (else the build and
# the program's own check decide); the answer holds for the makes this
# command starts (WORKBOOK_GPU). Nothing is asked under make -n.
ask_for_gpu = $(if $(DRY_RUN),,[ "$$WORKBOOK_GPU" = usable ] || \
    bash -c 'source "$$0" && OPTIONS_NAME="make $(1)" skip_without_gpu' $(TOP_DIR)/common/tools/options.bash || \
    { [ $$? -eq 77 ] && exit $(skip_status); exit 1; }; export WORKBOOK_GPU=usable;)

# Where the driver lists a GPU that the CUDA runtime cannot use (a driver
# older than the toolkit), only the built program can tell: it exits 77, and
# so does the script that ran it, saying so in a line. gpu_skip: the end of
# a recipe's command that makes that status a skip too (exit 0), as
# ask_for_gpu's. REQUIRE_GPU=1 (a CI job that must run on a GPU) makes
# either a failure instead.
skip_status = $(if $(filter 1,$(REQUIRE_GPU)),77,0)
gpu_skip = { status=$$?; [ $$status -eq 77 ] && exit $(skip_status); exit $$status; }

# SOLUTIONS=1 (the top-level spelling) and SOLUTION=1 (a step folder's) are one
# switch: either works in either place. A message that refuses it names it
# as the command spelled it (SOLUTION_ASKED).
SOLUTION_ASKED := $(if $(SOLUTIONS),SOLUTIONS=$(SOLUTIONS),SOLUTION=$(SOLUTION))
SOLUTIONS := $(or $(SOLUTIONS),$(SOLUTION))
SOLUTION := $(SOLUTIONS)
