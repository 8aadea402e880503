#!/usr/bin/env bats
# bats file_tags=step:05,track:reduction
# 05-reduction-sequential: sequential addressing (bank conflicts gone).
# It builds; it is right at every block size it accepts and at the sizes that
# catch the usual mistakes; it beats its starting kernel by the threshold.

STEP=05-reduction-sequential
SPEED_ARGS="-n 2^26 -b 256"
LESSON_ARGS="-n 2^20 -b 256 -r 1"
LESSON_START=reduce_interleaved_strided
LESSON_METRIC=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum+l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum/launch__grid_size
LESSON_WHAT='shared-memory bank conflicts per block'
LESSON_FIX='Threads of a warp still hit the same bank: at level s, let thread tid add partial[tid + s] into partial[tid], with s going down from blockDim.x / 2, so that a warp touches 32 consecutive ints.'
load lib

@test "05 builds" { grade_build; }
@test "05 correct with block 32" { grade_check 32 $(reduction_sizes 32); }
@test "05 correct with block 64" { grade_check 64 $(reduction_sizes 64); }
@test "05 correct with block 128" { grade_check 128 $(reduction_sizes 128); }
@test "05 correct with block 256" { grade_check 256 $(reduction_sizes 256); }
@test "05 correct with block 512" { grade_check 512 $(reduction_sizes 512); }
@test "05 correct with block 1024" { grade_check 1024 $(reduction_sizes 1024); }
@test "05 faster than its starting kernel" { grade_speed; }
@test "05 lesson: no bank conflicts" { grade_lesson; }
@test "05 clean under compute-sanitizer" { grade_sanitize; }
@test "05 integrity of your file" { grade_integrity; }
@test "05 launch audit" { grade_launch_audit 128 1 1000003 67108864; }
