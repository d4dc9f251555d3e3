#!/usr/bin/env bash
# Run every fuzz target of $BUILD_FUZZ for SECONDS each (default 60), one after the other.
# With FUZZ_DETERMINISTIC=1 each target instead runs a fixed number of inputs from a fixed seed
# (CI: the same inputs on every machine, so a green run here is a green run there).
# Corpora grow in $BUILD_FUZZ/corpus/<target>, crashes land in $BUILD_FUZZ/artifacts/.
# Exit status 1 if any target found a crash, leak or timeout. See docs/fuzzing.md.
set -uo pipefail
cd "$(dirname "$0")/.."
secs="${1:-60}"
build="${BUILD_FUZZ:-build-fuzz}"
seeds="$build/seeds"
python3 fuzz/prepare_seeds.py "$seeds" >/dev/null
mkdir -p "$build/artifacts"
export MODUCO_PLUGIN_PATH="$PWD/$build/lib/moduco/plugins"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
status=0
for target in mjcf mesh plugin; do
  bin="$build/bin/fuzz_$target"
  if [ ! -x "$bin" ]; then
    echo "fuzz: $bin missing (run make build-fuzz)"
    status=1
    continue
  fi
  corpus="$build/corpus/$target"
  mkdir -p "$corpus"
  dict=""
  if [ -f "fuzz/$target.dict" ]; then dict="-dict=fuzz/$target.dict"; fi
  budget="-max_total_time=$secs"
  if [ "${FUZZ_DETERMINISTIC:-0}" = 1 ]; then
    case "$target" in
      mjcf) runs=20000 ;;
      mesh) runs=20000 ;;
      *)    runs=1000000 ;;
    esac
    budget="-runs=$runs -seed=1"
    echo "fuzz: $target for $runs inputs (seed 1)"
  else
    echo "fuzz: $target for ${secs}s"
  fi
  "$bin" "$corpus" "$seeds/$target" $dict $budget -timeout=20 -rss_limit_mb=2560 \
    -max_len=65536 -print_final_stats=1 -artifact_prefix="$build/artifacts/$target-" \
    >"$build/fuzz-$target.log" 2>&1
  rc=$?
  grep -E "^stat::number_of_executed_units|^Done|^#.*DONE" "$build/fuzz-$target.log" | tail -2
  if [ $rc -ne 0 ]; then
    echo "fuzz: $target failed (exit $rc); see $build/fuzz-$target.log and $build/artifacts/"
    grep -E "ERROR|SUMMARY|Test unit written" "$build/fuzz-$target.log" | head -5
    status=1
  fi
done
exit $status
