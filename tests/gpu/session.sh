#!/usr/bin/env bash
# The GPU machine's one command, within one device command of 600 s: unpacks what
# tests/gpu/prepare.sh carried, checks it (ldd of every carried file: anything "not found" ends the
# run with exit 3), probes the machine, then runs each phase in its own process under its own
# time limit, with EARSHOT_REQUIRE_CUDA=1 so that no CUDA test can pass by skipping:
#   probe        device, driver, cuBLAS and tools found, host <-> device copy bandwidth
#   suite_*      each CUDA test suite of earshot_engine_tests (the kernels alone first)
#   memcheck_*, racecheck_encode, initcheck_steps, synccheck_encode
#                compute-sanitizer on the micro model and small random checkpoints
#   bench_*      earshot_cuda_bench: the base shape, then large-v3 (writing its random
#                checkpoint takes about a minute of it)
#   ncu_step     Nsight Compute on a dozen kernels of a base step (--clock-control none, CSV)
# Prints one short table last (phase, result, seconds) and writes at most 8 files to $OUT:
# table.txt, session.json, bench_base.json, bench_large_v3.json, ncu_step.csv and logs.tar.gz
# (every log and gtest report).
#
#   session.sh              every phase
#   session.sh --self-test  unpack, find cuBLAS and run the ldd self-test only (no GPU needed)
#   session.sh --dry-run    everything but the phases' commands, which are printed instead
#
# Exit status: 0 when every phase passed, 3 when the self-test failed, 1 otherwise.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root" || exit 2
# shellcheck source=tests/gpu/carry.sh
source "$root/tests/gpu/carry.sh"

mode=${1:-all}
case "$mode" in all | --self-test | --dry-run) ;; *)
    echo "usage: session.sh [--self-test|--dry-run]" >&2
    exit 2
    ;;
esac

# Phase limits, in seconds. Their sum stays within 520 s, leaving the rest of the 600 s command
# to unpacking, the self-test, the table and the tarball:
#   probe 15 + suites (20 + 55 + 30 + 40 + 30 + 20 = 195) + sanitizers (40 + 30 + 40 + 25 + 25 =
#   160) + benchmarks (30 + 90 = 120) + ncu 30 = 520
limit_probe=15
limit_suite_kernels=20
limit_suite_parity=50
limit_suite_wide=30
limit_suite_micro=40
limit_suite_cross_attention=30
limit_suite_ggml_quant=20
limit_suite_rest=25
limit_memcheck_micro=40
limit_memcheck_f32=30
limit_racecheck_encode=35
limit_initcheck_steps=25
limit_synccheck_encode=25
limit_bench_base=30
limit_bench_large_v3=80
limit_ncu_step=25
limit_total=$((limit_probe + limit_suite_kernels + limit_suite_parity + limit_suite_wide +
    limit_suite_micro + limit_suite_cross_attention + limit_suite_ggml_quant + limit_suite_rest +
    limit_memcheck_micro + limit_memcheck_f32 + limit_racecheck_encode + limit_initcheck_steps +
    limit_synccheck_encode + limit_bench_base + limit_bench_large_v3 + limit_ncu_step))
if ((limit_total > 520)); then
    echo "session.sh: the phase limits add up to $limit_total s, more than 520 s" >&2
    exit 2
fi

carry=${EARSHOT_GPU_CARRY:-$root/build/gpu-carry}
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin=$work/bin
logs=$work/logs
mkdir -p "$logs"
if [[ ! -f $carry/bin.tar.xz ]]; then
    echo "session.sh: $carry/bin.tar.xz is missing; run tests/gpu/prepare.sh first" >&2
    exit 2
fi
earshot_unpack_carry "$carry" "$bin"
echo "carried build of commit $(cat "$carry/COMMIT" 2>/dev/null || echo unknown)," \
    "checkout at $(git rev-parse HEAD 2>/dev/null || echo unknown)"
if cublas=$(earshot_find_cublas); then
    echo "cuBLAS: $cublas"
else
    echo "cuBLAS: libcublas.so.13 not found in any known place"
    cublas=
fi
export LD_LIBRARY_PATH=$bin${cublas:+:$cublas}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
earshot_carry_self_test "$bin" | tee "$logs/self_test.log"
if [[ ${PIPESTATUS[0]} -ne 0 ]]; then
    echo "session.sh: the self-test failed: the carried files cannot start here" >&2
    cp "$logs/self_test.log" "$out/"
    exit 3
fi
[[ $mode == --self-test ]] && exit 0

export EARSHOT_REQUIRE_CUDA=1
export EARSHOT_CUDA_MODULE=$bin/libearshot_cuda.so
export EARSHOT_TEST_GOLDEN_DIR=$root/tests/golden
export EARSHOT_MICRO_MODEL_DIR=$root/resources/models/micro/model
export EARSHOT_BENCH_CHECKPOINTS=${EARSHOT_BENCH_CHECKPOINTS:-$work/checkpoints}
tests=$bin/earshot_engine_tests
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)

