#!/usr/bin/env bats
# bats file_tags=step:07,track:reduction
# 07-unrolled: last warp and whole tree unrolled.
# It builds; it is right at every block size it accepts and at the sizes that
# catch the usual mistakes; it beats its starting kernel by the threshold.

STEP=07-unrolled
SPEED_ARGS="-n 2^26 -b 256"
LESSON_ARGS="-n 2^20 -b 256 -r 1"
LESSON_START=reduce_first_add
LESSON_METRIC=smsp__inst_executed.sum/launch__grid_size
LESSON_PICK=last
LESSON_WHAT='warp-instructions per block'
LESSON_FIX='The loop over the levels, its counter and its barriers are still there: make the block size a template parameter (template <unsigned int BLOCK>), write the levels as if (BLOCK >= 512) { ... } and so on, and launch the instance for the block size asked for.'
load lib

@test "07 builds" { grade_build; }
@test "07 correct with block 32" { grade_check 32 $(reduction_sizes 32); }
@test "07 correct with block 64" { grade_check 64 $(reduction_sizes 64); }
@test "07 correct with block 128" { grade_check 128 $(reduction_sizes 128); }
@test "07 correct with block 256" { grade_check 256 $(reduction_sizes 256); }
@test "07 correct with block 512" { grade_check 512 $(reduction_sizes 512); }
@test "07 correct with block 1024" { grade_check 1024 $(reduction_sizes 1024); }
@test "07 faster than its starting kernel" { grade_speed; }
@test "07 lesson: the tree unrolled: fewer instructions" { grade_lesson; }
@test "07 clean under compute-sanitizer" { grade_sanitize; }
@test "07 integrity of your file" { grade_integrity; }
@test "07 launch audit" { grade_launch_audit 128 1 1000003 67108864; }
