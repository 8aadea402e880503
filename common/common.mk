# common.mk: the shared harness's sources, compiled once into common/build and
# linked into every step's program (with the track's own: reduction or matmul).
# A new shared source is one more name here.
COMMON_SOURCES := harness audit
TRACKS := reduction matmul