rows=()
failed=0
# run_phase NAME LIMIT COMMAND...: the command alone under `timeout`, its output in
# $logs/NAME.log; one table row with the result and, for a gtest run, its counts.
run_phase() {
    local name=$1 limit=$2
    shift 2
    local log=$logs/$name.log start=$SECONDS status result note=""
    echo "== $name (limit ${limit} s)"
    if [[ $mode == --dry-run ]]; then
        echo "$*" | tee "$log"
        rows+=("$name|dry run|0|")
        return
    fi
    timeout --kill-after=2 "$limit" "$@" >"$log" 2>&1
    status=$?
    local seconds=$((SECONDS - start))
    tail -n 4 "$log"
    case $status in
    0) result=ok ;;
    124 | 137) result=timeout ;;
    *) result="fail ($status)" ;;
    esac
    if grep -q '^\[==========\]' "$log"; then
        local passed skipped failures
        passed=$(grep -c '^\[       OK \]' "$log")
        skipped=$(grep -cE '^\[  SKIPPED \] .* \([0-9]+ ms\)$' "$log")
        failures=$(grep -cE '^\[  FAILED  \] .* \([0-9]+ ms\)$' "$log")
        note="$passed passed, $failures failed, $skipped skipped"
        # Nothing may skip on the GPU machine.
        [[ $result == ok && $skipped -gt 0 ]] && result=skipped
    fi
    # Google Benchmark exits 0 when benchmarks report errors (no device, out of memory).
    if grep -q 'ERROR OCCURRED' "$log"; then
        note="$(grep -c 'ERROR OCCURRED' "$log") benchmarks reported an error"
        [[ $result == ok ]] && result=errors
    fi
    if [[ $name == *check* ]]; then
        note="$note${note:+; }$(grep -m1 -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" || true)"
    fi
    [[ $result == ok ]] || failed=1
    rows+=("$name|$result|$seconds|$note")
}

# The probe fails when nvidia-smi does; the rest is information.
probe() {
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader ||
        return 1
    nvidia-smi | head -n 4 | tail -n 2
    echo "cuBLAS: $(ldd "$EARSHOT_CUDA_MODULE" | grep -E 'libcublas(Lt)?\.so' | tr -s ' \t' ' ')"
    echo "compute-sanitizer: $("$1" --version 2>&1 | tail -n 1)"
    echo "ncu: $("$2" --version 2>&1 | tail -n 1)"
    # Copy bandwidth, when the machine's Python has torch (a few seconds).
    timeout 10 python3 - <<'PY' || echo "copy bandwidth: not measured"
import time, torch
n = 1 << 28  # 1 GiB of bytes
host = torch.empty(n, dtype=torch.uint8).pin_memory()
dev = torch.empty(n, dtype=torch.uint8, device="cuda")
other = torch.empty_like(dev)
def rate(copy):
    copy(); torch.cuda.synchronize()
    start = time.perf_counter(); copy(); torch.cuda.synchronize()
    return n / (time.perf_counter() - start) / 1e9
print("copy bandwidth GB/s: host->device %.1f, device->host %.1f, device->device %.1f" % (
    rate(lambda: dev.copy_(host, non_blocking=True)),
    rate(lambda: host.copy_(dev, non_blocking=True)),
    2 * rate(lambda: other.copy_(dev))))
PY
}
export -f probe

# shellcheck disable=SC2016 # the arguments expand in the child shell
run_phase probe "$limit_probe" bash -c 'probe "$1" "$2"' probe "$sanitizer" "$ncu"
# Each suite in its own process: a fault in one cannot poison the next.
suite() {
    local name=$1 limit=$2 filter=$3
    run_phase "$name" "$limit" "$tests" --gtest_filter="$filter" \
        --gtest_output="json:$logs/$name.json"
}
# Each kernel alone first (the step's split-key attention, multi-column and fused GEMVs too, and
# old against new kernels and fused against separate launches on one model): a wrong kernel is
# named here before the whole models show it.
suite suite_kernels "$limit_suite_kernels" '*KernelsOnCudaDevice.*:FusedGemvOnCudaDevice.*:GemvBlocksOnCudaDevice.*'
suite suite_parity "$limit_suite_parity" '*BackendParityOnCudaDevice.*'
# large-v3's width (D 1280, 20 heads, 1500 audio positions, 51866 tokens) against the CPU.
suite suite_wide "$limit_suite_wide" '*WideParityOnCudaDevice.*'
suite suite_micro "$limit_suite_micro" 'MicroModelOnCudaDevice.*'
suite suite_cross_attention "$limit_suite_cross_attention" '*CrossAttentionOnCudaDevice.*'
suite suite_ggml_quant "$limit_suite_ggml_quant" 'GgmlQuantOnCudaDevice.*:*BlockGemvOnCudaDevice.*'
# Every other device suite: the token choice kernel and its windows against the host's choice,
# the fused encoder against the old launches, shared beam caches, taps, the plan listing against
# the launches, step errors, out-of-memory, word timestamps and whole transcriptions.
suite suite_rest "$limit_suite_rest" \
    'TokenChoice*OnCudaDevice.*:EncoderFusionOnCudaDevice.*:CrossKvFusionOnCudaDevice.*:DeviceBytesOnCudaDevice.*:BeamCachesOnCudaDevice.*:TapsOnCudaDevice.*:PlanListingOnCudaDevice.*:StepErrorsOnCudaDevice.*:OutOfMemoryOnCudaDevice.*:WordTimestampsOnCudaDevice.*:TranscribeOnCudaDevice.*'

