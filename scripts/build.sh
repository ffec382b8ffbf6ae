#!/usr/bin/env bash
# Sets up the machine (scripts/setup.sh), configures and builds gpufem into ./build.
# Extra arguments are passed to CMake's configure step (e.g. -DGPUFEM_ENABLE_CUDA=OFF).
# Jobs: GPUFEM_BUILD_JOBS, else the machine's cores, at most one per 2 GiB of available memory
# (the largest CUDA and C++ translation units take up to about 1.5 GB each).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bash "$here/scripts/setup.sh"
cmake -S "$here" -B "$here/build" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build "$here/build" -j "${GPUFEM_BUILD_JOBS:-$("$here/scripts/build_jobs.sh")}"
