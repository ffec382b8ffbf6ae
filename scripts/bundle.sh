#!/usr/bin/env bash
# Packs built programs with the shared libraries they need, to run them on another x86-64
# Linux machine that has the NVIDIA driver and the CUDA toolkit (and Open MPI, for
# test_mpi_ranks) but not the Debian -dev packages gpufem builds against: a GPU node.
#
#   scripts/bundle.sh OUT.tar.xz PROGRAM [PROGRAM ...]
#   # on the GPU machine:
#   tar xJf OUT.tar.xz -C /tmp && /tmp/bundle/run PROGRAM [ARGS ...]
#
# Leaves out the C library, the C++ and gcc runtimes, the NVIDIA driver, the CUDA toolkit's
# libraries and Open MPI (the machine's own are used: they must match its driver and mpirun);
# carries the rest, NCCL included. `run` puts bundle/lib and /usr/local/cuda/lib64 on
# LD_LIBRARY_PATH and starts bundle/bin/PROGRAM in the current folder.
set -euo pipefail
if (( $# < 2 )); then sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 2; fi
out=$1; shift
stage=$(mktemp -d); trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bundle/bin" "$stage/bundle/lib"
for program in "$@"; do
  [[ -x $program ]] || { echo "bundle: $program is not an executable file" >&2; exit 1; }
  if ldd "$program" | grep -q "not found"; then
    echo "bundle: $program has unresolved libraries here:" >&2; ldd "$program" | grep "not found" >&2; exit 1
  fi
  cp -L "$program" "$stage/bundle/bin/"
  ldd "$program" | awk '/=> \// {print $3}' | while read -r lib; do
    case ${lib##*/} in
      libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|ld-linux*|libstdc++.so*|libgcc_s.so*) continue ;;
      libcuda.so*|libnvidia*|libcudart*|libcusparse*|libcublas*|libnvJitLink*|libcurand*|libcusolver*|libcufft*) continue ;;
      libmpi.so*|libmpi_cxx.so*|libopen-rte.so*|libopen-pal.so*) continue ;;
    esac
    [[ -e $stage/bundle/lib/${lib##*/} ]] || cp -L "$lib" "$stage/bundle/lib/"
  done
done
# NCCL is opened when a run across ranks makes its communicator, not linked, so ldd does not
# list it: carry the CUDA toolkit's (the GPU machines' toolkit has none).
for nccl in /usr/local/cuda/lib/libnccl.so.2 /usr/local/cuda/lib64/libnccl.so.2; do
  if [[ -e $nccl ]]; then cp -L "$nccl" "$stage/bundle/lib/"; break; fi
done
cat > "$stage/bundle/run" <<'RUN'
#!/bin/bash
here=$(cd "$(dirname "$0")" && pwd)
program=$1; shift
export LD_LIBRARY_PATH="$here/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
exec "$here/bin/$program" "$@"
RUN
chmod +x "$stage/bundle/run"
mkdir -p "$(dirname "$out")"
tar -C "$stage" -cJf "$out" bundle
echo "bundle: $(du -h "$out" | cut -f1) in $out ($(ls "$stage/bundle/lib" | wc -l) libraries)"
