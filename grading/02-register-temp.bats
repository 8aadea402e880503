#!/usr/bin/env bats
# bats file_tags=step:02,track:matmul
# 02-register-temp: register accumulator, one store per element.
# It builds; it is right at every size that catches the usual mistakes, with
# several block shapes; it beats its starting kernel by the threshold.

STEP=02-register-temp
SPEED_ARGS="-n 2048 -b 16x16"
LESSON_ARGS="-n 256 -b 16x16 -r 1"
LESSON_START=matmul_naive
LESSON_METRIC=l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
LESSON_WHAT='global store requests'
LESSON_FIX='Your kernel still writes C inside the k loop: add into a local variable (a register) and store C[row][col] once, after the loop.'
load lib

@test "02 builds" { grade_build; }
@test "02 correct with block 16x16" { grade_check 16x16 $(matmul_sizes); }
@test "02 correct with block 32x32" { grade_check 32x32 $(matmul_sizes); }
@test "02 correct with block 32x8" { grade_check 32x8 $(matmul_sizes); }
@test "02 correct with block 8x32" { grade_check 8x32 $(matmul_sizes); }
@test "02 correct with block 13x7" { grade_check 13x7 $(matmul_sizes); }
@test "02 faster than its starting kernel" { grade_speed; }
@test "02 lesson: one store per element of C" { grade_lesson; }
@test "02 clean under compute-sanitizer" { grade_sanitize; }
@test "02 integrity of your file" { grade_integrity; }
@test "02 launch audit" { grade_launch_audit 16x16 1000 2048; }
