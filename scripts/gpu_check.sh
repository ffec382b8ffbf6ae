#!/usr/bin/env bash
# GPU checks in one go, for a lent GPU machine (see README "Running on a GPU machine").
# Expects the bundle made by:
#   ../shared/tools/bundle .device/gpufem.tar.xz build/gpufem build/test_*
# and writes logs and reports under $OUT (default ./gpu_out).
set -uo pipefail
OUT=${OUT:-$PWD/gpu_out}
mkdir -p "$OUT" /tmp/gpufem_runs
tar xJf .device/gpufem.tar.xz -C /tmp
run() { /tmp/bundle/run "$@"; }
export GPUFEM_EXECUTABLE="/tmp/bundle/run gpufem"
log=$OUT/log.txt
{
  nvidia-smi -L
  echo "nproc $(nproc), OMP_NUM_THREADS=${OMP_NUM_THREADS:-unset}, cpu.max $(cat /sys/fs/cgroup/cpu.max 2>/dev/null)"
  echo "== gpu-labelled and unit tests"
  for t in test_linalg test_linalg_gpu test_assembly test_assembly_gpu test_mesh test_solver \
           test_end_to_end test_end_to_end_gpu; do
    echo "-- $t"
    (cd /tmp && timeout 400 /tmp/bundle/run $t --gtest_brief=1 2>&1 | tail -25)
  done
  echo "== compute-sanitizer memcheck (kernels on small inputs)"
  export LD_LIBRARY_PATH=/tmp/bundle/lib:/usr/local/cuda/lib64
  timeout 300 compute-sanitizer --tool memcheck --print-limit 20 /tmp/bundle/bin/test_assembly_gpu \
      --gtest_brief=1 2>&1 | tail -15
  timeout 300 compute-sanitizer --tool memcheck --print-limit 20 /tmp/bundle/bin/test_linalg_gpu \
      --gtest_brief=1 2>&1 | tail -15
  timeout 300 compute-sanitizer --tool racecheck --print-limit 20 /tmp/bundle/bin/test_linalg_gpu \
      --gtest_filter='*Blas1*' --gtest_brief=1 2>&1 | tail -15
  unset LD_LIBRARY_PATH
  for c in ${GPU_CHECK_CASES:-poisson_square poisson_cube}; do
    for b in cuda cpu; do
      echo "== case $c on $b"
      run gpufem run cases/$c.yaml --backend $b -q -o /tmp/gpufem_runs/${c}_$b 2>&1 | tail -16
      cp /tmp/gpufem_runs/${c}_$b/report.json "$OUT/${c}_$b.json" 2>/dev/null
    done
    echo "== $c: cuda against cpu"
    run gpufem compare /tmp/gpufem_runs/${c}_cpu/result.vtu /tmp/gpufem_runs/${c}_cuda/result.vtu
  done
  echo "== poisson_cube on cuda: other formats and float"
  for extra in "--set format=csr-scalar" "--set format=cusparse" "--set precision=float --set solver.tolerance=1e-6"; do
    echo "-- $extra"
    run gpufem run cases/poisson_cube.yaml --backend cuda -q -o /tmp/gpufem_runs/extra $extra 2>&1 | \
      grep -E "precision|assembly time|solve time|SpMV|error  "
  done
  echo "== bench spmv"
  for extra in "" "--set precision=float"; do
    run gpufem bench spmv cases/bench_cube_4m.yaml --backend cuda -o /tmp/gpufem_runs/bench $extra 2>&1 | \
      grep -v "\[info\]"
  done
  cp /tmp/gpufem_runs/bench/bench_spmv.json "$OUT/bench_spmv_float.json" 2>/dev/null
} 2>&1 | tee "$log"
