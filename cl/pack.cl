/* pack.cl: operands copied into a workspace. clgemm_pack_transpose: one operand copied
 * transposed, for a kernel that cannot read it as stored (the tma family: TF32 only K-major, every
 * type only on 16-byte rows). The stored matrix is `lines` lines of `len` contiguous elements, line
 * l at src + off + l * ld; the copy is `len` lines of `lines` elements, line q at dst + doff + q *
 * ldd (ldd >= lines; the elements past `lines` are never read). Batch b (the third grid dimension)
 * reads from b * stride and writes to b * dstride. Elements are moved as bits (PACK_T: an unsigned
 * integer of their size), 32 x 32 at a time through local memory, so that both the reads and the
 * writes are whole rows. */
#ifndef PACK_T
#define PACK_T uint
#endif
/* The panel kernels below read elements of PACK_SRC_T and write PACK_T: the same bits (PACK_FROM
 * 0), or FP16 (1) or BF16 (2) codes or INT8 values (3) widened to FP32 bits (PACK_T uint),
 * exactly, every code (signed zeros, subnormals, infinities and NaN payloads included): the
 * micro-kernel then runs its FP32 loop on the panels instead of widening each element at each
 * use. */
#ifndef PACK_FROM
#define PACK_FROM 0
#endif
#if PACK_FROM == 1
#define PACK_SRC_T ushort
static inline uint pack_widen(const ushort code) {
    const uint h = code, em = h & 0x7fffu;
    const uint bits = em < 0x400u     ? as_uint((float)em * 0x1p-24f)
                      : em >= 0x7c00u ? (em << 13) | 0x7f800000u
                                      : (em << 13) + 0x38000000u;
    return bits | (h & 0x8000u) << 16;
}
#elif PACK_FROM == 2
#define PACK_SRC_T       ushort
#define pack_widen(code) ((uint)(code) << 16)
#elif PACK_FROM == 3
#define PACK_SRC_T    char
#define pack_widen(x) as_uint((float)(x))
#else
#define PACK_SRC_T    PACK_T
#define pack_widen(x) (x)
#endif

__kernel __attribute__((reqd_work_group_size(32, 8, 1))) void
clgemm_pack_transpose(const __global PACK_T *restrict src, const ulong off, const int ld,
                      const ulong stride, __global PACK_T *restrict dst, const ulong doff,
                      const int ldd, const ulong dstride, const int len, const int lines) {
    __local PACK_T tile[32][33]; /* one column of padding: the transposed reads hit 32 banks */
    const int q0 = (int)get_group_id(0) * 32, l0 = (int)get_group_id(1) * 32;
    const int tx = (int)get_local_id(0), ty = (int)get_local_id(1);
    const ulong b = get_global_id(2);
    src += off + b * stride;
    dst += doff + b * dstride;
    for (int j = ty; j < 32; j += 8) {
        const int q = q0 + tx, l = l0 + j;
        if (q < len && l < lines) tile[j][tx] = src[(ulong)l * (ulong)ld + (ulong)q];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int j = ty; j < 32; j += 8) {
        const int l = l0 + tx, q = q0 + j;
        if (l < lines && q < len) dst[(ulong)q * (ulong)ldd + (ulong)l] = tile[tx][j];
    }
}

/* clgemm_pack_lines: one operand copied as it is laid out, onto lines of whole 16-byte rows
 * (ldd, a multiple of 16 bytes, >= len), for a kernel that reads aligned operands by 16-byte
 * copies (src/exec/pack.c's alignment copies). The same signature and grid as
 * clgemm_pack_transpose: the stored matrix's line l at src + off + l * ld goes to dst + doff +
 * l * ldd, batch b from b * stride to b * dstride; each work-item copies element q of 4 lines,
 * 32 consecutive elements a line per 32 work-items, so reads and writes are whole rows. The
 * line's end past len (under 16 bytes) gets zeros: a kernel reading whole 16-byte chunks there
 * reads values, not whatever the workspace held. */
__kernel __attribute__((reqd_work_group_size(32, 8, 1))) void
clgemm_pack_lines(const __global PACK_T *restrict src, const ulong off, const int ld,
                  const ulong stride, __global PACK_T *restrict dst, const ulong doff,
                  const int ldd, const ulong dstride, const int len, const int lines) {
    const int q = (int)get_group_id(0) * 32 + (int)get_local_id(0);
    const int l0 = (int)get_group_id(1) * 32, ty = (int)get_local_id(1);
    const ulong b = get_global_id(2);
    src += off + b * stride;
    dst += doff + b * dstride;
    if (q >= ldd) return;
    for (int j = ty; j < 32; j += 8) {
        const int l = l0 + j;
        if (l < lines)
            dst[(ulong)l * (ulong)ldd + (ulong)q] =
                q < len ? src[(ulong)l * (ulong)ld + (ulong)q] : (PACK_T)0;
    }
}

