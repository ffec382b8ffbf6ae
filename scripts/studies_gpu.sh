#!/usr/bin/env bash
# The shipped studies (cases/studies/*.yaml: the papers' figures) on one GPU, in one call:
#   scripts/bundle.sh .device/gpufem.tar.xz build/gpufem build/gpufem-mesh-worker
#   # on the GPU machine, from the repository root of a checkout of the same commit:
#   scripts/studies_gpu.sh                     # every study
#   STUDIES="cases/studies/bdia_band.yaml" scripts/studies_gpu.sh   # some of them
# Writes under $OUT (default ./gpu_out): device.txt (nvidia-smi), studies/<name>/ (study.json,
# study.csv, study.md, the plots when the machine has python3-matplotlib, points/<point>/
# report.json and spmv_timings.csv) and studies/<name>.log, and prints each study's time.
# The studies share a time limit (TOTAL_LIMIT seconds, default 540, within a 10-minute call);
# a study stopped by it keeps the points it finished in study.json: run the script again with
# RESUME_FROM=<an earlier $OUT>/studies (carried to the machine) to go on from there. Without
# matplotlib on the GPU machine, draw the plots afterwards where it is installed:
#   build/gpufem report gpu_out/studies/<name>
set -uo pipefail
OUT=${OUT:-$PWD/gpu_out}
mkdir -p "$OUT/studies"
tar xJf "${BUNDLE:-.device/gpufem.tar.xz}" -C /tmp
export GPUFEM_PLOT_SCRIPT="$PWD/scripts/gpufem_plots.py"
nvidia-smi --query-gpu=name,memory.total,clocks.max.memory,driver_version --format=csv > "$OUT/device.txt" 2>&1
read -r -a studies <<< "${STUDIES:-$(echo cases/studies/*.yaml)}"
total_start=$(date +%s%N)
deadline=$(($(date +%s) + ${TOTAL_LIMIT:-540}))
for study in "${studies[@]}"; do
  name=$(basename "$study" .yaml)
  left=$((deadline - $(date +%s)))
  if ((left < 15)); then echo "$name: not run, no time left (TOTAL_LIMIT)"; continue; fi
  if [[ -n ${RESUME_FROM:-} && -f $RESUME_FROM/$name/study.json ]]; then
    cp -r "$RESUME_FROM/$name" "$OUT/studies/"
  fi
  start=$(date +%s%N)
  timeout --signal=TERM "$left" /tmp/bundle/run gpufem study "$study" --backend cuda \
    -o "$OUT/studies/$name" > "$OUT/studies/$name.log" 2>&1
  status=$?
  printf '%-24s exit %3d  %6d ms  %s\n' "$name" "$status" $((($(date +%s%N) - start) / 1000000)) \
    "$(grep -c '^\[' "$OUT/studies/$name.log") points"
  tail -3 "$OUT/studies/$name.log" | sed 's/^/    /'
done
printf 'all studies: %d ms\n' $((($(date +%s%N) - total_start) / 1000000))
