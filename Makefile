# Sinter: the two commands are `make run` and `make test`. Both install what
# is missing (Debian 12 packages, numpy from PyPI), configure and build first.

BUILD_DIR ?= build
BUILD_TYPE ?= Release
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
PYTHON ?= python3
APT_PACKAGES := cmake ninja-build ccache g++ libgtest-dev \
                llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools

.PHONY: all deps configure build run test check-lit docs format clean install

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

$(BUILD_DIR)/build.ninja: | deps
	cmake -G Ninja -S . -B $(BUILD_DIR) \
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

# Every test: lit (dialect, passes, integration, embedding) and unit tests.
test: build
	cmake --build $(BUILD_DIR) --target check-sinter

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
	rm -rf $(BUILD_DIR) install