/* clgemm_pack_split: an FP32 operand split in two for the 3xTF32 mode of the tensor-map family
 * (cl/tma.cl, SPLIT3), in the layout it is stored in: the stored matrix as for
 * clgemm_pack_transpose (PACK_T uint: FP32 bits); element (l, q)'s parts at dst + doff + l * ldd
 * + q (big) and at dst + dsmall + l * ldd + q (small), batch b dstride further. big is x rounded
 * to the nearest TF32 (ties away; x truncated where that would pass FLT_MAX), small is x - big
 * (exact) rounded the same way, so big + small is x within 2^-23 |x| and |small| <= 2^-11 |x|:
 * the products the kernel leaves out, small(A) small(B), are within 2^-22 |a b|. An infinite x
 * splits into itself and NaN, a NaN into a quiet NaN and NaN (as the other families' 3xTF32 split:
 * their products are NaN). */
static inline uint tf32_nearest(const uint x) {
    return (x + 0x1000u) & 0xFFFFE000u;
}
__kernel __attribute__((reqd_work_group_size(32, 8, 1))) void
clgemm_pack_split(const __global uint *restrict src, const ulong off, const int ld,
                  const ulong stride, __global uint *restrict dst, const ulong doff, const int ldd,
                  const ulong dstride, const int len, const int lines, const ulong dsmall) {
    const int q = (int)get_group_id(0) * 32 + (int)get_local_id(0);
    const ulong b = get_global_id(2);
    src += off + b * stride;
    if (q >= len) return;
    for (int j = (int)get_local_id(1); j < 32; j += 8) {
        const int l = (int)get_group_id(1) * 32 + j;
        if (l >= lines) return;
        const uint x = src[(ulong)l * (ulong)ld + (ulong)q];
        uint big = tf32_nearest(x);
        if (isinf(as_float(big))) big = x & 0xFFFFE000u; /* past FLT_MAX, or x infinite */
        if (isnan(as_float(x))) big = 0x7FC00000u;
        const float r = as_float(x) - as_float(big);
        const ulong at = b * dstride + (ulong)l * (ulong)ldd + (ulong)q;
        dst[doff + at] = big;
        dst[dsmall + at] = isfinite(r) ? tf32_nearest(as_uint(r)) : as_uint(r);
    }
}

/* clgemm_pack_panels: one K-block of op(A) or op(B) in the micro-panels of the micro-kernel's
 * blocked schedule (cl/microkernel.cl, PACKED). Element (r, q) of the block, r along the panels
 * (M of op(A), N of op(B)) and q along K, is src[off + r * rs + q * qs] (rs or qs is 1, the other
 * the leading dimension: the copy is the transpose where one is needed). Panel r / width starts
 * at dst + doff + (r / width) * width * depth and holds `depth` steps of `width` contiguous
 * elements; rows from `rows` to the end of the last panel are zeros, so the micro-kernel reads
 * whole panels with no edge case. A work-item writes one step of one panel (dimension 0: steps,
 * 1: panels): neighbours along q read neighbouring elements where the source is contiguous
 * along K, and each reads `width` of them where it is contiguous along the panel. */
static inline void pack_panel_step(const __global PACK_SRC_T *restrict src, const ulong off,
                                   const ulong rs, const ulong qs, const int rows, const int depth,
                                   const int width, __global PACK_T *restrict dst, const ulong doff,
                                   const int q, const int panel) {
    const int r0 = panel * width, full = min(width, rows - r0);
    __global PACK_T *to = dst + doff + ((ulong)panel * (ulong)depth + (ulong)q) * (ulong)width;
    const __global PACK_SRC_T *from = src + off + (ulong)r0 * rs + (ulong)q * qs;
    for (int e = 0; e < full; e++)
        to[e] = pack_widen(from[(ulong)e * rs]);
    for (int e = full; e < width; e++)
        to[e] = (PACK_T)0;
}

__kernel __attribute__((reqd_work_group_size(64, 1, 1))) void
clgemm_pack_panels(const __global PACK_SRC_T *restrict src, const ulong off, const ulong rs,
                   const ulong qs, const int rows, const int depth, const int width,
                   __global PACK_T *restrict dst, const ulong doff) {
    const int q = (int)get_global_id(0), panel = (int)get_global_id(1);
    if (q < depth) pack_panel_step(src, off, rs, qs, rows, depth, width, dst, doff, q, panel);
}

