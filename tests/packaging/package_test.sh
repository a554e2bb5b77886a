#!/usr/bin/env bash
# The .deb end to end: CPack packs the existing build tree, the package is unpacked into a scratch
# root, and the installed earshot runs from there (--version, inspect and transcribe on the
# installed micro model and sample), with its desktop entry and AppStream metadata validated.
# usage: package_test.sh BUILD_DIR VERSION WITH_CUDA(ON|OFF)
set -euo pipefail

build=$1
version=$2
with_cuda=$3

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# Pack what is built (no rebuild): cpack installs the tree into its own staging folder.
cpack -G DEB --config "$build/CPackConfig.cmake" -B "$scratch/out" >"$scratch/cpack.log" 2>&1 ||
    { cat "$scratch/cpack.log" >&2; fail "cpack failed"; }
debs=("$scratch"/out/*.deb)
[[ ${#debs[@]} -eq 1 && -f ${debs[0]} ]] || fail "expected one .deb, found: ${debs[*]}"
deb=${debs[0]}
echo "package: $(basename "$deb")"

[[ $(dpkg-deb -f "$deb" Package) == earshot ]] || fail "package name"
[[ $(dpkg-deb -f "$deb" Version) == "$version" ]] || fail "package version is not $version"
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
# Computed from the linked libraries: the C library, Qt and the audio and BLAS libraries.
# The package names, one a line (versions and alternatives dropped).
names=$(tr ',|' '\n\n' <<<"$depends" | awk '{print $1}')
for needed in libc6 libstdc++6 libqt6widgets6 libqt6gui6 libqt6core6 libqt6network6 \
    libportaudio2 libavformat59 libcurl4 libopenblas0; do
    grep -qxF "$needed" <<<"$names" || fail "Depends lacks $needed"
done
# CUDA is optional at run time: nothing from NVIDIA may be required.
if grep -Eiq 'cuda|cublas|nvidia' <<<"$depends"; then fail "Depends names CUDA: $depends"; fi

root=$scratch/root
dpkg-deb -x "$deb" "$root"
exe=$root/usr/bin/earshot
model=$root/usr/share/earshot/models/micro
[[ -x $exe ]] || fail "no usr/bin/earshot"
[[ -x $root/usr/bin/earshot-server ]] || fail "no usr/bin/earshot-server (earshot serve runs it)"
[[ -f $model/config.json && -f $model/model.safetensors ]] || fail "no micro model"
for size in 16 32 48 64 128 256; do
    [[ -s $root/usr/share/icons/hicolor/${size}x${size}/apps/org.earshot.Earshot.png ]] ||
        fail "no ${size}x${size} icon"
done
[[ -s $root/usr/share/icons/hicolor/scalable/apps/org.earshot.Earshot.svg ]] || fail "no SVG icon"
if [[ $with_cuda == ON ]]; then
    # Where the engine's module loader looks from bin/earshot (../lib/earshot).
    [[ -f $root/usr/lib/earshot/libearshot_cuda.so ]] || fail "no CUDA module in usr/lib/earshot"
fi

# The man page, from the command line's definitions: every command is in it.
man_page=$root/usr/share/man/man1/earshot.1.gz
[[ -s $man_page ]] || fail "no man page"
page=$(zcat "$man_page")
for command in transcribe live inspect graph models; do
    grep -q "^\.SS \"earshot $command\"" <<<"$page" || fail "man page lacks earshot $command"
done
[[ $(head -n1 <<<"$page") == ".TH EARSHOT 1 \"\" \"earshot $version\""* ]] || fail "man page title"

# The installed binary, started from the scratch root.
version_out=$("$exe" --version)
echo "$version_out"
[[ $(head -n1 <<<"$version_out") == "earshot $version" ]] || fail "--version first line"
grep -q '^backends: CPU' <<<"$version_out" || fail "--version names no backends"
if [[ $with_cuda == ON ]]; then
    grep -q 'CUDA (architectures ' <<<"$version_out" || fail "--version lacks CUDA"
fi
installed_model=$(cd "$model" && pwd -P)
grep -qx "embedded model: $installed_model" <<<"$version_out" ||
    fail "--version does not point at the installed model $installed_model"

inspect_out=$("$exe" inspect --model "$model")
grep -q 'encode' <<<"$inspect_out" || fail "inspect printed no encode entry"

"$exe" transcribe "$root/usr/share/earshot/samples/please-call-me-tomorrow.wav" \
    --model "$model" --backend cpu --format txt --output-dir "$scratch/text" >/dev/null
transcript=$(cat "$scratch/text/please-call-me-tomorrow.txt")
echo "transcribe: $transcript"
normalised=$(tr '[:upper:]' '[:lower:]' <<<"$transcript" | tr -d '.,!?' | xargs)
[[ $normalised == "please call me tomorrow" ]] || fail "transcript was '$transcript'"

desktop-file-validate "$root/usr/share/applications/org.earshot.Earshot.desktop" ||
    fail "desktop-file-validate"
appstreamcli validate --no-net "$root/usr/share/metainfo/org.earshot.Earshot.metainfo.xml" ||
    fail "appstreamcli validate"
grep -q "<release version=\"$version\"" "$root/usr/share/metainfo/org.earshot.Earshot.metainfo.xml" ||
    fail "metainfo has no release $version"
echo "package test passed"
