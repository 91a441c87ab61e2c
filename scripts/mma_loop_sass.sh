#!/bin/sh
# mma_loop_sass.sh: the machine code of cl/mma.cl's K loop for one option set, counted offline:
# the kernel through clang-14 to PTX and ptxas for sm_90a (as check_mma_ptx.sh builds it), then
# disassembled. A loop is a backward branch whose body holds the most matrix instructions (DMMA,
# HMMA, IMMA); each such loop is printed (F64_LOOP builds two: tiles inside M and N first, then
# edge tiles). Prints ptxas's registers and spills, and each loop's instructions and their mix
# per slice (a body unrolled over several slices, one barrier each, is divided by its barriers):
# mma, local loads (LDS, LDSM), copies (LDGSTS), NOP (and never-executed @!PT fillers), barriers
# and cp.async waits, integer (IMAD, IADD3, LEA, LOP3, SHF, ISETP, SEL, MOV, ...),
# uniform-register (U*), spill loads and stores (LDL, STL), branches, and the rest. The figures
# of the FP64 default and F64_LOOP are in docs/perf/NOTES.md ("K loop in machine code").
# Usage: mma_loop_sass.sh [NAME=VALUE ...]: build options over the FP64 default (MMA_TYPE=4
# F64_K16=1, 128 x 64 x 16 tiles of 64 x 32 warps, 2 stages, NN, aligned), e.g. TRANSA=1 or
# ALIGNED_A=0 ALIGNED_B=0. Environment: SOURCE_ROOT (the checkout), KERNEL_PARTS (the build's
# kernel-parts program), PTXAS, and NVDISASM or CUOBJDUMP (either disassembler; from a CUDA
# toolkit, none is part of the repository); exit 77 (skipped) without clang-14, ptxas or a
# disassembler. SASS=FILE also keeps the whole disassembly there.
set -eu
opts="MMA_TYPE=4 F64_K16=1 TYPE_AB=1 TYPE_C=1 SWIZZLE=1 C_INPUT=0 CONJA=0 CONJB=0 MWG=128 NWG=64
KWG=16 WM=64 WN=32 STAGES=2 TRANSA=0 TRANSB=0 ALIGNED_A=1 ALIGNED_B=1 $*"
nvdisasm=${NVDISASM:-$(command -v nvdisasm || true)}
cuobjdump=${CUOBJDUMP:-$(command -v cuobjdump || true)}
usable() { [ -n "$1" ] && [ -f "$1" ] && [ -x "$1" ]; }
if ! usable "$nvdisasm" && ! usable "$cuobjdump"; then
    echo "skipped: no nvdisasm or cuobjdump (NVDISASM, CUOBJDUMP)"
    exit 77
