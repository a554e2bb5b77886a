#!/usr/bin/env bash
# The one script a GPU machine runs (tests/gpu/prepare.sh built its inputs in build/gpu-carry):
# the CUDA backend's tests against the CPU backend and the micro model, under a time limit,
# then a short table, also written as JSON to $OUT/gpu_table.json when $OUT is set.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
carry=$root/build/gpu-carry
out=${OUT:-$(mktemp -d)}
if [[ ! -x $carry/earshot_engine_tests ]]; then
    echo "run.sh: $carry/earshot_engine_tests is missing; run tests/gpu/prepare.sh first" >&2
    exit 2
fi
echo "== machine"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
echo "carried build of commit $(cat "$carry/COMMIT" 2>/dev/null || echo unknown)," \
    "checkout at $(git rev-parse HEAD 2>/dev/null || echo unknown)"
export LD_LIBRARY_PATH=$carry:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
export EARSHOT_TEST_GOLDEN_DIR=$root/tests/golden
export EARSHOT_MICRO_MODEL_DIR=$root/resources/models/micro/model
export EARSHOT_CUDA_MODULE=$carry/libearshot_cuda.so
echo "== CUDA tests"
timeout "${EARSHOT_GPU_TEST_TIMEOUT_S:-420}" "$carry/earshot_engine_tests" \
    --gtest_filter='*OnCudaDevice*:CudaAvailability.*:CpuBackend*' \
    --gtest_output="json:$out/gtest.json" 2>&1 | tee "$out/tests.log"
status=${PIPESTATUS[0]}
echo "== table"
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
exit "$status"
