#!/usr/bin/env bash
# The scaling study of gpufem run under mpirun, one rank per GPU, in one call on a machine with
# one or more NVIDIA GPUs (docs/several_gpus.md); FORMAT picks the stored format (default csr):
#   strong  a fixed Q1 cube (STRONG_H, default 0.0025: 64.5M unknowns) with CG + Jacobi on
#           1, 2, 4, ... every GPU
#   strong_single  the same with the single-reduction CG (one all-reduce per iteration)
#   strong_pmg     the same cube with PCG and p-multigrid (scale_cube_q1_64m)
#   weak    Q1 cubes of about WEAK_PER_GPU unknowns per GPU (default 32e6) on 1, 2, 4, ...
#   weak_pmg       Q1 cubes of about WEAK_PMG_PER_GPU unknowns per GPU (default 32e6; the
#           largest that fits is about 50M on an H100, 100M on an H200) with p-multigrid
#   one     the one-GPU run with and without mpirun -np 1 (the cost of the launcher)
#   big     BIG_H (default 0.001575: 257M unknowns) on every GPU, mesh to result.pvtu, when the
#           machine has at least BIG_MIN_GPUS GPUs (default 4)
# Each run's report.json goes to $OUT (default ./scaling_out) with a table of unknowns,
# iterations, the slowest rank's phases, the preconditioner's setup and setup + solve, time per
# iteration, halo bytes and the wall time.
# Expects the bundle of scripts/gpu_check.sh (BUNDLE, default .device/gpufem.tar.xz); NCCL from
# the bundle or the machine's Python nvidia-nccl wheel. STAGES picks a part ("strong weak").
set -uo pipefail
OUT=${OUT:-$PWD/scaling_out}
mkdir -p "$OUT" /tmp/gpufem_runs
tar xJf "${BUNDLE:-.device/gpufem.tar.xz}" -C /tmp
gpus=$(nvidia-smi -L | wc -l)
nccl=$(dirname "$(ls /tmp/bundle/lib/libnccl.so.2 2>/dev/null || find / -name libnccl.so.2 -path '*nvidia*' 2>/dev/null | head -1)")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
libs=/tmp/bundle/lib:/usr/local/cuda/lib64:$nccl
counts() { local n=1; while (( n < gpus )); do echo $n; n=$((n * 2)); done; echo "$gpus"; }
# One run: name, ranks, mesh size h, extra arguments (a later --set solver.preconditioner
# overrides Jacobi); its report.json to $OUT/<name>.json.
run_case() {
  local name=$1 ranks=$2 h=$3; shift 3
  local start=$(date +%s.%N)
  timeout 580 /usr/bin/mpirun -np "$ranks" --oversubscribe --bind-to none -x LD_LIBRARY_PATH=$libs -x NCCL_NVLS_ENABLE=0 \
    /tmp/bundle/bin/gpufem run cases/benchmarks/bench_cube_4m.yaml --backend cuda -o /tmp/gpufem_runs/$name \
    --set solver.preconditioner=jacobi --set format=${FORMAT:-csr} --set mesh.size=$h "$@" > "$OUT/$name.log" 2>&1 ||
    echo "$name: exit $? ($(tail -2 "$OUT/$name.log"))"
  echo "$name: prompt to prompt $(python3 -c "print(round($(date +%s.%N) - $start, 2))") s" >> "$OUT/prompt.txt"
  cp /tmp/gpufem_runs/$name/report.json "$OUT/$name.json" 2>/dev/null
}
weak_h() { python3 -c "print(1 / round(($1 * $2) ** (1 / 3) - 1))"; }
# For p-multigrid: cells per side a multiple of 16, so that the grid halves four times (199
# nodes per side would halve once and leave the coarse AMG a large level).
weak_h_mg() { python3 -c "print(1 / (16 * max(1, round((($1 * $2) ** (1 / 3) - 1) / 16))))"; }
{
  nvidia-smi -L; nvidia-smi topo -m; echo "nproc $(nproc); NCCL from $nccl"
  for stage in ${STAGES:-strong strong_single strong_pmg weak weak_pmg one big}; do
    case $stage in
      strong) for n in $(counts); do run_case strong_np$n "$n" "${STRONG_H:-0.0025}" --set output.write=false; done ;;
      strong_single)
        for n in $(counts); do
          run_case strong1_np$n "$n" "${STRONG_H:-0.0025}" --set output.write=false --set solver.variant=single_reduction
        done ;;
      strong_pmg)
        for n in $(counts); do
          run_case strongmg_np$n "$n" "${STRONG_H:-0.0025}" --set output.write=false --set solver.preconditioner=pmg
        done ;;
      weak) for n in $(counts); do run_case weak_np$n "$n" "$(weak_h "${WEAK_PER_GPU:-32e6}" "$n")" --set output.write=false; done ;;
      weak_pmg)
        for n in $(counts); do
          run_case weakmg_np$n "$n" "$(weak_h_mg "${WEAK_PMG_PER_GPU:-32e6}" "$n")" --set output.write=false \
            --set solver.preconditioner=pmg
        done ;;
      one)
        run_case one_mpirun 1 "${STRONG_H:-0.0025}" --set output.write=false
        start=$(date +%s.%N)
        LD_LIBRARY_PATH=$libs /tmp/bundle/bin/gpufem run cases/benchmarks/bench_cube_4m.yaml --backend cuda -q \
          -o /tmp/gpufem_runs/one_plain --set solver.preconditioner=jacobi --set format=${FORMAT:-csr} --set mesh.size="${STRONG_H:-0.0025}" \
          --set output.write=false > "$OUT/one_plain.log" 2>&1 || echo "one_plain: exit $?"
        echo "one_plain: prompt to prompt $(python3 -c "print(round($(date +%s.%N) - $start, 2))") s" >> "$OUT/prompt.txt"
        cp /tmp/gpufem_runs/one_plain/report.json "$OUT/one_plain.json" 2>/dev/null ;;
      big)
        if (( gpus >= ${BIG_MIN_GPUS:-4} )); then
          run_case big_np$gpus "$gpus" "${BIG_H:-0.001575}"
          du -sh /tmp/gpufem_runs/big_np$gpus; ls /tmp/gpufem_runs/big_np$gpus | head
          rm -rf /tmp/gpufem_runs/big_np$gpus
        else
          echo "big: $gpus GPUs, fewer than ${BIG_MIN_GPUS:-4}: not run"
        fi ;;
    esac
  done
  cat "$OUT/prompt.txt"
  python3 - "$OUT" <<'PY'
