#!/usr/bin/env bash
# The two developer commands: `dev.sh run` builds and starts the app, `dev.sh test` runs every test.
# A third, run by hand and never in CI: `dev.sh train [train.py arguments...]` retrains the
# embedded micro model (resources/models/micro/README.md).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
jobs=$(nproc)

usage() {
    echo "usage: packaging/dev.sh run [earshot arguments...] | test | train [train.py arguments...]" >&2
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
    # engine/, audio/ and the live controller must build without Qt; that build, with
    # ThreadSanitizer, gives the live pipeline's tests that ctest runs below (label tsan).
    cmake -S . -B build/tsan-live -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DEARSHOT_SANITIZE=thread -DEARSHOT_BUILD_UI=OFF -DEARSHOT_BUILD_TESTS=ON \
        -DEARSHOT_WERROR=ON
    cmake --build build/tsan-live -j"$jobs" --target earshot_live_tests
    # Everything, warnings as errors; the parsers' fuzz replays also run once more under ASan and
    # UBSan (a second, sanitized build of the parsers only: tests/fuzz/CMakeLists.txt).
    cmake --preset ci -DEARSHOT_TSAN_LIVE_TESTS="$root/build/tsan-live/tests/earshot_live_tests" \
        -DEARSHOT_SANITIZED_REPLAY=ON
    cmake --build --preset ci -j"$jobs"
    # Last, so the run ends with ctest's summary and its exit code. Label long (a 10-hour file)
    # is run on demand: ctest --test-dir build/ci -L long.
    set +e
    ctest --test-dir build/ci --output-on-failure -j"$jobs" -LE long
    status=$?
    set -e
    exit "$status"
    ;;
train)
    packaging/setup.sh --train
    # Debian's python3, whose dist-packages hold python3-torch (not a virtual environment's).
    exec /usr/bin/python3 resources/models/micro/train.py "$@"
    ;;
*)
    usage
    ;;
esac
