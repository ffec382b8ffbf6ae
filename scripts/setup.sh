#!/usr/bin/env bash
# Installs the Debian packages gpufem builds against. Idempotent: installs only what is missing.
# The CUDA toolkit is not a Debian package here: when /usr/local/cuda exists the CUDA backend
# is built, otherwise gpufem builds for the CPU alone.
set -euo pipefail
packages=(cmake ninja-build g++ ccache
          libgmsh-dev libvtk9-dev libyaml-cpp-dev libspdlog-dev libfmt-dev libcli11-dev
          libmuparser-dev libgtest-dev nlohmann-json3-dev libboost-graph-dev liblz4-dev
          python3-meshio python3-matplotlib libopenmpi-dev openmpi-bin libmetis-dev libseccomp-dev libssl-dev pkg-config)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""; [[ $(id -u) -eq 0 ]] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: all packages present"
fi
