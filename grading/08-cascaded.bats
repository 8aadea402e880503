#!/usr/bin/env bats
# bats file_tags=step:08,track:reduction
# 08-cascaded: many elements per thread, grid sized to the GPU.
# It builds; it is right at every block size it accepts and at the sizes that
# catch the usual mistakes; it beats its starting kernel by the threshold.

STEP=08-cascaded
SPEED_ARGS="-n 2^26 -b 256"
PCT_HINT='The lesson of this step is reaching the limit of the memory: size the grid from the GPU (its SM count times the blocks one SM holds) and let each thread add many elements in a grid-stride loop; a grid of one block per few elements keeps the GPU busy scheduling blocks instead of reading memory.'
load lib

@test "08 builds" { grade_build; }
@test "08 correct with block 32" { grade_check 32 $(reduction_sizes 32); }
@test "08 correct with block 64" { grade_check 64 $(reduction_sizes 64); }
@test "08 correct with block 128" { grade_check 128 $(reduction_sizes 128); }
@test "08 correct with block 256" { grade_check 256 $(reduction_sizes 256); }
@test "08 correct with block 512" { grade_check 512 $(reduction_sizes 512); }
@test "08 correct with block 1024" { grade_check 1024 $(reduction_sizes 1024); }
@test "08 faster than its starting kernel" { grade_speed; }
@test "08 clean under compute-sanitizer" { grade_sanitize; }
@test "08 integrity of your file" { grade_integrity; }
@test "08 launch audit" { grade_launch_audit 128 1 1000003 67108864; }
