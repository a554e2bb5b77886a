#!/usr/bin/env bash
# CI check: the GUI starts under Xvfb with a model loaded and is still up after 10 s.
# Usage: gui_under_xvfb.sh EARSHOT_EXE SHARED_DIR
set -euo pipefail

exe=$1
vocab=$2/whisper-assets/multilingual.tiktoken
seconds=10

if ! command -v xvfb-run >/dev/null; then
    echo "SKIP: xvfb-run is not installed (packaging/setup.sh installs it)"
    exit 77
fi
if [[ ! -f "$vocab" ]]; then
    echo "SKIP: $vocab not found"
    exit 77
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$exe" debug make-checkpoint --out "$work/model" --d 64 --heads 4 --enc-layers 2 \
    --dec-layers 2 >/dev/null

# Its own settings and data folders, so the user's remembered model and journal stay out of it.
export XDG_CONFIG_HOME=$work/config XDG_DATA_HOME=$work/data
# timeout ends the GUI after $seconds s with status 124; any other status means it exited (or
# crashed) by itself before that.
status=0
xvfb-run -a timeout "$seconds" "$exe" gui --model "$work/model" --vocab "$vocab" \
    >"$work/out.log" 2>&1 || status=$?
if [[ $status -ne 124 ]]; then
    echo "FAIL: the GUI exited by itself with status $status before $seconds s:"
    cat "$work/out.log"
    exit 1
fi
if ! grep -q "loaded the model $work/model" "$work/out.log"; then
    echo "FAIL: the GUI stayed up but the model did not load:"
    cat "$work/out.log"
    exit 1
fi
echo "PASS: the GUI stayed up for $seconds s with the model loaded"
