#!/usr/bin/env bash
# The CPU backend on a shared machine: CG on cases/examples/01_poisson_square.yaml at degree 2,
# h = 0.004 (251,001 unknowns), with 1 and 2 threads, on a quiet machine and beside a process
# that keeps one core busy, with OpenMP's idle threads sleeping (gpufem's default) and spinning
# (OMP_WAIT_POLICY=active). Prints the median seconds per CG iteration of REPEATS runs each.
# Usage: scripts/cpu_shared_bench.sh [gpufem executable] (default build/gpufem); REPEATS=5.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
gpufem=${1:-$here/build/gpufem}
repeats=${REPEATS:-5}
out=$(mktemp -d)
trap 'rm -rf "$out"; [[ -n ${busy:-} ]] && kill "$busy" 2>/dev/null || true' EXIT
per_iteration() {  # policy threads -> median s/iteration
  local policy=$1 threads=$2 times=()
  for ((k = 0; k < repeats; ++k)); do
    OMP_WAIT_POLICY=$policy "$gpufem" run "$here/cases/examples/01_poisson_square.yaml" --backend cpu -q \
      --threads "$threads" -o "$out/run" --set degree=2 --set mesh.size=0.004 \
      --set output.write=false > /dev/null
    times+=("$(/usr/bin/python3 -c "import json; print(json.load(open('$out/run/report.json'))['solver']['seconds_per_iteration'])")")
  done
  printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END {printf "%.3f", 1000*a[int((NR+1)/2)]}'
}
echo "CPUs: $(nproc), repeats: $repeats; ms per CG iteration (median)"
printf '%-10s %-8s %10s %10s\n' neighbour policy "1 thread" "2 threads"
for neighbour in quiet busy; do
  if [[ $neighbour == busy ]]; then yes > /dev/null & busy=$!; sleep 0.5; fi
  for policy in passive active; do
    printf '%-10s %-8s %10s %10s\n' "$neighbour" "$policy" "$(per_iteration $policy 1)" \
      "$(per_iteration $policy 2)"
  done
done
