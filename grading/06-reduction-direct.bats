#!/usr/bin/env bats
# bats file_tags=step:06,track:reduction
# 06-reduction-direct: two elements per thread, one atomic per block, one pass.
# It builds; it is right at every block size it accepts and at the sizes that
# catch the usual mistakes; it beats its starting kernel by the threshold.

STEP=06-reduction-direct
SPEED_ARGS="-n 2^26 -b 256"
load lib

@test "06 builds" { grade_build; }
@test "06 correct with block 32" { grade_check 32 $(reduction_sizes 32); }
@test "06 correct with block 64" { grade_check 64 $(reduction_sizes 64); }
@test "06 correct with block 128" { grade_check 128 $(reduction_sizes 128); }
@test "06 correct with block 256" { grade_check 256 $(reduction_sizes 256); }
@test "06 correct with block 512" { grade_check 512 $(reduction_sizes 512); }
@test "06 correct with block 1024" { grade_check 1024 $(reduction_sizes 1024); }
@test "06 faster than its starting kernel" { grade_speed; }
@test "06 clean under compute-sanitizer" { grade_sanitize; }
@test "06 integrity of your file" { grade_integrity; }
@test "06 launch audit" { grade_launch_audit 128 1 1000003 67108864; }
