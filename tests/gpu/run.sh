#!/usr/bin/env bash
# The CUDA tests or the benchmarks beside Hugging Face transformers on a GPU machine, from what
# tests/gpu/prepare.sh carried (build/gpu-carry). tests/gpu/session.sh is the whole device run
# (tests, sanitizers, benchmarks, Nsight Compute) in one command; this script is its parts, with
# the transformers comparison session.sh leaves out.
#   run.sh [tests]  the CUDA backend's tests against the CPU backend and the micro model
#   run.sh bench    earshot_cuda_bench on large-v3, large-v3-turbo and base shapes, and Hugging Face
#                   transformers on the same checkpoints (EARSHOT_GPU_HF_COMPILE=1 adds its
#                   torch.compile step; budget about 3 more minutes)
#   run.sh all      both
# Each part runs under a time limit and ends with a short table, also written as JSON to
# $OUT/gpu_table.json (tests) and $OUT/bench_table.json (bench) when $OUT is set.
set -uo pipefail
mode=${1:-tests}
case "$mode" in tests | bench | all) ;; *) echo "usage: run.sh [tests|bench|all]" >&2; exit 2 ;; esac
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root" || exit 2
# shellcheck source=tests/gpu/carry.sh
source "$root/tests/gpu/carry.sh"
carried=${EARSHOT_GPU_CARRY:-$root/build/gpu-carry}
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
if [[ ! -f $carried/bin.tar.xz ]]; then
    echo "run.sh: $carried/bin.tar.xz is missing; run tests/gpu/prepare.sh first" >&2
    exit 2
fi
carry=$(mktemp -d)
trap 'rm -rf "$carry"' EXIT
earshot_unpack_carry "$carried" "$carry"
echo "== machine"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
echo "carried build of commit $(cat "$carried/COMMIT" 2>/dev/null || echo unknown)," \
    "checkout at $(git rev-parse HEAD 2>/dev/null || echo unknown)"
