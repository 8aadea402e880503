# common.mk: the shared harness's sources, compiled once into common/build and
# linked into every step's program (with its track's own files).
# The trusted program's (common/core/): a new shared source is one more name here.
COMMON_SOURCES := harness audit plan
# The planner's (plan.h): the stand-in runtime (common/core/planner.cpp).
PLANNER_SOURCES := planner
# This file's folder, where it is read alone (make -f common/common.mk).
COMMON_DIR ?= $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
# The tracks: each is a folder common/tracks/NAME whose NAME.cu declares its
# facts (TRACK_FACTS, read by common/tools/track-facts.awk).
TRACK_FILES := $(shell grep -l '^static const char TRACK_FACTS' $(COMMON_DIR)/tracks/*/*.cu 2>/dev/null)
TRACKS := $(sort $(foreach t,$(notdir $(wildcard $(COMMON_DIR)/tracks/*)),$(if $(filter $(COMMON_DIR)/tracks/$(t)/$(t).cu,$(TRACK_FILES)),$(t))))
# track_fact,TRACK,KEY: one fact of a track, from its file.
track_fact = $(shell awk -v key='$(2)' -f $(COMMON_DIR)/tools/track-facts.awk $(COMMON_DIR)/tracks/$(1)/$(1).cu)
# The objects, in common/build as their sources are in common/:
# core_objs,SOURCES: the trusted program's;
core_objs = $(patsubst %,$(COMMON_BUILD)/core/%.o,$(1))
# track_obj,TRACK: the track's file's, linked into the step's program;
track_obj = $(COMMON_BUILD)/tracks/$(1)/$(1).o
# track_source_objs,TRACK: those of the other files of the track's folder,
# linked into both programs of the step (its program and its planner).
track_source_objs = $(patsubst $(COMMON_DIR)/%.cu,$(COMMON_BUILD)/%.o,$(filter-out %/$(1).cu,$(wildcard $(COMMON_DIR)/tracks/$(1)/*.cu)))
