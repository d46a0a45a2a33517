#!/usr/bin/env bash
# Installs what tinyforge needs and is missing; safe to run again (it checks first).
#   Debian packages: apt-get (needs root, or sudo).
#   Python packages: a project virtual environment in .venv (Debian 13's system Python
#   refuses pip installs outside one), pinned so that torch's CPU wheel is used.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  g++ ninja-build python3-venv
  nlohmann-json3-dev libcli11-dev libgtest-dev   # compiler: JSON, CLI, unit tests
  gcc-arm-none-eabi libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib  # firmware
  qemu-system-arm                                # the emulated Cortex-M boards
  clang libclang-rt-dev                          # libFuzzer targets (loader, importers)
  flatbuffers-compiler libflatbuffers-dev        # .tflite importer (schema subset via flatc)
  espeak-ng sox dataset-fashion-mnist            # examples: keyword audio, Fashion-MNIST
  chromium                                       # tinyforge report: the page tested headless
)
PIP_PACKAGES=(
  "torch==2.13.0" "torchao==0.18.0"   # PT2E quantization lives in torchao for this torch
  "numpy>=1.24" "pytest>=8" "pytest-xdist>=3"   # make test-py runs on every core
  "tensorflow-cpu==2.21.0"            # TFLite's reference interpreter: a test oracle
  "tf-keras==2.21.0"                  # Keras 2: its LSTM converts to the fused TFLite op
  "scikit-build-core>=0.10" "cmake>=3.20" "ninja"   # to build the compiler with pip -e
  "ai-edge-model-explorer==0.1.34"    # tinyforge explore (pyproject's [explorer] extra)
)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install-deps: apt-get install ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "install-deps: creating .venv"
  "$PY" -m venv .venv
fi
if ! .venv/bin/python - <<'PYEOF' 2>/dev/null
import importlib.metadata as m, sys
want = {"torch": "2.13.0", "torchao": "0.18.0", "tensorflow-cpu": "2.21.0",
        "tf-keras": "2.21.0", "ai-edge-model-explorer": "0.1.34"}
for name, ver in want.items():
    if not m.version(name).startswith(ver):
        sys.exit(1)
for name in ("numpy", "pytest", "pytest-xdist", "scikit_build_core", "cmake", "ninja"):
    m.version(name)
PYEOF
then
  echo "install-deps: pip install ${PIP_PACKAGES[*]}"
  # This machine's pip config lists an optional local index that may be absent: drop its noise.
  .venv/bin/python -m pip install -q --disable-pip-version-check "${PIP_PACKAGES[@]}" 2>&1 \
    | { grep -v "is ignored: it is neither a file nor a directory" || true; }
fi
