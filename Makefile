# Moduco: thin wrapper around CMake. `make setup demo` then `make test` (see README.md).
BUILD      ?= build
BUILD_ASAN ?= build-asan
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
DEMO_MODEL ?= models/humanoid.xml
DEMO_TIME  ?= 5

.PHONY: all setup build demo test build-asan test-asan bench install clean

all: build

# install the Debian packages the build, tests and benchmarks need (as root; uses sudo if not)
setup:
	bash scripts/setup-debian.sh

build:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BUILD) -j $(JOBS)

# the main job: simulate a bundled model with a progress bar and a summary
demo: build
	$(BUILD)/bin/moduco run $(DEMO_MODEL) --duration $(DEMO_TIME)

# every test (Criterion suites under ctest)
test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# Debug build with AddressSanitizer and UndefinedBehaviorSanitizer
build-asan:
	cmake -S . -B $(BUILD_ASAN) -DCMAKE_BUILD_TYPE=Debug -DMODUCO_SANITIZE=ON -DMODUCO_BUILD_BENCHMARKS=OFF
	cmake --build $(BUILD_ASAN) -j $(JOBS)

test-asan: build-asan
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp \
	  ctest --test-dir $(BUILD_ASAN) --output-on-failure -j $(JOBS)

bench: build
	$(BUILD)/bin/moduco-bench-forward

install: build
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD) $(BUILD_ASAN)
