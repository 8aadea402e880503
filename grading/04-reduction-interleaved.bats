#!/usr/bin/env bats
# bats file_tags=step:04,track:reduction
# 04-reduction-interleaved: interleaved, strided index (divergence gone).
# It builds; it is right at every block size it accepts and at the sizes that
# catch the usual mistakes; it beats its starting kernel by the threshold.

STEP=04-reduction-interleaved
SPEED_ARGS="-n 2^26 -b 256"
LESSON_ARGS="-n 2^20 -b 256 -r 1"
LESSON_START=reduce_interleaved_divergent
LESSON_METRIC=smsp__sass_inst_executed_op_shared_st.sum/launch__grid_size
LESSON_WHAT='warp-level shared-memory stores per block (the load, and the add of each level in every warp that has a busy thread)'
LESSON_FIX='The busy threads are still spread over every warp, so every warp runs the add at every level: hand the pairs of level s to threads 0, 1, 2, ... (index = 2 * s * tid), so that whole warps are busy or idle.'
load lib

@test "04 builds" { grade_build; }
@test "04 correct with block 32" { grade_check 32 $(reduction_sizes 32); }
@test "04 correct with block 64" { grade_check 64 $(reduction_sizes 64); }
@test "04 correct with block 128" { grade_check 128 $(reduction_sizes 128); }
@test "04 correct with block 256" { grade_check 256 $(reduction_sizes 256); }
@test "04 correct with block 512" { grade_check 512 $(reduction_sizes 512); }
@test "04 correct with block 1024" { grade_check 1024 $(reduction_sizes 1024); }
@test "04 faster than its starting kernel" { grade_speed; }
@test "04 lesson: whole warps idle, not threads spread over every warp" { grade_lesson; }
@test "04 clean under compute-sanitizer" { grade_sanitize; }
@test "04 integrity of your file" { grade_integrity; }
@test "04 launch audit" { grade_launch_audit 128 1 1000003 67108864; }
