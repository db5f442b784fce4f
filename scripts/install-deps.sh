#!/usr/bin/env bash
# Installs the Debian 12 packages tensora builds and tests with, skipping those present.
set -euo pipefail
packages=(cmake ninja-build g++ pkg-config libgtest-dev libgmock-dev libbenchmark-dev libhwy-dev libopenblas-dev libblis-dev)
# File I/O (docs/io.md): zlib for .npz, NumPy for the interoperability tests, clang 14 +
# libFuzzer for the loader fuzz targets (scripts/fuzz.sh, the CI fuzz stage).
packages+=(zlib1g-dev python3-numpy clang-14 libclang-rt-14-dev)
# FFTW (docs/fft.md): loaded at run time when present (GPL, never linked); the tests compare it
# with the built-in provider.
packages+=(libfftw3-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
