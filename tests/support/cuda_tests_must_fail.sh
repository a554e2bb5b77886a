#!/usr/bin/env bash
# Runs a test binary's CUDA tests where each one must fail, neither skip nor pass, with a reason
# that contains REASON: the proof that a broken CUDA module, or a run that demands a device
# (EARSHOT_REQUIRE_CUDA=1) on a machine without one, cannot end in a green ctest.
#
#   cuda_tests_must_fail.sh [--unless-driver] REASON BINARY [GTEST ARGS...]
#
# Exit 0 when at least one test ran and every test that ran failed with REASON; 1 otherwise, with
# the counts. --unless-driver: exit 77 (skipped) on a machine with an NVIDIA driver, where the
# tests may rightly pass.
set -u

unless_driver=0
if [[ ${1:-} == --unless-driver ]]; then
    unless_driver=1
    shift
fi
if [[ $# -lt 2 ]]; then
    echo "usage: $0 [--unless-driver] REASON BINARY [GTEST ARGS...]" >&2
    exit 1
fi
reason=$1
shift

if ((unless_driver)); then
    driver=$( (/sbin/ldconfig -p 2>/dev/null || true) | awk '$1 == "libcuda.so.1" {print $NF; exit}')
    for dir in /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib /usr/lib/wsl/lib; do
        [[ -z $driver && -e $dir/libcuda.so.1 ]] && driver=$dir/libcuda.so.1
    done
    if [[ -n $driver ]]; then
        echo "this machine has an NVIDIA driver ($driver): the tests may pass here"
        exit 77
    fi
fi

output=$("$@" 2>&1)
status=$?
printf '%s\n' "$output"

count() { grep -c -F -- "$1" <<<"$output"; }
ran=$(count '[ RUN      ]')
passed=$(count '[       OK ]')
skipped=$(count '[  SKIPPED ]')
with_reason=$(count "$reason")

echo "--- ran $ran, passed $passed, skipped $skipped, lines with \"$reason\": $with_reason," \
    "exit status $status"
if ((status == 0 || ran == 0 || passed > 0 || skipped > 0 || with_reason < ran)); then
    echo "FAIL: every CUDA test here must fail, each naming \"$reason\"" >&2
    exit 1
fi
echo "every CUDA test failed with the reason"
