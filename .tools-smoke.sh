#!/usr/bin/env bash
# Smoke test of the two-program design on a GPU.
exec 2>&1
export PATH=$PWD/.tools/bin:$PWD/.tools/bats/bin:$PATH BATS_LIB_PATH=$PWD/.tools/bats/lib/bats
nvidia-smi -L
time make -s -j16 SM=90 >/dev/null || { echo BUILD FAILED; make -s SM=90 2>&1 | tail -30; exit 1; }
for s in 01-naive-matmul/naive_matmul 04-reduction-interleaved/reduction_interleaved 06-reduction-direct/reduction_direct 07-unrolled/unrolled 08-cascaded/cascaded 03-tiled-matmul/tiled_matmul; do
  echo "=== $s"
  ./${s}_solution --check -n 1,33,1000003 -b $( [[ $s == 0[123]* ]] && echo 16x16 || echo 32,256,1024 ) ; echo "check status $?"
  ./${s}_solution -r 20 | tail -12; echo "timed status ${PIPESTATUS[0]}"
  ./${s} --check -n 1000 | tail -3; echo "exercise status ${PIPESTATUS[0]}"
done
./04-reduction-interleaved/reduction_interleaved_solution --machine --check -n 1000 -b 256 | head -20
echo "=== sanitize 04 (both runs)"; time make -s -C 04-reduction-interleaved sanitize SOLUTION=1 | tail -12
echo "=== sanitize 03 timed"; time make -s -C 03-tiled-matmul sanitize SOLUTION=1 | tail -6
echo "=== ncu lesson 04"; time ncu --clock-control none --print-kernel-base mangled --metrics smsp__sass_inst_executed_op_shared_st.sum,launch__grid_size --csv --page raw 04-reduction-interleaved/reduction_interleaved_solution --check --only start,yours -n 2^20 -b 256 | tail -8
