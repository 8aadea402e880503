# common.mk: the shared harness's sources, compiled once into common/build and
# linked into every step's program (with its track's own file).
# A new shared source is one more name here.
COMMON_SOURCES := harness audit plan passes
# The planner's (plan.h): the stand-in runtime, and the launch helpers both programs share.
PLANNER_SOURCES := planner passes
# This file's folder, where it is read alone (make -f common/common.mk).
COMMON_DIR ?= $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
# The tracks: each is a file of common/ that declares its facts (TRACK_FACTS,
# read by common/track-facts.awk).
TRACKS := $(sort $(basename $(notdir $(shell grep -l '^static const char TRACK_FACTS' $(COMMON_DIR)/*.cu))))
# track_fact,TRACK,KEY: one fact of a track, from its file.
track_fact = $(shell awk -v key='$(2)' -f $(COMMON_DIR)/track-facts.awk $(COMMON_DIR)/$(1).cu)
