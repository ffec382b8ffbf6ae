#!/usr/bin/env bash
# Sets up the machine (scripts/setup.sh), configures and builds gpufem into ./build.
# Extra arguments are passed to CMake's configure step (e.g. -DGPUFEM_ENABLE_CUDA=OFF).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bash "$here/scripts/setup.sh"
cmake -S "$here" -B "$here/build" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build "$here/build" -j "${GPUFEM_BUILD_JOBS:-2}"
