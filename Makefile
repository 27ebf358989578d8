# Sinter: the two commands are `make run` and `make test`. Both install what
# is missing (Debian 12 packages, numpy from PyPI), configure and build first.

BUILD_DIR ?= build
BUILD_TYPE ?= Release
# The fuzz targets (clang, libFuzzer, ASan, UBSan) and the sanitizer build
# of the whole project live in build directories of their own.
FUZZ_BUILD_DIR ?= build-fuzz
SANITIZE_BUILD_DIR ?= build-asan
FUZZ_SECONDS ?= 600
FUZZ_SMOKE_SECONDS ?= 20
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
PYTHON ?= python3
APT_PACKAGES := cmake ninja-build ccache g++ libgtest-dev \
                llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools \
                clang-22 libclang-rt-22-dev libzstd-dev zlib1g-dev

.PHONY: all deps configure build run test check-lit docs format clean install wheel \
        fuzz fuzz-build fuzz-smoke test-sanitize

all: build

# Idempotent: installs only the packages that are missing; does nothing (and
# needs no network) when everything is present.
deps:
	@missing=""; \
	for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" \
	    || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "deps: installing$$missing"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  $(SUDO) apt-get install -y --no-install-recommends $$missing \
	    || { $(SUDO) apt-get update && \
	         $(SUDO) apt-get install -y --no-install-recommends $$missing; }; \
	else echo "deps: all system packages present"; fi
	@for m in numpy ml_dtypes; do \
	  $(PYTHON) -c "import $$m" 2>/dev/null || { \
	    echo "deps: installing $$m (PyPI)"; \
	    $(PYTHON) -m pip install --quiet $$m || exit 1; }; \
	done

# clang 22 by default: with the precompiled upstream headers
# (lib/PrecompiledHeaders.h) a clean build on two cores takes a fraction of
# g++'s time, whose precompiled headers cost seconds to load in every source
# (README, "The two commands"). `make SINTER_CXX=g++ SINTER_CC=gcc` works too.
SINTER_CC ?= clang-22
SINTER_CXX ?= clang++-22

$(BUILD_DIR)/build.ninja: | deps
	CC=$(SINTER_CC) CXX=$(SINTER_CXX) cmake -G Ninja -S . -B $(BUILD_DIR) \
	  -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
	  -DPython3_EXECUTABLE=$$($(PYTHON) -c "import sys; print(sys.executable)") \
	  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
	  -DCMAKE_INSTALL_PREFIX=$(CURDIR)/install

configure: deps $(BUILD_DIR)/build.ninja

build: configure
	cmake --build $(BUILD_DIR)

# The main job: the bundled example through sinter-opt.
run: build
	@./examples/run.sh $(BUILD_DIR)

# Every test: lit (dialect, passes, integration, embedding) and unit tests,
# then both fuzz targets for FUZZ_SMOKE_SECONDS each.
test: build
	cmake --build $(BUILD_DIR) --target check-sinter
	$(MAKE) fuzz-smoke

# dist/sinter-<version>-py3-none-manylinux_2_<N>_x86_64.whl (docs/Wheel.md):
# the Python package, the compiler with MLIR and LLVM linked in, the CUDA
# runtime, and ptxas and libdevice from the CUDA toolkit when there is one.
wheel: build
	cmake --build $(BUILD_DIR) --target sinter-wheel-lib SinterRuntime
	$(PYTHON) tools/wheel/make_wheel.py --build-dir $(BUILD_DIR) --out-dir dist

# libFuzzer over the compiler (parse, fusion, CUDA planning) and the
# manifest loader, seeded from test/ (docs/Hardening.md): FUZZ_SECONDS per
# target; a crash fails the run and leaves its input in
# $(FUZZ_BUILD_DIR)/fuzz-crashes.
$(FUZZ_BUILD_DIR)/build.ninja: | deps
	CC=clang-22 CXX=clang++-22 cmake -G Ninja -S . -B $(FUZZ_BUILD_DIR) \
	  -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" \
	  -DSINTER_FUZZ=ON \
	  -DPython3_EXECUTABLE=$$($(PYTHON) -c "import sys; print(sys.executable)") \
	  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit

fuzz-build: $(FUZZ_BUILD_DIR)/build.ninja
	cmake --build $(FUZZ_BUILD_DIR) --target sinter-fuzzers

fuzz: fuzz-build
	fuzz/run.sh $(FUZZ_BUILD_DIR) $(FUZZ_SECONDS)

# A fixed seed: the same mutations on every machine.
fuzz-smoke: fuzz-build
	FUZZ_SEED=1 fuzz/run.sh $(FUZZ_BUILD_DIR) $(FUZZ_SMOKE_SECONDS)

# The lit suite on a build with AddressSanitizer and UBSan (not part of
# `make test`: it takes about as long again as the whole of it).
$(SANITIZE_BUILD_DIR)/build.ninja: | deps
	cmake -G Ninja -S . -B $(SANITIZE_BUILD_DIR) \
	  -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" \
	  -DSINTER_SANITIZE=ON \
	  -DPython3_EXECUTABLE=$$($(PYTHON) -c "import sys; print(sys.executable)") \
	  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
	  -DCMAKE_INSTALL_PREFIX=$(CURDIR)/$(SANITIZE_BUILD_DIR)/install

test-sanitize: $(SANITIZE_BUILD_DIR)/build.ninja
	cmake --build $(SANITIZE_BUILD_DIR) --target check-sinter

# Refresh the committed references generated from the ODS (test/Docs fails
# when they are stale).
docs: configure
	cmake --build $(BUILD_DIR) --target mlir-doc
	cp $(BUILD_DIR)/docs/Sinter/SinterDialect.md docs/Dialect/SinterDialect.md
	cp $(BUILD_DIR)/docs/Sinter/TMTensorDialect.md docs/Dialect/TMTensorDialect.md
	mkdir -p docs/Passes
	cp $(BUILD_DIR)/docs/Sinter/SinterTransformsPasses.md \
	   $(BUILD_DIR)/docs/Sinter/SinterConversionPasses.md \
	   $(BUILD_DIR)/docs/Sinter/SinterGPUPasses.md \
	   $(BUILD_DIR)/docs/Sinter/SinterCPUPasses.md docs/Passes/

install: build
	cmake --install $(BUILD_DIR)

format:
	git ls-files '*.cpp' '*.h' | xargs clang-format -i

clean:
	rm -rf $(BUILD_DIR) $(FUZZ_BUILD_DIR) $(SANITIZE_BUILD_DIR) install