fi
self=$(dirname "$0")
set -- "${SOURCE_ROOT:-$self/..}" "${KERNEL_PARTS:-}"
KERNEL=mma.cl # read by setup.sh
# shellcheck source=scripts/nvptx/setup.sh
. "$self/nvptx/setup.sh"
# Each NAME=VALUE once, the last one given winning.
defines=$(echo "$opts" | tr ' ' '\n' | grep '=' | awk -F= '{ v[$1] = $2; if (!($1 in o)) o[$1] = n++ }
    END { for (k in v) print o[k], "-D" k "=" v[k] }' | sort -n | cut -d' ' -f2)
# shellcheck disable=SC2086 # one word per option
if ! to_ptx $defines; then
    cat "$work/clang.log" >&2
    exit 1
fi
sed -e 's/^\.version .*/.version 8.0/' -e 's/^\.target .*/.target sm_90a/' "$work/k.ptx" \
    > "$work/p.ptx"
"$ptxas" -arch=sm_90a -v -o "$work/k.cubin" "$work/p.ptx" > "$work/ptxas.log" 2>&1 ||
    { cat "$work/ptxas.log" >&2; exit 1; }
report=$(sed -n "/entry function 'clgemm_mma'/,/Used/p" "$work/ptxas.log")
regs=$(echo "$report" | sed -n 's/.*Used \([0-9]*\) registers.*/\1/p')
spills=$(echo "$report" | sed -n 's/.* \([0-9]*\) bytes spill stores, \([0-9]*\) bytes spill loads.*/\1 \/ \2/p')
if usable "$nvdisasm"; then
    "$nvdisasm" -c "$work/k.cubin" > "$work/k.sass"
else
    "$cuobjdump" -sass "$work/k.cubin" > "$work/k.sass"
fi
[ -z "${SASS:-}" ] || cp "$work/k.sass" "$SASS"
echo "$defines" | tr "\n" " "; echo
echo "registers $regs, spill stores / loads ${spills:-0 / 0} bytes"
# Instructions as (address, text); labels (nvdisasm) or hexadecimal addresses (cuobjdump) as
# branch targets.
awk '
function hex(h,    v, i) {
    v = 0
    for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
    return v
}
function kind(op) {
    if (op ~ /^[DHI]MMA/) return "mma"
    if (op ~ /^LDS/) return "lds"
    if (op ~ /^LDGSTS/) return "ldgsts"
    if (op ~ /^NOP/) return "nop"
    if (op ~ /^(BAR|DEPBAR|LDGDEPBAR|WARPSYNC)/) return "sync"
    if (op ~ /^(LDL|STL)/) return "spill"
    if (op ~ /^(BRA|BSSY|BSYNC)/) return "branch"
    if (op ~ /^U/) return "uniform"
    if (op ~ /^(IMAD|IADD|VIADD|LEA|LOP|SHF|SHL|SHR|ISETP|SEL|MOV|PRMT|IABS|VIMNMX|IMNMX|SGXT|P2R|R2P|PLOP3|S2R|CS2R|FLO|POPC|BMSK|LDC)/) return "int"
    return "other"
}
/^\.L_x_[0-9]+:/ { lab = $1; sub(/:$/, "", lab); pending[lab] = 1; next }
match($0, /\/\*[0-9a-f]+\*\/ +[^;]*;/) {
    s = substr($0, RSTART, RLENGTH)
    addr = substr(s, 3, index(s, "*/") - 3)
    sub(/^\/\*[0-9a-f]+\*\/ +/, "", s); sub(/ *;$/, "", s)
    n++; a[n] = hex(addr); txt[n] = s
    for (l in pending) { at[l] = a[n]; delete pending[l] }
    op = s; sub(/^@!?U?P[T0-9]+ +/, "", op); split(op, w, /[ .]/); k[n] = kind(w[1]); opn[n] = w[1]
    if (s ~ /^@!PT /) k[n] = "nop" # never executed: ptxas'"'"'s filler
}
END {
    best = 0; nl = 0
    for (i = 1; i <= n; i++) {
        if (opn[i] != "BRA") continue
        t = txt[i]; tgt = -1
        if (match(t, /\.L_x_[0-9]+/)) { l = substr(t, RSTART, RLENGTH); if (l in at) tgt = at[l] }
        else if (match(t, /0x[0-9a-f]+/)) tgt = hex(substr(t, RSTART + 2, RLENGTH - 2))
        if (tgt < 0 || tgt > a[i]) continue
        m = 0
        for (j = 1; j <= i; j++) if (a[j] >= tgt && k[j] == "mma") m++
        if (!m) continue
        nl++; lmma[nl] = m; llo[nl] = tgt; lhi[nl] = i
        if (m > best) best = m
    }
    if (!best) { print "no loop with mma instructions found"; exit 1 }
    split("mma lds ldgsts nop sync int uniform spill branch other", kinds, " ")
    for (q = 1; q <= nl; q++) {
        if (lmma[q] < best) continue
        lo = llo[q]; hi = lhi[q]; total = 0; slices = 0
        for (x in c) delete c[x]
        for (j = 1; j <= hi; j++) if (a[j] >= lo) {
            c[k[j]]++; total++
            if (opn[j] == "BAR") slices++
        }
        if (!slices) slices = 1
        printf "loop %x-%x: %d instructions, %d slice(s); per slice: %.1f\n", lo, a[hi], total,
            slices, total / slices
        line = ""
        for (r = 1; r <= 10; r++) line = line sprintf(" %s %.1f", kinds[r], c[kinds[r]] / slices)
        print "  per slice:" line
    }
}' "$work/k.sass"
