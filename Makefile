# The project's commands. Each installs what it needs first (scripts/setup).
BUILD ?= build
ASAN_BUILD ?= build-sanitize
CLANG_BUILD ?= build-clang
JOBS ?= $(shell nproc)
# ctest runs twice as many tests as there are cores: a test spends much of
# its time waiting on the processes it starts (servers, trainers, podman,
# Slurm, PostgreSQL); at one test per core the 2 cores were 60% busy
# (benchmarks/RESULTS.md, "CI's time"). The tests hold no timing
# assumption a loaded machine breaks (docs/testing.md).
CTEST_JOBS ?= $(shell echo $$((2 * $$(nproc))))
# Line tables only (-g1): enough for a backtrace and a sanitizer's report,
# and a quarter less compile time than full -g (benchmarks/RESULTS.md).
CMAKE_FLAGS ?= -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG"

# The tests and benchmarks need GoogleTest and Google Benchmark; `make run`
# needs neither (scripts/setup run).
# The test builds are the CI builds: warnings are errors there.
ALL_FLAGS = -DHPTUNE_BUILD_TESTS=ON -DHPTUNE_BUILD_BENCHMARKS=ON -DHPTUNE_WERROR=ON
RUN_FLAGS = -DHPTUNE_BUILD_TESTS=OFF -DHPTUNE_BUILD_BENCHMARKS=OFF
# What scripts/run-example runs.
RUN_TARGETS = hptune tune_logistic_regression

.PHONY: setup setup-run build build-run test test-sanitize check-thread-safety \
  test-mutations run bench format clean

setup:
	bash scripts/setup test

setup-run:
	bash scripts/setup run

build: setup
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS) $(ALL_FLAGS)
	cmake --build $(BUILD) -j$(JOBS)

# `make run` builds in $(BUILD) too, not in a directory of its own: then
# `make test` after `make run` compiles only the tests, the benchmarks and
# what they link (a run directory of its own would make it compile every
# library again), and `make run` after `make test` compiles nothing. run turns
# the tests and benchmarks off only in a build directory it creates (a first
# run, on a machine without GoogleTest); in one that exists it keeps the
# options as they are, so that run and test do not flip them at each call.
build-run: setup-run
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS) $(if $(wildcard $(BUILD)/CMakeCache.txt),,$(RUN_FLAGS))
	cmake --build $(BUILD) -j$(JOBS) --target $(RUN_TARGETS)

# The whole suite (unit, integration, slow) through ctest.
test: build
	ctest --test-dir $(BUILD) --output-on-failure -j$(CTEST_JOBS)

# The mutation catalogue (tests/mutations/), then the generator's random
# mutations scored per folder (docs/testing.md, "Mutations"), each in a
# scratch worktree of HEAD (build-mutations/tree) built with the flags of
# `make build` and sharing its ccache. MUTATIONS: options of
# `scripts/mutations.py run` (--only REGEX, --slice K/N, --rotate SEED,
# --list, --check-head); GENERATE: options of `generate`, empty to skip it.
MUTATIONS ?= --keep-going --check-head
GENERATE ?= --seed 1 --per-folder 8
test-mutations: setup
	status=0; \
	/usr/bin/python3 scripts/mutations.py run $(MUTATIONS) -- \
	  $(CMAKE_FLAGS) $(ALL_FLAGS) || status=$$?; \
	$(if $(GENERATE),/usr/bin/python3 scripts/mutations.py generate \
	  $(GENERATE) -- $(CMAKE_FLAGS) $(ALL_FLAGS) || status=$$?;) \
	exit $$status

# The unit and integration tests under AddressSanitizer and UBSan, but the
# slow ones and the browser's and Python's suites (docs/testing.md),
# compiled by clang with its lock analysis on (docs/architecture.md,
# "Threads"): one build checks both, and clang compiles it in half of g++'s
# time (benchmarks/RESULTS.md, "CI's time"). g++ builds `make test`, so CI
# sees both compilers' warnings. -O0 but for the designers' library (-O1,
# algorithms/CMakeLists.txt): an unoptimised compile takes a third of the
# time and hides no error from the sanitizers, and -g1: their reports use
# line tables only. Its libraries are shared: statically linked into each
# test, they took 8 of its 11 GiB on disk.
SANITIZE_FLAGS = -DCMAKE_CXX_COMPILER=clang++ -DHPTUNE_SANITIZE=ON \
  -DHPTUNE_SHARED_LIBS=ON \
  -DHPTUNE_THREAD_SAFETY=ON -DHPTUNE_BUILD_BENCHMARKS=OFF -DHPTUNE_WERROR=ON \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O0 -g1 -DNDEBUG"
test-sanitize:
	bash scripts/setup test --clang
	cmake -S . -B $(ASAN_BUILD) $(CMAKE_FLAGS) $(SANITIZE_FLAGS)
	cmake --build $(ASAN_BUILD) -j$(JOBS)
	ctest --test-dir $(ASAN_BUILD) --output-on-failure -j$(CTEST_JOBS) -LE 'slow|browser|python'

# The locks checked alone, without the tests (test-sanitize checks them
# too): the libraries and the hptune binary compiled by clang with
# -Wthread-safety, warnings as errors (-O0 and no debug information: for the
# analysis only), and a check that the analysis does refuse a read without
# its lock.
THREAD_SAFETY_FLAGS = -DCMAKE_CXX_COMPILER=clang++ -DHPTUNE_THREAD_SAFETY=ON \
  -DHPTUNE_WERROR=ON -DHPTUNE_BUILD_TESTS=OFF -DHPTUNE_BUILD_BENCHMARKS=OFF \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O0 -DNDEBUG"
check-thread-safety:
	bash scripts/setup run --clang
	cmake -S . -B $(CLANG_BUILD) $(CMAKE_FLAGS) $(THREAD_SAFETY_FLAGS)
	cmake --build $(CLANG_BUILD) -j$(JOBS)
	bash tests/thread_safety_test.sh .

# The example, after installing and building only what it needs.
run: build-run
	bash scripts/run-example $(BUILD)

bench: build
	$(BUILD)/benchmarks/store_benchmark
	$(BUILD)/benchmarks/suggest_benchmark
	$(BUILD)/benchmarks/gp_benchmark
	$(BUILD)/benchmarks/request_reading_benchmark
	bash benchmarks/importance_compare.sh $(BUILD) --evaluators mdi,ped-anova
	rm -f $(BUILD)/dashboard-100k.db*
	$(BUILD)/benchmarks/dashboard_benchmark --keep-db=$(BUILD)/dashboard-100k.db
	/usr/bin/python3 benchmarks/dashboard_browser_benchmark.py --hptune $(BUILD)/src/cli/hptune --db $(BUILD)/dashboard-100k.db
	$(BUILD)/benchmarks/engine/trial_overhead_benchmark
	$(BUILD)/benchmarks/engine/early_stopping_benchmark --seeds=5
	bash benchmarks/quality_compare.sh --harness $(BUILD)/benchmarks/quality/quality_harness
	bash benchmarks/quality_compare.sh --harness $(BUILD)/benchmarks/quality/quality_harness --functions=holdout
	bash benchmarks/quality_compare.sh --harness $(BUILD)/benchmarks/quality/quality_harness --functions=noisy
	/usr/bin/python3 benchmarks/multiobjective_compare.py --harness $(BUILD)/benchmarks/quality/multiobjective_harness --seeds 20

format:
	git ls-files '*.h' '*.cc' | xargs clang-format -i

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(CLANG_BUILD) out
