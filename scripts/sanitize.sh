#!/usr/bin/env bash
# AddressSanitizer + UndefinedBehaviorSanitizer and libFuzzer (docs/development.md).
#   scripts/sanitize.sh build    clang build of the CPU backend with both sanitizers and the
#                                fuzz targets, in ./build-sanitize (installs clang, libomp-dev)
#   scripts/sanitize.sh tests    the test suite under the sanitizers (GPU tests skip)
#   scripts/sanitize.sh fuzz [SECONDS]   each fuzz target for SECONDS (default 600) from the
#                                seeds in tests/fuzz/corpus, new inputs in build-sanitize/corpus
# Not part of .ci/run: the sanitizer build is a second full build of gpufem (about 25 minutes
# on a 2-core machine), which would triple CI's time; run it when touching input handling.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
dir="$here/build-sanitize"
stage=${1:-build}
# Leaks are not checked: VTK, Gmsh and OpenMP keep their singletons to the end of the process.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
case $stage in
  build)
    for p in clang libomp-dev; do
      dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$p"
    done
    cmake -S "$here" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
      -DGPUFEM_SANITIZE=ON -DGPUFEM_FUZZ=ON -DGPUFEM_ENABLE_CUDA=OFF
    cmake --build "$dir" -j "${GPUFEM_BUILD_JOBS:-$("$here/scripts/build_jobs.sh")}"
    ;;
  tests)
    ctest --test-dir "$dir" -LE gpu -j "${GPUFEM_BUILD_JOBS:-$("$here/scripts/build_jobs.sh")}" --output-on-failure
    ;;
  fuzz)
    seconds=${2:-600}
    for target in case_file set_override msh geo matrix_market; do
      mkdir -p "$dir/corpus/$target" "$dir/findings/$target"
      echo "== fuzz_$target for $seconds s"
      (cd "$dir/findings/$target" &&
        "$dir/fuzz_$target" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 \
          -malloc_limit_mb=1024 -print_final_stats=1 "$dir/corpus/$target" \
          "$here/tests/fuzz/corpus/$target" 2>&1 | grep -E "^stat::|ERROR|SUMMARY|Test unit written" || true)
    done
    ;;
  *) echo "usage: $0 build | tests | fuzz [SECONDS]" >&2; exit 1 ;;
esac
