#!/usr/bin/env bash
# CI check: the GUI starts under Xvfb as the README's run command starts it (no --model: the
# embedded micro model) and is still up after 10 s with that model loaded.
# Usage: gui_under_xvfb.sh EARSHOT_EXE MICRO_MODEL_DIR
set -euo pipefail

exe=$1
model=$2
seconds=10

if ! command -v xvfb-run >/dev/null; then
    echo "SKIP: xvfb-run is not installed (packaging/setup.sh installs it)"
    exit 77
fi
if [[ ! -f "$model/model.safetensors" ]]; then
    echo "FAIL: the embedded micro model is missing: $model/model.safetensors"
    exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Its own settings and data folders, so no remembered model stands in for the embedded one.
export XDG_CONFIG_HOME=$work/config XDG_DATA_HOME=$work/data
# timeout ends the GUI after $seconds s with status 124; any other status means it exited (or
# crashed) by itself before that.
status=0
xvfb-run -a timeout "$seconds" "$exe" >"$work/out.log" 2>&1 || status=$?
if [[ $status -ne 124 ]]; then
    echo "FAIL: the GUI exited by itself with status $status before $seconds s:"
    cat "$work/out.log"
    exit 1
fi
if ! grep -q "loaded the model $model" "$work/out.log"; then
    echo "FAIL: the GUI stayed up but did not load the embedded model $model:"
    cat "$work/out.log"
    exit 1
fi
echo "PASS: the GUI stayed up for $seconds s with the embedded model loaded"
