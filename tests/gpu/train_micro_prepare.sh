#!/usr/bin/env bash
# Gathers, on a Debian machine with network access, what tests/gpu/train_micro_run.sh needs on a
# GPU machine that has Python, torch and numpy but no espeak-ng: the Debian packages of espeak-ng,
# its data and every shared library it loads (except glibc, which the GPU machine has in a newer
# version), fetched with `apt-get download` and unpacked with `dpkg -x` into build/train-carry
# (not into /), plus a wrapper bin/espeak-ng that runs the unpacked binary with its libraries
# (LD_LIBRARY_PATH) and data (ESPEAK_DATA_PATH) for that process alone.
# Usage: tests/gpu/train_micro_prepare.sh [carry folder, default build/train-carry]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
carry=${1:-build/train-carry}
command -v espeak-ng >/dev/null || { echo "espeak-ng is not installed here (see packaging/setup.sh)" >&2; exit 1; }

# The packages: espeak-ng, its data, and the owners of the libraries the installed binary loads.
packages="espeak-ng espeak-ng-data"
for lib in $(ldd "$(command -v espeak-ng)" | awk '/=>/ {print $3}'); do
    path=$(realpath "$lib")
    owner=$(dpkg -S "$path" 2>/dev/null || dpkg -S "${path#/usr}" 2>/dev/null) || {
        echo "no package owns $path" >&2
        exit 1
    }
    packages="$packages ${owner%%:*}"
done
# glibc (libc.so.6, libm.so.6, the loader) stays the GPU machine's own.
packages=$(echo "$packages" | tr ' ' '\n' | grep -vx 'libc6' | sort -u | tr '\n' ' ')

rm -rf "$carry"
mkdir -p "$carry/debs" "$carry/bin"
chmod a+rwx "$carry/debs" # apt-get download fetches as its own user (_apt)
(cd "$carry/debs" && apt-get download $packages >/dev/null)
for deb in "$carry"/debs/*.deb; do
    dpkg -x "$deb" "$carry/root"
done
ls "$carry/debs" >"$carry/PACKAGES"
rm -rf "$carry/debs"
# What a synthesis never reads: documentation, manual pages, and the dictionaries of languages
# other than English.
rm -rf "$carry/root/usr/share"
find "$carry/root" -name '*_dict' ! -name 'en_dict' -delete

libdirs="lib/x86_64-linux-gnu:usr/lib/x86_64-linux-gnu:usr/lib/x86_64-linux-gnu/pulseaudio"
cat >"$carry/bin/espeak-ng" <<'EOF'
#!/bin/sh
# espeak-ng from the unpacked Debian packages beside this folder, with their libraries and data.
here=$(cd "$(dirname "$0")/.." && pwd)
LD_LIBRARY_PATH="$here/root/lib/x86_64-linux-gnu:$here/root/usr/lib/x86_64-linux-gnu:$here/root/usr/lib/x86_64-linux-gnu/pulseaudio" \
ESPEAK_DATA_PATH="$here/root/usr/lib/x86_64-linux-gnu/espeak-ng-data" \
    exec "$here/root/usr/bin/espeak-ng" "$@"
EOF
chmod +x "$carry/bin/espeak-ng"

# Checks: the wrapper names the carried data, loads only carried libraries (besides glibc), and
# speaks.
"$carry/bin/espeak-ng" --version
here=$(cd "$carry" && pwd)
outside=$(LD_LIBRARY_PATH=$(echo "$libdirs" | sed "s|\([^:]*\)|$here/root/\1|g") \
    ldd "$carry/root/usr/bin/espeak-ng" | awk '/=>/ {print $3}' | grep -v "^$here/" |
    grep -Ev '/(libc|libm)\.so\.6$' || true)
if [ -n "$outside" ]; then
    echo "libraries loaded from outside $carry: $outside" >&2
    exit 1
fi
bytes=$("$carry/bin/espeak-ng" -v en-us --stdout "check the carried speech" | wc -c)
[ "$bytes" -gt 20000 ] || { echo "the carried espeak-ng wrote $bytes bytes" >&2; exit 1; }
size_kib=$(du -sk "$carry" | cut -f1)
echo "carried folder $carry: $(wc -l <"$carry/PACKAGES") packages, $((size_kib / 1024)) MiB (limit 64 MiB with the working tree)"
[ "$size_kib" -lt $((32 * 1024)) ] || { echo "$carry is over 32 MiB" >&2; exit 1; }
