#!/usr/bin/env bats
# bats file_tags=step:01,track:matmul
# 01-naive-matmul: coalesced naive kernel, any N.
# It builds; it is right at every size that catches the usual mistakes, with
# several block shapes; it beats its starting kernel by the threshold.

STEP=01-naive-matmul
SPEED_ARGS="-n 2048 -b 16x16"
load lib

@test "01 builds" { grade_build; }
@test "01 correct with block 16x16" { grade_check 16x16 $(matmul_sizes); }
@test "01 correct with block 32x32" { grade_check 32x32 $(matmul_sizes); }
@test "01 correct with block 32x8" { grade_check 32x8 $(matmul_sizes); }
@test "01 correct with block 8x32" { grade_check 8x32 $(matmul_sizes); }
@test "01 correct with block 13x7" { grade_check 13x7 $(matmul_sizes); }
@test "01 faster than its starting kernel" { grade_speed; }
@test "01 integrity of your file" { grade_integrity; }
@test "01 launch audit" { grade_launch_audit 16x16 1000 2048; }
