#!/usr/bin/env bash
# The two developer commands: `dev.sh run` builds and starts the app, `dev.sh test` runs every test.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
jobs=$(nproc)

usage() {
    echo "usage: packaging/dev.sh run [earshot arguments...] | test" >&2
    exit 2
}

[[ $# -ge 1 ]] || usage
command=$1
shift

case "$command" in
run)
    packaging/setup.sh
    cmake --preset default
    cmake --build --preset default -j"$jobs"
    exe=build/default/app/earshot
    if [[ -z "${DISPLAY:-}" && -z "${WAYLAND_DISPLAY:-}" ]]; then
        echo "dev.sh: neither DISPLAY nor WAYLAND_DISPLAY is set; starting under xvfb-run" >&2
        exec xvfb-run -a "$exe" "$@"
    fi
    exec "$exe" "$@"
    ;;
test)
    [[ $# -eq 0 ]] || usage
    packaging/setup.sh
    # Everything, warnings as errors.
    cmake --preset ci
    cmake --build --preset ci -j"$jobs"
    # engine/ and audio/ must build without Qt.
    cmake -S . -B build/noui -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DEARSHOT_BUILD_UI=OFF -DEARSHOT_BUILD_TESTS=OFF -DEARSHOT_WERROR=ON
    cmake --build build/noui -j"$jobs" --target earshot_engine earshot_audio
    # Last, so the run ends with ctest's summary and its exit code.
    set +e
    ctest --test-dir build/ci --output-on-failure -j"$jobs"
    status=$?
    set -e
    exit "$status"
    ;;
*)
    usage
    ;;
esac
