# tinyforge: the two commands a newcomer needs.
#   make demo   installs what is missing, builds, exports the bundled DS-CNN from PyTorch,
#               compiles it and runs it, printing its outputs next to PyTorch's
#   make test   the whole suite (C++ unit tests, the same under ASan + UBSan, Python and
#               end-to-end tests)
SHELL  := /bin/bash
VENV   := .venv
PY     := $(VENV)/bin/python
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)

.PHONY: all deps build demo models test test-cpp test-san test-py bench fuzz examples format clean

all: build

deps:
	@scripts/install-deps.sh

# pip builds the C++ compiler with CMake into build/ (shared with ctest) and installs
# the `tinyforge` command and the Python package (editable) into .venv.
build: deps
	@set -o pipefail; $(PY) -m pip install -q --no-build-isolation --disable-pip-version-check -e . 2>&1 \
	  | { grep -v "is ignored: it is neither a file nor a directory" || true; }
	@echo "build: tinyforge -> $$(command -v tinyforge)"

demo: build
	@$(PY) examples/demo.py

# The MLPerf Tiny reference models the tests and benchmarks read: ../shared's copy, else
# fetched into .models/ (checksummed; $$TINYFORGE_MODELS_MIRROR: a folder or URL instead of
# GitHub). python/tinyforge/reference_models.py.
models: build
	@$(PY) -m tinyforge.reference_models fetch

test: build models test-cpp test-san test-py

test-cpp:
	@ctest --test-dir build --output-on-failure -j2

# The C++ tests again in their own tree, build-san/, compiled with ASan + UBSan: every check
# on, the kernels included, -fno-sanitize-recover (a finding fails the test). -O1 -g1 keeps
# the build and the runs short; the cross-compile checks and the fuzzers (sanitized in any
# tree) are left to test-cpp.
SAN_DIR := build-san
test-san:
	@cmake -S . -B $(SAN_DIR) -G Ninja -DTINYFORGE_SANITIZE=ON -DCMAKE_BUILD_TYPE=Release \
	  "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -g1" "-DCMAKE_C_FLAGS_RELEASE=-O1 -g1" > /dev/null
	@cmake --build $(SAN_DIR) -j2
	@ctest --test-dir $(SAN_DIR) --output-on-failure -j2 -E '_cortex_m_compile$$'

# One pytest worker per core (pytest-xdist), a test file per worker at a time so module
# fixtures are built once; the board build trees are locked per tree (tinyforge.paths).
PYTEST_WORKERS ?= $(shell nproc)
test-py:
	@$(PY) -m pytest -q -n $(PYTEST_WORKERS) --dist loadfile --durations=15

# Instructions / RAM / flash of the 4 MLPerf Tiny models and the 4 zoo models on the 4
# emulated boards, beside TFLite Micro + CMSIS-NN; rewrites benchmarks/RESULTS.md (~15 min).
bench: build models
	@$(PY) benchmarks/bench.py --write

# The real-data examples end to end: generate data, train, export, evaluate (~40-60 min).
examples: build
	@$(PY) examples/keyword_spotting/dataset.py
	@$(PY) examples/keyword_spotting/train.py
	@$(PY) examples/keyword_spotting/evaluate.py
	@$(PY) examples/keyword_spotting/train.py --arch attention
	@$(PY) examples/keyword_spotting/evaluate.py --arch attention
	@$(PY) examples/keyword_spotting/train.py --arch gru
	@$(PY) examples/keyword_spotting/evaluate.py --arch gru
	@$(PY) examples/image_classification/train.py
	@$(PY) examples/image_classification/evaluate.py

# Long libFuzzer runs of the four loaders (program, .tflite, .tfg, .npy), FUZZ_SECONDS each
# (`make build` builds them; `make test` runs each briefly, tests/fuzz/CMakeLists.txt).
# Findings go to build/fuzz-artifacts/, the grown corpora to build/fuzz-corpus/.
FUZZ_SECONDS ?= 600
fuzz: build
	@rc=0; for f in build/tests/fuzz/*_fuzz.cmake; do \
	  cmake -DSECONDS=$(FUZZ_SECONDS) -P $$f || rc=1; done; exit $$rc

format:
	@clang-format -i $$(git ls-files '*.cc' '*.h')

clean:
	rm -rf build $(SAN_DIR)
