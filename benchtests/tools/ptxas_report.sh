#!/usr/bin/env bash
# Resource use of every CUDA kernel, as ptxas reports it: compiles each
# kernels/<k>/<k>.cu, the backend's device code (benchtests/src/backend/*.cu, the
# compute roofs) and the test kernels' (benchtests/tests/<k>/<k>.cu: the slow
# test kernel of gpu_check.sh's step ab) for the given architectures with -Xptxas -v (as the build
# does: -std=c++17 -O3, the project's include path, the library variants
# enabled: KB_HAVE_CUBLAS, KB_HAVE_CUBLASLT, KB_HAVE_CUDNN) and prints one
# Markdown table row per kernel instantiation:
#
#   | kernel | precision | sm_80 regs | spill | smem | sm_90 regs | spill | smem |
#
# precision is the kernel's first template type (fp64, fp32, fp16, bf16; the
# storage type, or the arithmetic type for kernels templated on it); spill is
# spill stores + loads in bytes; smem is static shared memory in bytes.
# Exits 1 when any kernel spills, so it doubles as a check.
#
# Usage: benchtests/tools/ptxas_report.sh [arch ...]   (default: 80 90)
# Environment: NVCC (default: nvcc on PATH, else /usr/local/cuda/bin/nvcc),
# KBENCH_SOURCE (default: the repository this script is in).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source_dir=${KBENCH_SOURCE:-$(cd "$here/../.." && pwd)}
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
filt=$(dirname "$nvcc")/cu++filt
[ -x "$filt" ] || filt=c++filt
archs=("$@")
[ ${#archs[@]} -gt 0 ] || archs=(80 90)

gencode=()
for a in "${archs[@]}"; do gencode+=(-gencode "arch=compute_$a,code=sm_$a"); done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# ptxas -v, one line per kernel and architecture:
#   <arch> <mangled name> <registers> <spill bytes> <smem bytes>
ptxas_lines() {
    awk '
        /Compiling entry function/ {
            match($0, /function .[^ ]+. for .sm_[0-9a-z]+./)
            split(substr($0, RSTART, RLENGTH), w, /['"'"']/)
            name = w[2]; arch = w[4]; spill = 0
        }
        /spill stores/ { spill = $5 + $9 }
        /Used [0-9]+ registers/ && name != "" {
            regs = $0; sub(/.*Used /, "", regs); sub(/ registers.*/, "", regs)
            smem = 0
            if (match($0, /[0-9]+ bytes smem/)) smem = substr($0, RSTART) + 0
            print arch, name, regs, spill, smem
            name = ""
        }'
}

shopt -s nullglob
for cu in "$source_dir"/kernels/*/*.cu "$source_dir"/benchtests/src/*/*.cu \
    "$source_dir"/benchtests/tests/*/*.cu; do
    k=$(basename "$cu" .cu)
    "$nvcc" -x cu -std=c++17 -O3 "${gencode[@]}" -Xptxas -v \
        -DKB_HAVE_CUBLAS -DKB_HAVE_CUBLASLT -DKB_HAVE_CUDNN \
        -I "$source_dir/benchtests/include" -I "$(dirname "$cu")" \
        -c "$cu" -o "$work/$k.o" 2>"$work/$k.log" || {
        cat "$work/$k.log" >&2
        echo "ptxas_report: $cu does not compile" >&2
        exit 2
    }
    ptxas_lines <"$work/$k.log" >>"$work/all.txt"
done

# Demangle, name the precision, one row per kernel with the architectures
# side by side.
cut -d' ' -f2 "$work/all.txt" | "$filt" >"$work/names.txt"
paste -d'\t' "$work/all.txt" "$work/names.txt" | awk -F'\t' -v archs="${archs[*]}" '
    function precision(name,   t) {
        t = name; sub(/^[^<]*</, "", t)
        if (t ~ /^double/) return "fp64"
        if (t ~ /^float/) return "fp32"
        if (t ~ /^kb_f16/) return "fp16"
        if (t ~ /^kb_bf16/) return "bf16"
        if (t ~ /^__half2/) return "fp16"
        if (t ~ /^__nv_bfloat162/) return "bf16"
        return "-"
    }
    {
        split($1, f, " "); arch = f[1]; regs = f[3]; spill = f[4]; smem = f[5]
        name = $2; sub(/\(.*$/, "", name); sub(/^void /, "", name)
        gsub(/\|/, "\\|", name)
        if (!(name in seen)) { seen[name] = 1; order[++n] = name }
        cell[name, arch] = regs " | " spill " | " smem
        if (spill > 0) spills++
    }
    END {
        na = split(archs, a, " ")
        head = "| kernel | precision |"; rule = "|---|---|"
        for (i = 1; i <= na; i++) {
            head = head " sm_" a[i] " regs | spill | smem |"; rule = rule "--:|--:|--:|"
        }
        print head; print rule
        for (j = 1; j <= n; j++) {
            row = "| `" order[j] "` | " precision(order[j]) " |"
            for (i = 1; i <= na; i++) {
                c = cell[order[j], "sm_" a[i]]
                row = row " " (c == "" ? "- | - | -" : c) " |"
            }
            print row
        }
        if (spills > 0) { print "ptxas_report: " spills " kernel(s) spill" > "/dev/stderr"; exit 1 }
    }'
