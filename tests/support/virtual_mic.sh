#!/usr/bin/env bash
# A virtual microphone for tests: a private PulseAudio daemon with a null sink "virtmic" whose
# monitor is the default source, so ALSA's pulse plugin (and PortAudio) records what is played in.
#
#   virtual_mic.sh start [ENV_FILE]   start the daemon (or reuse the running one) and print the
#                                     environment lines to export, or write them to ENV_FILE
#   virtual_mic.sh play FILE          play an audio file into the sink (blocks until it ends)
#   virtual_mic.sh stop               stop exactly the daemon `start` started (by its pid file)
#   virtual_mic.sh env                print the environment lines of the running daemon
#
# State lives in $VIRTUAL_MIC_DIR (default ${TMPDIR:-/tmp}/earshot-virtual-mic-$UID): give each
# test process its own folder to get its own daemon. PulseAudio is a required package
# (packaging/setup.sh installs it), so every failure, a missing tool included, exits 1 with the
# reason on stderr: the device tests fail on a broken setup, they do not skip.
set -euo pipefail

state_dir=${VIRTUAL_MIC_DIR:-${TMPDIR:-/tmp}/earshot-virtual-mic-$(id -u)}
pid_file=$state_dir/pulseaudio.pid
env_file=$state_dir/env

usage() {
    echo "usage: virtual_mic.sh start [ENV_FILE] | play FILE | stop | env" >&2
    exit 2
}

fail() {
    echo "virtual_mic.sh: $*" >&2
    exit 1
}

need_tools() {
    local tool
    for tool in "$@"; do
        command -v "$tool" >/dev/null 2>&1 || fail "$tool is not installed (packaging/setup.sh installs it)"
    done
}

# The pid of our daemon when it is still alive, else nothing.
running_pid() {
    [[ -f $pid_file ]] || return 0
    local pid
    pid=$(<"$pid_file")
    if [[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null &&
        [[ $(cat "/proc/$pid/comm" 2>/dev/null) == pulseaudio ]]; then
        echo "$pid"
    fi
}

# Loads the environment lines `start` recorded (XDG_RUNTIME_DIR, PULSE_SERVER).
load_env() {
    [[ -f $env_file ]] || return 1
    local line
    while IFS= read -r line; do
        [[ $line == export\ * ]] && export "${line#export }"
    done <"$env_file"
}

emit_env() {
    local target=${1:-}
    if [[ -n $target ]]; then
        cp "$env_file" "$target"
    else
        cat "$env_file"
    fi
}

start() {
    need_tools pulseaudio pactl
    mkdir -p "$state_dir"
    chmod 700 "$state_dir"
    if [[ -n $(running_pid) ]] && load_env && pactl info >/dev/null 2>&1; then
        emit_env "${1:-}"
        return 0
    fi
    # A stale state folder from a daemon that died: start afresh.
    stop_daemon

    # A short runtime folder of our own: the socket path must stay under 108 bytes.
    local runtime_dir
    runtime_dir=$(mktemp -d "${TMPDIR:-/tmp}/earshot-pulse.XXXXXX")
    chmod 700 "$runtime_dir"
    echo "$runtime_dir" >"$state_dir/runtime_dir"
    export XDG_RUNTIME_DIR=$runtime_dir
    export PULSE_SERVER=unix:$runtime_dir/pulse/native
    {
        echo "export XDG_RUNTIME_DIR=$XDG_RUNTIME_DIR"
        echo "export PULSE_SERVER=$PULSE_SERVER"
    } >"$env_file"

    # -n: no default script, so only these two modules; the log goes to our state folder.
    if ! pulseaudio -D --exit-idle-time=-1 --disallow-exit -n --use-pid-file=yes \
        --log-target="file:$state_dir/pulseaudio.log" \
        --load="module-null-sink sink_name=virtmic" \
        --load="module-native-protocol-unix" 2>>"$state_dir/pulseaudio.log"; then
        tail -n 5 "$state_dir/pulseaudio.log" >&2 || true
        stop_daemon
        fail "pulseaudio did not start"
    fi
    # pulseaudio writes its pid under XDG_RUNTIME_DIR; keep a copy where `stop` looks.
    local i
    for ((i = 0; i < 50; i++)); do
        if [[ -f $runtime_dir/pulse/pid ]] && pactl info >/dev/null 2>&1; then
            break
        fi
        sleep 0.1
    done
    if [[ ! -f $runtime_dir/pulse/pid ]] || ! pactl info >/dev/null 2>&1; then
        tail -n 5 "$state_dir/pulseaudio.log" >&2 || true
        stop_daemon
        fail "pulseaudio started but does not answer on $PULSE_SERVER"
    fi
    tr -d '[:space:]' <"$runtime_dir/pulse/pid" >"$pid_file"
    pactl set-default-source virtmic.monitor
    emit_env "${1:-}"
}

# Kills the daemon recorded in our pid file (never by name) and removes the runtime folder.
stop_daemon() {
    local pid
    pid=$(running_pid)
    if [[ -n $pid ]]; then
        kill "$pid" 2>/dev/null || true
        local i
        for ((i = 0; i < 50; i++)); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
    fi
    if [[ -f $state_dir/runtime_dir ]]; then
        local runtime_dir
        runtime_dir=$(<"$state_dir/runtime_dir")
        # Only ever a folder this script made.
        [[ $runtime_dir == */earshot-pulse.* ]] && rm -rf -- "$runtime_dir"
    fi
    rm -f -- "$pid_file" "$env_file" "$state_dir/runtime_dir" "$state_dir/pulseaudio.log"
}

play() {
    [[ $# -eq 1 ]] || usage
    need_tools paplay
    [[ -n $(running_pid) ]] && load_env || fail "the virtual microphone is not running"
    paplay -d virtmic "$1"
}

[[ $# -ge 1 ]] || usage
command=$1
shift
case "$command" in
start)
    [[ $# -le 1 ]] || usage
    start "$@"
    ;;
play) play "$@" ;;
stop)
    [[ $# -eq 0 ]] || usage
    stop_daemon
    # Leave an empty state folder behind only if it was not ours to remove.
    rmdir -- "$state_dir" 2>/dev/null || true
    ;;
env)
    [[ -n $(running_pid) ]] && load_env || fail "the virtual microphone is not running"
    emit_env
    ;;
*) usage ;;
esac