cublas=$(earshot_find_cublas) || cublas=/usr/local/cuda/lib64
echo "cuBLAS: $cublas"
export LD_LIBRARY_PATH=$carry:$cublas${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
earshot_carry_self_test "$carry" || exit 3
export EARSHOT_REQUIRE_CUDA=1
export EARSHOT_TEST_GOLDEN_DIR=$root/tests/golden
export EARSHOT_MICRO_MODEL_DIR=$root/resources/models/micro/model
export EARSHOT_CUDA_MODULE=$carry/libearshot_cuda.so
status=0
if [[ $mode == tests || $mode == all ]]; then
echo "== CUDA tests"
timeout "${EARSHOT_GPU_TEST_TIMEOUT_S:-420}" "$carry/earshot_engine_tests" \
    --gtest_filter='*OnCudaDevice*:CudaAvailability.*:*CpuBackend*' \
    --gtest_output="json:$out/gtest.json" 2>&1 | tee "$out/tests.log"
status=${PIPESTATUS[0]}
echo "== test table"
python3 - "$out/gtest.json" "$out/tests.log" "$out/gpu_table.json" "$status" <<'PY'
import json, re, sys
gtest, log, table_path, status = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
rows = []
try:
    report = json.load(open(gtest))
    for suite in report.get("testsuites", []):
        for test in suite.get("testsuite", []):
            result = "FAIL" if test.get("failures") else (
                "SKIP" if test.get("result") == "SKIPPED" else "ok")
            rows.append({"test": suite["name"] + "." + test["name"], "result": result,
                         "time": test.get("time", "")})
except Exception as error:  # a crash leaves no JSON: say so in the table
    rows.append({"test": "(no gtest report: %s)" % error, "result": "FAIL", "time": ""})
measured = [line.strip() for line in open(log, errors="replace")
            if re.search(r"relative error|relative$|against PyTorch|beam \d+: CPU", line)]
width = max(len(r["test"]) for r in rows) if rows else 10
for r in rows:
    print(f'{r["test"]:<{width}}  {r["result"]:<4}  {r["time"]}')
print("-- measured")
for line in measured:
    print(line)
passed = sum(r["result"] == "ok" for r in rows)
failed = sum(r["result"] == "FAIL" for r in rows)
skipped = sum(r["result"] == "SKIP" for r in rows)
print(f"-- {passed} passed, {failed} failed, {skipped} skipped; exit status {status}")
json.dump({"tests": rows, "measured": measured, "exit_status": status,
           "passed": passed, "failed": failed, "skipped": skipped},
          open(table_path, "w"), indent=1)
PY
fi

if [[ $mode == bench || $mode == all ]]; then
echo "== benchmarks"
export EARSHOT_BENCH_CHECKPOINTS=${EARSHOT_BENCH_CHECKPOINTS:-/tmp/earshot-bench-checkpoints}
timeout "${EARSHOT_GPU_BENCH_TIMEOUT_S:-300}" "$carry/earshot_cuda_bench" \
    --benchmark_filter='/(large-v3|large-v3-turbo|base)($|/)' --benchmark_min_time=0.2 \
    --benchmark_out="$out/bench.json" --benchmark_out_format=json 2>&1 | tee "$out/bench.log"
bench_status=${PIPESTATUS[0]}
[[ $bench_status -eq 0 ]] || status=$bench_status
echo "== Hugging Face transformers on the same checkpoints"
compile=()
[[ ${EARSHOT_GPU_HF_COMPILE:-0} == 1 ]] && compile=(--compile)
timeout "${EARSHOT_GPU_HF_TIMEOUT_S:-300}" python3 "$root/tests/gpu/hf_whisper_bench.py" \
    "$EARSHOT_BENCH_CHECKPOINTS" "$out/hf.json" "${compile[@]}" 2>&1 | tail -5
echo "== bench table"
python3 - "$out/bench.json" "$out/hf.json" "$out/bench_table.json" <<'PY'
import json, sys
bench_path, hf_path, table_path = sys.argv[1:4]
try:
    bench = json.load(open(bench_path)).get("benchmarks", [])
except Exception as error:
    bench = []
    print("no benchmark report:", error)
try:
    hf = json.load(open(hf_path))
except Exception:
    hf = {}
def hf_ms(kind, shape):
    entry = hf.get(shape, {})
    if kind == "encode":
        return entry.get("encoder_ms")
    if kind == "step":
        return entry.get("step_ms_compiled") or entry.get("step_ms_eager")
    if kind == "window100":
        return entry.get("window100_ms_compiled")
    return None
rows = []
for b in bench:
    name = b["name"]
    parts = name.split("/")
    kind, shape = parts[0], parts[1]
    row = {"benchmark": name, "ms": None if b.get("error_occurred") else b["real_time"],
           "floor_ms": b.get("floor_ms"), "target_ms": b.get("target_ms"),
           "device_MiB": b.get("device_MiB"), "hf_ms": hf_ms(kind, shape),
           "error": b.get("error_message")}
    rows.append(row)
def fmt(v, digits=3):
    return "-" if v is None else ("%.*g" % (digits, v))
print("%-34s %9s %9s %9s %9s %9s %9s" % ("benchmark", "ms", "floor", "target", "HF ms",
                                          "HF/ours", "dev MiB"))
for r in rows:
    ratio = r["hf_ms"] / r["ms"] if r["hf_ms"] and r["ms"] else None
    print("%-34s %9s %9s %9s %9s %9s %9s" % (r["benchmark"], fmt(r["ms"]), fmt(r["floor_ms"]),
          fmt(r["target_ms"]), fmt(r["hf_ms"]), fmt(ratio), fmt(r["device_MiB"], 5)))
    if r["error"]:
        print("    error:", r["error"])
print("HF:", {k: v for k, v in hf.items() if k in ("versions", "error")})
json.dump({"rows": rows, "hf": hf}, open(table_path, "w"), indent=1)
PY
fi
exit "$status"