sanitize() {
    local tool=$1 name=$2 limit=$3 filter=$4
    run_phase "$name" "$limit" "$sanitizer" --tool "$tool" --error-exitcode 9 \
        --print-limit 20 "$tests" --gtest_filter="$filter"
}
sanitize memcheck memcheck_micro "$limit_memcheck_micro" 'MicroModelOnCudaDevice.LogitsMatchPyTorch'
sanitize memcheck memcheck_f32 "$limit_memcheck_f32" '*BackendParityOnCudaDevice.*/F32Small'
sanitize racecheck racecheck_encode "$limit_racecheck_encode" \
    '*BackendParityOnCudaDevice.EncodeAndDecodeMatchTheCpu/F32Small'
sanitize initcheck initcheck_steps "$limit_initcheck_steps" \
    '*BackendParityOnCudaDevice.PrefillAndStepsMatchTheFullDecode/F32Small'
sanitize synccheck synccheck_encode "$limit_synccheck_encode" \
    '*BackendParityOnCudaDevice.EncodeAndDecodeMatchTheCpu/Bf16OddHeads'

# Each shape in its own process, the quick one first; the random checkpoints are written once
# into $EARSHOT_BENCH_CHECKPOINTS, and ncu_step reuses base's.
bench() {
    local name=$1 limit=$2 filter=$3
    run_phase "$name" "$limit" "$bin/earshot_cuda_bench" --benchmark_filter="$filter" \
        --benchmark_min_time=0.1 --benchmark_out="$logs/$name.json" --benchmark_out_format=json
}
bench bench_base "$limit_bench_base" '/base(/|$)'
# Not large-v3's q5_0 row: quantizing a 1.55 G-value twin on the host would take most of the
# phase (base's q5_0 row shows the block GEMV's ratio to f16).
bench bench_large_v3 "$limit_bench_large_v3" \
    '^(encode|step|step_beam5|window100)/large-v3(/pos[0-9]+)?(/old_kernels)?$'
# A dozen kernels of a base step, past the model's upload and the first steps.
run_phase ncu_step "$limit_ncu_step" "$ncu" --clock-control none --launch-skip 400 \
    --launch-count 12 --csv --log-file "$logs/ncu_step.csv" "$bin/earshot_cuda_bench" \
    --benchmark_filter='^step/base/pos8$' --benchmark_min_time=0.05

# The table, last; at most 8 files in $OUT.
{
    printf '%-22s %-12s %7s  %s\n' phase result seconds note
    for row in "${rows[@]}"; do
        IFS='|' read -r name result seconds note <<<"$row"
        printf '%-22s %-12s %7s  %s\n' "$name" "$result" "$seconds" "$note"
    done
    if [[ $mode == --dry-run ]]; then
        verdict="a dry run"
    elif ((failed == 0)); then
        verdict="every phase passed"
    else
        verdict=FAILED
    fi
    echo "phase limits $limit_total s of 520; $verdict"
} >"$logs/table.txt"
python3 - "$logs/table.txt" "$out/session.json" "${rows[@]}" <<'PY' || true
import json, sys
rows = [dict(zip(("phase", "result", "seconds", "note"), r.split("|", 3))) for r in sys.argv[3:]]
json.dump({"phases": rows}, open(sys.argv[2], "w"), indent=1)
PY
cp "$logs/table.txt" "$out/table.txt"
for name in bench_base bench_large_v3; do
    [[ -f $logs/$name.json ]] && cp "$logs/$name.json" "$out/$name.json"
done
[[ -f $logs/ncu_step.csv ]] && cp "$logs/ncu_step.csv" "$out/ncu_step.csv"
tar -czf "$out/logs.tar.gz" -C "$work" logs
files=$(find "$out" -maxdepth 1 -type f | wc -l)
((files <= 8)) || echo "session.sh: $files files in $OUT, more than 8"
echo "== session (files in $out: $(cd "$out" && echo *))"
cat "$logs/table.txt"
((failed == 0)) || exit 1