/* clgemm_pack_panel_pair: two such copies of one depth in one launch, each as clgemm_pack_panels
 * makes it: dimension 1's first (rows_b + width_b - 1) / width_b indices are the first's panels
 * (op(B)'s K-block), the rest the second's (op(A)'s first block). The blocked schedule
 * (src/exec/gemm.c) packs both before each K-block's multiply, and each launch costs PoCL 20-30 us
 * (a chain of empty kernels on 2 cores of a Xeon): FP32 256^3, 0.23 ms a call, ran 0.62-0.63 x
 * OpenBLAS in three launches and 0.68-0.73 in two (bench/results/pocl-xeon-pack-pair.log). */
__kernel __attribute__((reqd_work_group_size(64, 1, 1))) void
clgemm_pack_panel_pair(const __global PACK_SRC_T *restrict src_b, const ulong off_b,
                       const ulong rs_b, const ulong qs_b, const int rows_b, const int width_b,
                       const ulong doff_b, const __global PACK_SRC_T *restrict src_a,
                       const ulong off_a, const ulong rs_a, const ulong qs_a, const int rows_a,
                       const int width_a, const ulong doff_a, const int depth,
                       __global PACK_T *restrict dst) {
    const int q = (int)get_global_id(0), panel = (int)get_global_id(1);
    const int panels_b = (rows_b + width_b - 1) / width_b;
    if (q >= depth) return;
    if (panel < panels_b)
        pack_panel_step(src_b, off_b, rs_b, qs_b, rows_b, depth, width_b, dst, doff_b, q, panel);
    else
        pack_panel_step(src_a, off_a, rs_a, qs_a, rows_a, depth, width_a, dst, doff_a, q,
                        panel - panels_b);
}

/* clgemm_pack_panel_runs: the same copy where the source is contiguous along the panels (rs 1)
 * and its columns lie far apart (the host's choice, src/exec/pack.c): a work-item writes
 * RUN_STEPS steps of `run` consecutive panels (dimension 0: groups of RUN_STEPS steps, 1: runs of
 * panels), reading each step from one contiguous stretch of its column, in 64-byte vectors where
 * an element has 4 bytes or more (so that every vector starts on a 4-byte boundary), the
 * RUN_STEPS columns a line at a time in turn, as OpenBLAS's copy of A reads four columns. One
 * panel's 128 bytes a work-item, at the leading dimension's stride from its neighbours, copied
 * about 2.5 GB/s (PoCL, AMD EPYC, an 8192^2 FP64 operand), a third of the time of 64 x 8192 x
 * 8192; runs of one step still left that copy at about 5.7 GB/s on one core, where four columns
 * together, into blocks of A that stay in the caches (src/exec/gemm.c), took a third less time
 * (docs/perf/NOTES.md). A kernel of its own: wrapped around the one-panel copy above, the loop over
 * a run slowed that copy (FP64 256 x 256 x 16384: 72 against 79 GFLOPS). */
#ifndef RUN_STEPS
#define RUN_STEPS 1
#endif
__kernel __attribute__((reqd_work_group_size(64, 1, 1))) void
clgemm_pack_panel_runs(const __global PACK_SRC_T *restrict src, const ulong off, const ulong qs,
                       const int rows, const int depth, const int width,
                       __global PACK_T *restrict dst, const ulong doff, const int run) {
    const int q0 = (int)get_global_id(0) * RUN_STEPS;
    if (q0 >= depth) return;
    const int steps = min(RUN_STEPS, depth - q0);
    const int first = (int)get_global_id(1) * run;
    const int last = min(first + run, (rows + width - 1) / width);
    const int row_vectors = width * (int)sizeof(PACK_T) / 64; /* a panel row's 64-byte vectors */
#if PACK_FROM == 0 /* a widening pack converts element by element */
    const bool vectors = sizeof(PACK_T) >= 4 && (width * sizeof(PACK_T)) % 64 == 0;
#else
    const bool vectors = false;
#endif
    for (int panel = first; panel < last; panel++) {
        const int r0 = panel * width, full = min(width, rows - r0);
        __global PACK_T *to = dst + doff + ((ulong)panel * (ulong)depth + (ulong)q0) * (ulong)width;
        const __global PACK_SRC_T *from = src + off + (ulong)r0 + (ulong)q0 * qs;
        if (vectors && full == width && steps == RUN_STEPS) {
            for (int v = 0; v < row_vectors; v++)
#pragma unroll
                for (int s = 0; s < RUN_STEPS; s++)
                    vstore16(vload16(v, (const __global uint *)(from + (ulong)s * qs)),
                             s * row_vectors + v, (__global uint *)to);
            continue;
        }
        for (int s = 0; s < steps; s++) {
            for (int e = 0; e < full; e++)
                to[s * width + e] = pack_widen(from[(ulong)s * qs + e]);
            for (int e = full; e < width; e++)
                to[s * width + e] = (PACK_T)0;
        }
    }
}
