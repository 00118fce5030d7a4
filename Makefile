# The project's commands. Each installs what it needs first (scripts/setup).
BUILD ?= build
ASAN_BUILD ?= build-asan
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?= -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo

.PHONY: setup build test test-sanitize run bench format clean

setup:
	bash scripts/setup

build: setup
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j$(JOBS)

# The whole suite (unit, integration, slow) through ctest.
test: build
	ctest --test-dir $(BUILD) --output-on-failure -j$(JOBS)

# The unit and integration tests under AddressSanitizer and UBSan.
test-sanitize: setup
	cmake -S . -B $(ASAN_BUILD) $(CMAKE_FLAGS) -DHPTUNE_SANITIZE=ON -DHPTUNE_BUILD_BENCHMARKS=OFF
	cmake --build $(ASAN_BUILD) -j$(JOBS)
	ctest --test-dir $(ASAN_BUILD) --output-on-failure -j$(JOBS) -LE slow

run: build
	bash scripts/run-example $(BUILD)

bench: build
	$(BUILD)/benchmarks/store_benchmark
	$(BUILD)/benchmarks/suggest_benchmark
	$(BUILD)/benchmarks/gp_benchmark
	$(BUILD)/benchmarks/engine/trial_overhead_benchmark
	$(BUILD)/benchmarks/engine/early_stopping_benchmark --seeds=5
	bash benchmarks/quality_compare.sh --harness $(BUILD)/benchmarks/quality/quality_harness
	bash benchmarks/quality_compare.sh --harness $(BUILD)/benchmarks/quality/quality_harness --functions=holdout
	bash benchmarks/quality_compare.sh --harness $(BUILD)/benchmarks/quality/quality_harness --functions=noisy

format:
	git ls-files '*.h' '*.cc' | xargs clang-format -i

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) out
