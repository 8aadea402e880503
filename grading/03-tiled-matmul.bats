#!/usr/bin/env bats
# bats file_tags=step:03,track:matmul
# 03-tiled-matmul: shared-memory tiles, any N.
# It builds; it is right at every size that catches the usual mistakes, with
# several block shapes; it beats its starting kernel by the threshold.

STEP=03-tiled-matmul
SPEED_ARGS="-n 2048 -b 32"
load lib

@test "03 builds" { grade_build; }
@test "03 correct with block 8" { grade_check 8 $(matmul_sizes); }
@test "03 correct with block 16" { grade_check 16 $(matmul_sizes); }
@test "03 correct with block 32" { grade_check 32 $(matmul_sizes); }
@test "03 faster than its starting kernel" { grade_speed; }
@test "03 integrity of your file" { grade_integrity; }
@test "03 launch audit" { grade_launch_audit 32 1000 2048; }
