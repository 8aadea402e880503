#!/usr/bin/env bats
# bats file_tags=step:01,track:matmul
# 01-naive-matmul: coalesced naive kernel, any N.
# It builds; it is right at every size that catches the usual mistakes, with
# several block shapes; it beats its starting kernel by the threshold.

STEP=01-naive-matmul
SPEED_ARGS="-n 2048 -b 16x16"
LESSON_ARGS="-n 256 -b 16x16 -r 1"
LESSON_START=matmul_uncoalesced
LESSON_METRIC=l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum+l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum/l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum+l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
LESSON_WHAT='32-byte sectors per global load and store request (4 is a warp reading 32 consecutive floats)'
LESSON_FIX='The threads of a warp still touch addresses far apart: give consecutive threadIdx.x consecutive columns (col from threadIdx.x, row from threadIdx.y), so that a warp reads a row of B and writes a row of C in one go.'
load lib

@test "01 builds" { grade_build; }
@test "01 correct with block 16x16" { grade_check 16x16 $(matmul_sizes); }
@test "01 correct with block 32x32" { grade_check 32x32 $(matmul_sizes); }
@test "01 correct with block 32x8" { grade_check 32x8 $(matmul_sizes); }
@test "01 correct with block 8x32" { grade_check 8x32 $(matmul_sizes); }
@test "01 correct with block 13x7" { grade_check 13x7 $(matmul_sizes); }
@test "01 faster than its starting kernel" { grade_speed; }
@test "01 lesson: coalesced: few sectors per request" { grade_lesson; }
@test "01 clean under compute-sanitizer" { grade_sanitize; }
@test "01 integrity of your file" { grade_integrity; }
@test "01 launch audit" { grade_launch_audit 16x16 1000 2048; }
