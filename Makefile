# Moduco: thin wrapper around CMake. `make setup demo` then `make test` (see README.md).
BUILD      ?= build
BUILD_ASAN ?= build-asan
BUILD_FUZZ ?= build-fuzz
FUZZ_TIME  ?= 60
FUZZ_LONG_TIME ?= 3600
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
DEMO_MODEL ?= models/humanoid.xml
DEMO_TIME  ?= 5

.PHONY: all setup build demo test build-asan test-asan build-tsan test-tsan bench install clean build-fuzz fuzz fuzz-ci fuzz-long corpus-check

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

# every model of CORPUS in Moduco and MuJoCo 3.14, compared at the keyframe and after 50 steps
# (docs/corpus.md); fails only on a regression against CORPUS_EXPECT. Refresh that file after an
# improvement with: scripts/corpus-check $(CORPUS) --write-expect $(CORPUS_EXPECT)
# the shared corpus beside the clone, else where the test suites find it (tests/corpus/corpus.h)
CORPUS        ?= $(firstword $(wildcard ../shared/corpus) /work/shared/corpus)
CORPUS_EXPECT ?= tests/corpus/expected.json
corpus-check: build
	python3 scripts/corpus-check $(CORPUS) --moduco $(BUILD)/bin/moduco --expect $(CORPUS_EXPECT)

# libFuzzer targets (clang, ASan+UBSan) in their own build folder; docs/fuzzing.md
FUZZ_FLAGS = -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined \
             -fno-omit-frame-pointer -g
build-fuzz:
	cmake -S . -B $(BUILD_FUZZ) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
	  -DCMAKE_CXX_COMPILER=clang++ "-DCMAKE_C_FLAGS=$(FUZZ_FLAGS)" "-DCMAKE_CXX_FLAGS=$(FUZZ_FLAGS)" \
	  "-DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=address,undefined" \
	  "-DCMAKE_MODULE_LINKER_FLAGS=-fsanitize=address,undefined" \
	  -DMODUCO_BUILD_FUZZ=ON -DMODUCO_BUILD_TESTS=OFF -DMODUCO_BUILD_BENCHMARKS=OFF
	cmake --build $(BUILD_FUZZ) -j $(JOBS) --target moduco_fuzzers

# every fuzz target for FUZZ_TIME seconds (CI); crashes land in $(BUILD_FUZZ)/artifacts
fuzz: build-fuzz
	BUILD_FUZZ=$(BUILD_FUZZ) bash fuzz/run.sh $(FUZZ_TIME)

# CI: a fixed number of inputs per target from a fixed seed, on an empty corpus (reproducible)
fuzz-ci: build-fuzz
	rm -rf $(BUILD_FUZZ)/corpus
	FUZZ_DETERMINISTIC=1 BUILD_FUZZ=$(BUILD_FUZZ) bash fuzz/run.sh

# the long campaign: FUZZ_LONG_TIME seconds per target, corpora kept in $(BUILD_FUZZ)/corpus
fuzz-long: build-fuzz
	BUILD_FUZZ=$(BUILD_FUZZ) bash fuzz/run.sh $(FUZZ_LONG_TIME)

install: build
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD) $(BUILD_ASAN) $(BUILD_FUZZ) build-tsan

# ThreadSanitizer run of the batch-rollout tests (core/engine/rollout.c) and of the in-step thread
# pool tests (core/engine/threadpool.c, island_solve.c, collision_narrow.c) in $(BUILD_TSAN)
BUILD_TSAN ?= build-tsan
TSAN_FLAGS = -fsanitize=thread -fno-omit-frame-pointer -g
build-tsan:
	cmake -S . -B $(BUILD_TSAN) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMODUCO_BUILD_BENCHMARKS=OFF \
	  "-DCMAKE_C_FLAGS=$(TSAN_FLAGS)" "-DCMAKE_CXX_FLAGS=$(TSAN_FLAGS)" \
	  -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread -DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=thread \
	  -DCMAKE_MODULE_LINKER_FLAGS=-fsanitize=thread
	cmake --build $(BUILD_TSAN) -j $(JOBS) --target test_rollout_plain test_island_plain \
	  test_island_one_plain test_island_stages_plain test_island_kinematics_plain \
	  test_constraint_pool_plain test_symbolic_components_plain test_plugin_trees_plain \
	  test_narrow_append_plain

test-tsan: build-tsan
	TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
	  ctest --test-dir $(BUILD_TSAN) -R '^test_(rollout|island|island_one|island_stages|island_kinematics|constraint_pool|symbolic_components|plugin_trees|narrow_append)_plain$$' --output-on-failure
