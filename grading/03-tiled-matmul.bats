#!/usr/bin/env bats
# bats file_tags=step:03,track:matmul
# 03-tiled-matmul: shared-memory tiles, any N.
# It builds; it is right at every size that catches the usual mistakes, with
# several block shapes; it beats its starting kernel by the threshold.

STEP=03-tiled-matmul
SPEED_ARGS="-n 2048 -b 32"
LESSON_ARGS="-n 256 -b 16 -r 1"
LESSON_START=matmul_register
LESSON_METRIC=l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
LESSON_WHAT='global load requests'
LESSON_FIX='Each element of A and B should be read from global memory once per tile, into shared memory, and then used TILE times from there: load the tiles of A and B, __syncthreads(), run the k loop over the shared tiles.'
load lib

@test "03 builds" { grade_build; }
@test "03 correct with block 8" { grade_check 8 $(matmul_sizes); }
@test "03 correct with block 16" { grade_check 16 $(matmul_sizes); }
@test "03 correct with block 32" { grade_check 32 $(matmul_sizes); }
@test "03 faster than its starting kernel" { grade_speed; }
@test "03 lesson: tiles cut the global loads" { grade_lesson; }
@test "03 clean under compute-sanitizer" { grade_sanitize; }
@test "03 integrity of your file" { grade_integrity; }
@test "03 launch audit" { grade_launch_audit 32 1000 2048; }
