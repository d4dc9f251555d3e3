#!/usr/bin/env bash
# Install what Moduco needs on Debian 12 (build, tests, conformance against MuJoCo 2.2.2).
set -euo pipefail
pkgs=(build-essential cmake pkg-config libexpat1-dev libcjson-dev libccd-dev libqhull-dev libpng-dev
      libcriterion-dev libmujoco-dev libmujoco-samples clang libclang-rt-14-dev
      python3-dev python3-numpy python3-pytest python3-venv python3-setuptools python3-wheel
      python3-distributed
      libcivetweb-dev chromium)   # moduco view: its server library; the page's headless test
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# tests/mjs3 runs MuJoCo 3.3.8 (npm package mujoco-js) and 3.14.0 (@mujoco/mujoco), WebAssembly, under
# Node; the viewer page bundles three.js and uPlot and its test drives chromium with playwright-core
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  missing+=(nodejs npm)
fi
npm_ci_all() {
  local dir
  dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/tests/mjs3"
  echo "setup: npm ci in $dir (mujoco-js 0.0.7 = MuJoCo 3.3.8, @mujoco/mujoco 3.14.0; pinned by package-lock.json)"
  (cd "$dir" && npm ci --no-audit --no-fund)
  # moduco view's page: three.js and uPlot, copied into the build output (sdk/viewer/CMakeLists.txt)
  dir="$(cd "$dir/../../sdk/viewer/web" && pwd)"
  echo "setup: npm ci in $dir (three.js, uPlot; pinned by package-lock.json)"
  (cd "$dir" && npm ci --no-audit --no-fund)
  # its page test drives Debian's chromium with playwright-core (no browser download)
  dir="$(cd "$dir/../../../tests/viewer" && pwd)"
  echo "setup: npm ci in $dir (playwright-core, pinned by package-lock.json)"
  (cd "$dir" && npm ci --no-audit --no-fund)
}
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all packages present"
  npm_ci_all
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "setup: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
npm_ci_all
