#!/usr/bin/env bats
# bats file_tags=step:07,track:reduction
# 07-unrolled: last warp and whole tree unrolled.
# It builds; it is right at every block size it accepts and at the sizes that
# catch the usual mistakes; it beats its starting kernel by the threshold.

STEP=07-unrolled
SPEED_ARGS="-n 2^26 -b 256"
load lib

@test "07 builds" { grade_build; }
@test "07 correct with block 32" { grade_check 32 $(reduction_sizes 32); }
@test "07 correct with block 64" { grade_check 64 $(reduction_sizes 64); }
@test "07 correct with block 128" { grade_check 128 $(reduction_sizes 128); }
@test "07 correct with block 256" { grade_check 256 $(reduction_sizes 256); }
@test "07 correct with block 512" { grade_check 512 $(reduction_sizes 512); }
@test "07 correct with block 1024" { grade_check 1024 $(reduction_sizes 1024); }
@test "07 faster than its starting kernel" { grade_speed; }
@test "07 integrity of your file" { grade_integrity; }
@test "07 launch audit" { grade_launch_audit 128 1 1000003 67108864; }
