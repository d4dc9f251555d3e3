#!/usr/bin/env bash
# Install what Moduco needs on Debian 12 (build, tests, conformance against MuJoCo 2.2.2).
set -euo pipefail
pkgs=(build-essential cmake pkg-config libexpat1-dev libcjson-dev libccd-dev libqhull-dev
      libcriterion-dev libmujoco-dev libmujoco-samples clang libclang-rt-14-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all packages present"
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "setup: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
