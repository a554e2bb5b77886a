# shellcheck shell=bash
# Sourced by prepare.sh (here, without a GPU) and by session.sh and run.sh (on the GPU machine):
# what the carried folder holds, where cuBLAS is found there, and the check that every carried
# binary's libraries resolve before anything runs.
#
# The carried folder (build/gpu-carry unless EARSHOT_GPU_CARRY names another) holds bin.tar.xz
# (the stripped binaries and the shared libraries they need that are not the machine's own),
# MANIFEST (its files and sizes) and COMMIT.

# Libraries a GPU machine has itself, never carried: the C and C++ runtimes (its own are newer
# than the build machine's, and must match its loader) and the CUDA libraries (cuBLAS 13 alone is
# about 700 MB; earshot_find_cublas finds them). Everything else ldd names is carried:
# OpenBLAS with its Fortran runtime, GoogleTest, Google Benchmark, PCRE2, zlib, ...
earshot_host_libraries='^(linux-vdso|ld-linux-x86-64|libc|libm|libmvec|libpthread|libdl|librt|libresolv|libstdc\+\+|libgcc_s|libcuda|libcudart|libcublas|libcublasLt)\.so'

# The folder with libcublas.so.13 and libcublasLt.so.13: the toolkit's lib64 first, then the
# known places of other copies (the toolkit's target folder, versioned toolkits, the system's
# library folder, the NVIDIA wheels of a Python install). Prints it; fails when there is none.
earshot_find_cublas() {
    local dir
    for dir in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib \
        /usr/local/cuda-13*/lib64 /usr/local/cuda-13*/targets/x86_64-linux/lib \
        /usr/lib/x86_64-linux-gnu /usr/local/cuda/lib \
        /usr/local/lib/python3*/dist-packages/nvidia/cu13/lib \
        /usr/local/lib/python3*/dist-packages/nvidia/cublas/lib \
        /usr/lib/python3/dist-packages/nvidia/cu13/lib \
        /usr/lib/python3/dist-packages/nvidia/cublas/lib; do
        if [[ -e $dir/libcublas.so.13 && -e $dir/libcublasLt.so.13 ]]; then
            echo "$dir"
            return 0
        fi
    done
    return 1
}

# Unpacks CARRY/bin.tar.xz into DEST (tar with xz, else Python's tarfile).
earshot_unpack_carry() {
    local carry=$1 dest=$2
    mkdir -p "$dest"
    if ! tar -xJf "$carry/bin.tar.xz" -C "$dest" 2>/dev/null; then
        python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' \
            "$carry/bin.tar.xz" "$dest"
    fi
}

# ldd of every file in DIR with the LD_LIBRARY_PATH it runs with: prints each library that is
# "not found", or that resolves outside DIR although it is not the machine's own, and returns 3
# when there is any; else prints one line and returns 0.
earshot_carry_self_test() {
    local dir=$1 file line name path missing=() stray=()
    for file in "$dir"/*; do
        [[ -f $file ]] || continue
        while IFS= read -r line; do
            name=$(awk '{print $1}' <<<"$line")
            if [[ $line == *"not found"* ]]; then
                missing+=("$(basename "$file"): $name")
            elif [[ $line == *" => "* ]]; then
                path=$(awk '{print $3}' <<<"$line")
                if [[ $path != "$dir"/* ]] && ! [[ $name =~ $earshot_host_libraries ]]; then
                    stray+=("$(basename "$file"): $name => $path")
                fi
            fi
        done < <(ldd "$file" 2>&1)
    done
    if ((${#missing[@]} > 0 || ${#stray[@]} > 0)); then
        local entry
        for entry in "${missing[@]}"; do echo "self-test: not found: $entry"; done
        for entry in "${stray[@]}"; do echo "self-test: not carried: $entry"; done
        return 3
    fi
    echo "self-test: every library of $(find "$dir" -maxdepth 1 -type f | wc -l) carried files" \
        "resolves (LD_LIBRARY_PATH=$LD_LIBRARY_PATH)"
}