import glob, json, os, sys
cols = ['startup', 'mesh', 'partition', 'scatter', 'assembly', 'operator', 'setup', 'solve', 'output']
print(f"{'run':<14}{'ranks':>6}{'rows':>11}{'its':>6}" + ''.join(f"{c[:8]:>9}" for c in cols) +
      f"{'set+sol':>9}{'us/it':>8}{'spmv us':>8}{'halo MB':>9}{'wall':>8}")
for f in sorted(glob.glob(os.path.join(sys.argv[1], '*.json'))):
    r = json.load(open(f)); t = r['times']; its = r['solver']['iterations']; par = r.get('parallel', {})
    phases = par.get('phases', {})
    def slowest(c):
        key = 'preconditioner_setup' if c == 'setup' else c
        if key in phases: return phases[key]['max']
        return {'startup': t.get('startup', 0), 'mesh': t.get('mesh', 0), 'assembly': t['assembly']['total'],
                'operator': t['format_conversion'], 'setup': t['preconditioner_setup'],
                'solve': t['solve'] - t['preconditioner_setup'], 'output': t.get('output', 0)}.get(c, 0)
    solve = slowest('solve')
    both = slowest('setup') + solve
    print(f"{os.path.basename(f)[:-5]:<14}{par.get('ranks', 1):>6}{r['matrix']['rows']:>11}{its:>6}" +
          ''.join(f"{slowest(c):>9.3f}" for c in cols) + f"{both:>9.3f}" +
          f"{1e6 * solve / max(its, 1):>8.1f}{1e6 * r.get('spmv', {}).get('median_seconds', 0):>8.1f}{par.get('halo_bytes_per_product', 0) / 1e6:>9.2f}{t['wall']:>8.2f}")
PY
} 2>&1 | tee "$OUT/log_scaling.txt"
