# common.mk: the shared harness's sources, compiled once into common/build and
# linked into every step's program (with the track's own: reduction or matmul).
# A new shared source is one more name here.
COMMON_SOURCES := harness audit plan passes
# The planner's (plan.h): the stand-in runtime, and the launch helpers both programs share.
PLANNER_SOURCES := planner passes
TRACKS := reduction matmul
