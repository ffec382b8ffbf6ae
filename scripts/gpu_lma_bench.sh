#!/usr/bin/env bash
# LMA on a GPU machine: the LMA GPU tests (with compute-sanitizer on the apply
# kernels), the apply kernels side by side at 2D Q3 / 3D Q3, and the degree sweeps of
# Reguly & Giles 2012, Figures 17-18 (Q1-Q4, 2D and 3D, about 1M unknowns, FP64 and FP32): bytes per row,
# SpMV time, % of copy bandwidth and CG iterations per second of the assembled formats and
# the lma variants. About 4-5 minutes on an H100.
# Expects the bundle extracted at /tmp/bundle, made by
#   scripts/bundle.sh .device/gpufem.tar.xz build/gpufem build/test_lma_gpu
# and run from the repository root (it reads cases/). Writes under $OUT (default ./gpu_out):
# log.txt (everything printed), sweep_{2d,3d}_{double,float}.csv (every row of every sweep
# point) and kernels_{2d,3d}.csv.
set -uo pipefail
OUT=${OUT:-$PWD/gpu_out}
runs=/tmp/gpufem_lma_runs
mkdir -p "$OUT" "$runs"
run() { /tmp/bundle/run "$@"; }
sanitize() {  # tool, gtest filter
  LD_LIBRARY_PATH=/tmp/bundle/lib:/usr/local/cuda/lib64 timeout 240 compute-sanitizer --tool "$1" \
    --print-limit 20 /tmp/bundle/bin/test_lma_gpu --gtest_filter="$2" --gtest_brief=1 2>&1 | tail -6
}
assembled=csr,ellr,sellp,staircase,cusparse,cusparse-sell
{
  nvidia-smi -L
  echo "== test_lma_gpu"
  (cd /tmp && timeout 300 /tmp/bundle/run test_lma_gpu --gtest_brief=1 2>&1 | tail -30)
  echo "== compute-sanitizer"
  sanitize memcheck 'LmaOperatorGpu.EveryKernelMatchesCpuOnRandomMatricesDouble:LmaOperatorGpu.Q4HexahedraMatchCpu'
  sanitize racecheck 'LmaOperatorGpu.EveryKernelMatchesCpuOnRandomMatricesFloat'
  echo "== every apply kernel, FP64: 2D Q3 and 3D Q3 (about 1M unknowns)"
  for c in "quads 2d" "hexes 3d"; do
    set -- $c
    run gpufem bench spmv cases/benchmarks/lma_sweep_$1_1m.yaml --backend cuda --set degree=3 \
      --set mesh.size=$([[ $2 == 2d ]] && echo 0.001 || echo 0.01) \
      -f csr,cusparse-sell,lma-all:all -o $runs/kernels_$2 2>&1 | grep -v "\[info\]"
    cp $runs/kernels_$2/bench_spmv.csv "$OUT/kernels_$2.csv" 2>/dev/null
  done
  for precision in double float; do
    for c in "quads 2d" "hexes 3d"; do
      set -- $c
      echo "== degree sweep $2, $precision: assembled formats against lma (auto kernel)"
      run gpufem bench spmv cases/benchmarks/lma_sweep_$1_1m.yaml --backend cuda --set precision=$precision \
        -f $assembled,lma-all -o $runs/sweep_$2_$precision 2>&1 | grep -v "\[info\]"
      cp $runs/sweep_$2_$precision/bench_sweep.csv "$OUT/sweep_$2_$precision.csv" 2>/dev/null
    done
  done
} 2>&1 | tee "$OUT/log.txt"
