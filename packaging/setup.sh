#!/usr/bin/env bash
# Installs, only when missing, every Debian 12 package that building and testing Earshot needs;
# with --train, also what retraining the embedded micro model needs (resources/models/micro).
set -euo pipefail

train=0
for argument in "$@"; do
    case "$argument" in
    --train) train=1 ;;
    *)
        echo "usage: packaging/setup.sh [--train]" >&2
        exit 2
        ;;
    esac
done

# One package a line; later modules add theirs here.
packages=(
    build-essential
    cmake
    ninja-build
    pkg-config
    git
    qt6-base-dev
    qt6-svg-dev
    libgl-dev
    libcli11-dev
    nlohmann-json3-dev
    libgtest-dev
    libgmock-dev
    libbenchmark-dev
    clang-format
    fonts-dejavu-core
    graphviz
    # ui: the inspector's graph layout (libgvc, dot)
    libgraphviz-dev
    xvfb
    xauth
    # tests: presses the global shortcut under Xvfb (XTest), as a user's keyboard would
    xdotool
    # tests: a private session bus for the stand-in desktop portal (dbus-daemon --session)
    dbus-daemon
    # CPU backend: BLAS (the pthread build runs sgemm on every core)
    libopenblas-dev
    libopenblas0-pthread
    # audio: FFT, file decoding and resampling, microphone capture
    libkissfft-dev
    libavformat-dev
    libavcodec-dev
    libavutil-dev
    libswresample-dev
    portaudio19-dev
    libasound2-dev
    libjack-jackd2-dev
    # audio: names what a file holds when it is not audio (libmagic and its type database)
    libmagic-dev
    libmagic-mgc
    # audio tests: a virtual microphone (PulseAudio null sink via ALSA's pulse plugin),
    # speech and fixture files
    pulseaudio
    pulseaudio-utils
    libasound2-plugins
    alsa-utils
    espeak-ng
    sox
    ffmpeg
    # tests: zlib inflates the .npz reference files
    zlib1g-dev
    # tokenizer: the GPT-2 pre-tokenizer regex (UTF-8, Unicode properties)
    libpcre2-dev
    # app: model downloads from the Hugging Face hub (libcurl) and their SHA-256 / SHA-1 check
    libcurl4-openssl-dev
    libssl-dev
    # app: the OpenAI-compatible HTTP server (Boost.Beast and Boost.Asio, header-only)
    libboost-dev
    # server tests: the official `openai` client on Node.js (tests/app/server/package.json)
    nodejs
    # cluster test: a one-node Slurm (controller, node daemon, sbatch) and its MUNGE
    # authentication, started by the test itself (packaging/slurm/transcribe-array.sbatch)
    slurm-wlm
    munge
    # app: typing into the focused window on X11 (XTest)
    libx11-dev
    libxtst-dev
    # packaging: CPack's .deb (dpkg-shlibdeps computes Depends; file finds the ELF objects) and
    # its test, which validates the desktop entry and the AppStream metadata
    dpkg-dev
    file
    desktop-file-utils
    appstream
)
if [[ $train -eq 1 ]]; then
    # the micro model's training recipe: Debian's PyTorch (CPU, OpenBLAS) and NumPy
    packages+=(python3 python3-torch python3-numpy)
fi

# npm: Debian's package, unless a Node.js that bundles its own npm (NodeSource's, which conflicts
# with Debian's npm) is installed already.
if ! command -v npm >/dev/null 2>&1; then
    packages+=(npm)
fi

missing=()
for package in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null || true)
    if [[ "$status" != "installed" ]]; then
        missing+=("$package")
    fi
done

# The server tests' Node.js packages, at the versions tests/app/server/package-lock.json pins.
install_node_packages() {
    local dir
    dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/tests/app/server"
    if [[ -d "$dir/node_modules/openai" ]]; then
        return
    fi
    echo "setup: npm ci in $dir"
    (cd "$dir" && npm ci --no-audit --no-fund)
}

if [[ ${#missing[@]} -eq 0 ]]; then
    echo "setup: all ${#packages[@]} packages are installed"
    install_node_packages
    exit 0
fi

sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then
    sudo_cmd=(sudo)
fi

echo "setup: installing ${missing[*]}"
"${sudo_cmd[@]}" apt-get update
"${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y --no-install-recommends "${missing[@]}"
install_node_packages
