/* pack.c: operands copied into a workspace in a form a kernel reads better (cl/pack.cl). Here
 * first, operands that a tensor-map family cannot read as stored, copied first
 * into a workspace in a form it can: TF32 and 8-bit types stored MN-major (wgmma transposes
 * only 16-bit types) and any operand whose base, leading dimension or batch stride is off 16 bytes
 * (a map's rows must start on them: 4097^2 FP16). The copy is the stored matrix transposed, the
 * call rewritten with the other transpose over it, so op(A) and op(B) are unchanged. Chosen only
 * where the planner then takes the family; the copy costs two passes over the operand (8192^2 TF32:
 * 0.5 GB at the H200's 4 TB/s, 0.13 ms beside a product of 2.8 ms).
 * In the 3xTF32 mode the family reads each (K-major) operand split in two, in its layout: big,
 * each element rounded to TF32, and small, the rest rounded to TF32; the kernel adds small(A)
 * big(B) and big(A) small(B) to big(A) big(B) (cl/tma.cl, SPLIT3). The splits cost a pass over
 * each operand writing two (8192^2: 1.5 GB, about 0.4 ms beside a product of 9 ms).
 * FP32 in the default mode (the tma_simt family) reads both operands MN-major fastest: an operand
 * stored K-major is copied transposed where that pays (mn_major_copies below).
 * An operand off 16 bytes may also be copied onto 16-byte lines in its own layout (the alignment
 * copies, where they pay): a K-major TF32 or 8-bit one, whose transposed copy no map could
 * read (so TF32 4097^2 reaches the family at all), and, where no map is needed, any operand, so
 * that the planned family builds its aligned kernel (below).
 * Then the micro-kernel family's blocked schedule: op(A) and op(B) packed into micro-panels. */
#include "exec/exec.h"

#include <stdint.h>
#include <string.h>

/* The call's A (second false) or B as stored: `lines` lines of `len` contiguous elements. */
static void stored_lines(const gemm_call *c, bool second, size_t *len, size_t *lines) {
    const bool t = (second ? c->trans_b : c->trans_a) != CLGEMM_NO_TRANS;
    const size_t r = second ? c->k : c->m, q = second ? c->n : c->k; /* op(X) is r x q */
    const size_t rows = t ? q : r, cols = t ? r : q;
    const bool col = c->layout == CLGEMM_COL_MAJOR;
    *len = col ? rows : cols;
    *lines = col ? cols : rows;
}

/* The copy's leading dimension, whole 16-byte rows: over the stored lines where it transposes,
 * over each line's elements where it keeps the layout. */
static size_t packed_ld(const gemm_call *c, bool second, bool keep_layout) {
    size_t len, lines;
    stored_lines(c, second, &len, &lines);
    const size_t per16 = 16 / clgemm__type(c->precision)->size, along = keep_layout ? len : lines;
    return (along + per16 - 1) / per16 * per16;
}

/* The copy's lines: the stored matrix's elements per line where it transposes, else its lines. */
static size_t packed_lines(const gemm_call *c, bool second, bool keep_layout) {
    size_t len, lines;
    stored_lines(c, second, &len, &lines);
    return keep_layout ? lines : len;
}

static size_t packed_elements(const gemm_call *c, bool second, bool keep_layout) {
    return packed_lines(c, second, keep_layout) * packed_ld(c, second, keep_layout);
}

/* The call over the copies out names (laid out by clgemm__pack_layout) planned as a problem of
 * its own (other transposes, leading dimensions and offsets) into out->schedule: its family. */
static const family_desc *plan_over_copies(struct clgemm_handle_s *h, const gemm_call *c,
                                           clgemm_compute compute, pack_choice *out) {
    const gemm_call packed = clgemm__packed_call(c, out, NULL);
    const colmajor_shape after = clgemm__colmajor_shape(&packed);
    const size_t batch = c->batched ? c->batch : 1;
    out->schedule =
        clgemm__plan_call(h, &packed, &after, compute, batch, false, true, &out->source);
    return clgemm__family(out->schedule.cfg.family);
}

/* Whether the handle has an operand off 16 bytes copied in its own layout so that the family
 * planned over it builds its aligned kernel: always with CLGEMM_ALIGN_COPIES=1, never with 0,
 * and by default where the copy is re-read enough: the product's other dimension (n for A, m for
 * B) at least ALIGN_COPY_MIN_REUSE. Measured on the H200 (FP64, mma family, copies against
 * none): 1025^2 -5 %, 1537^2 +6 %, 2049^2 +12 %, 4097^2 +16 %, 8193^2 +13 %, 8193 x 1025 x 8193
 * +11 %, but 8193 x 65 x 8193 -45 %, where copying the large operand costs more than it saves. */
#define ALIGN_COPY_MIN_REUSE 1536
static bool align_copy_pays(const struct clgemm_handle_s *h, const gemm_call *c, bool second) {
    if (h->align_copies != -1) return h->align_copies == 1;
    return (second ? c->m : c->n) >= ALIGN_COPY_MIN_REUSE;
}

/* Whether the call's A (k_major[0]) and B are stored K-major: the column-major problem's A when
 * transposed, its B when not, and in a row-major call the column-major A is the call's B. */
static void stored_k_major(const colmajor_shape *shape, bool k_major[2]) {
    k_major[0] =
        shape->swapped ? shape->trans_b == CLGEMM_NO_TRANS : shape->trans_a != CLGEMM_NO_TRANS;
    k_major[1] =
        shape->swapped ? shape->trans_a != CLGEMM_NO_TRANS : shape->trans_b == CLGEMM_NO_TRANS;
}

/* Copies for a tensor-map family (the file's first comment). */
static bool map_copies(struct clgemm_handle_s *h, const gemm_call *c, clgemm_compute compute,
                       pack_choice *out) {
    if (!h->info.nv_tma) return false;
    /* TF32 and the 8-bit types only K-major, FP16 and BF16 either way; FP32 only as TF32 or
     * 3xTF32 (whose operands are always split). */
    const bool k_major_only = clgemm__maps_k_major_only(c->precision, compute);
    const bool three = c->precision == CLGEMM_SINGLE && compute == CLGEMM_COMPUTE_FP32_3XTF32;
    if (c->precision == CLGEMM_SINGLE && compute != CLGEMM_COMPUTE_TF32 && !three) return false;
    if (!k_major_only && c->precision != CLGEMM_HALF && c->precision != CLGEMM_BFLOAT16)
        return false;
    const colmajor_shape shape = clgemm__colmajor_shape(c);
    bool k_major[2];
    stored_k_major(&shape, k_major);
    bool any = false;
    for (int x = 0; x < 2; x++) {
        const bool second = x == 1;
        const size_t stride = second ? c->stride_b : c->stride_a;
        if (c->batched && c->batch > 1 && stride == 0) return false; /* a broadcast stays one */
        const bool column_major_a = second == shape.swapped;
        const bool read_as_is =
            column_major_a && clgemm__maps_a_any_major(h, c->precision, compute);
        /* 3xTF32 reading it as stored: the kernel splits it (no parts made here). */
        const bool on16 = clgemm__operand_on16(c, second);
        out->whole[x] = three && read_as_is && !k_major[x] && on16;
        const bool need = (k_major_only && !k_major[x] && !read_as_is) || !on16;
        if (!need) continue;
        /* A transposed copy of a K-major operand would be MN-major: a K-major one off 16 bytes
         * is copied in its own layout unless the handle says never (CLGEMM_ALIGN_COPIES=0).
         * Wherever the planner then takes the maps, that pays on the H200 against the family
         * that reads it in place: TF32 1025^2 +4 %, 4097^2 2x, 8193 x 65 x 8193 +28 %,
         * 8193 x 1025 x 8193 +70 %; INT8 1025^2 2.3x, 4097^2 19x, 8193 x 65 x 8193 4.4x. */
        if (k_major_only && k_major[x]) {
            if (h->align_copies == 0) return false;
            out->keep_layout[x] = true;
        }
        out->pack[x] = true;
        any = true;
    }
    if (!any && !three) return false;
    out->residual = three;
    /* Only where the planner takes a map-reading family for the call over the copies. */
    clgemm__pack_layout(c, out);
    return plan_over_copies(h, c, compute, out)->tensor_maps;
}

/* FP32 on the CUDA cores through tensor maps (the tma_simt family) reads both operands MN-major
 * best: a thread's 8 x 16 block then takes 16-byte loads along M and N, where a K-major operand
 * gives it 4 steps of K of each column to hold (H200 8192^2, row-major TN, both MN-major: 52.0
 * TFLOPS; NN, B K-major: 48.2; bench/results/h200-tma-simt-streamk-waves.log). A K-major operand
 * is copied transposed (an operand off 16 bytes onto 16-byte lines as it is) where the copy is
 * re-read at least MN_COPY_MIN_REUSE times, two passes over it: about 50 / reuse of the product's
 * time at the H200's 4 TB/s and 50 TFLOPS (8192^2: 0.13 ms beside 22 ms). Taken only where the
 * planner then takes the family for the call over the copies, and not where the call as it stands
 * is tuned to another family. A 64-row operand's copy costs about 15 us, not the 2-3 its bytes
 * take, and reading it as stored costs about as much (H100, row-major NN 64 x 8192 x 8192 0.227
 * ms copied, 0.230 read as stored, TN, with no copy to make, 0.212; 64 x 4096 x 8192 0.136, 0.130,
 * 0.121: bench/results/h100-fp32-narrow-k-major-copy.log): the 15 us are the product's enqueue,
 * 11-15 us of host time on NVIDIA's driver on a queue with profiling, 4-8 without, during which
 * the device has finished the copy and waits (docs/PERFORMANCE.md, "What a launch costs"). */
#define MN_COPY_MIN_REUSE 2048
static bool mn_major_copies(struct clgemm_handle_s *h, const gemm_call *c, clgemm_compute compute,
                            pack_choice *out) {
    if (!h->info.nv_tma || h->mn_major_copies == 0) return false;
    if (c->precision != CLGEMM_SINGLE || compute != CLGEMM_COMPUTE_DEFAULT) return false;
    if (c->batched && c->batch > 1) return false; /* its defaults are for one matrix */
    const colmajor_shape shape = clgemm__colmajor_shape(c);
    bool k_major[2];
    stored_k_major(&shape, k_major);
    bool any = false;
    for (int x = 0; x < 2; x++) {
        const bool second = x == 1;
        const bool on16 = clgemm__operand_on16(c, second);
        if (!k_major[x] && on16) continue;
        const size_t reuse = second ? c->m : c->n;
        if (h->mn_major_copies != 1 && reuse < MN_COPY_MIN_REUSE) return false;
        out->pack[x] = true;
        out->keep_layout[x] = !k_major[x];
        any = true;
    }
    if (!any) return false;
    clgemm__pack_layout(c, out);
    if (out->bytes == SIZE_MAX) return false;
    if (plan_over_copies(h, c, compute, out)->id != CLGEMM_FAMILY_TMA_SIMT) return false;
    /* A configuration tuned for the call as it stands on another family is the tuner's choice for
     * it (the copies' call has another key); only a handle with a tuning table can have one, so
     * only there is the call as it stands planned too. A forced one was planned over the copies
     * above, so it takes them only if it is the family's. */
    if (!h->tuning) return true;
    const char *source;
    const size_t batch = c->batched ? c->batch : 1;
    const gemm_schedule as_is =
        clgemm__plan_call(h, c, &shape, compute, batch, false, true, &source);
    return strcmp(source, "tuned") != 0 || as_is.cfg.family == CLGEMM_FAMILY_TMA_SIMT;
}

/* Alignment copies: an operand whose base, leading dimension or batch stride is off 16 bytes
 * makes every family build its kernel for element-wise reads (the mma family: scalar loads
 * through registers in place of 16-byte cp.async copies, and none of the loop addressing; H200
 * FP64 4097^2 35 TFLOPS where 4096^2 runs 52). Copied onto 16-byte lines in its own layout
 * (transposes, tuning and defaults unchanged), it is read as an aligned one, for two passes
 * over the operand: by default where the family planned over the copies is one where that pays
 * (family_desc's aligned_copies_pay) on a device where that was measured, and only the operands
 * re-read enough (above). */
static bool align_copies(struct clgemm_handle_s *h, const gemm_call *c, clgemm_compute compute,
                         pack_choice *out) {
    const bool asked = h->align_copies == 1;
    /* By default only where measured: the H200 (compute capability 9.0). */
    if (h->align_copies == 0 || (!asked && h->info.nv_compute_capability != 90)) return false;
    if (compute == CLGEMM_COMPUTE_FP32_3XTF32) return false; /* its splits are copies already */
    bool any = false;
    for (int x = 0; x < 2; x++) {
        const bool second = x == 1;
        const size_t stride = second ? c->stride_b : c->stride_a;
        if (c->batched && c->batch > 1 && stride == 0) return false; /* a broadcast stays one */
        out->pack[x] = !clgemm__operand_on16(c, second) && align_copy_pays(h, c, second);
        any = any || out->pack[x];
    }
    if (!any) return false;
    out->keep_layout[0] = out->keep_layout[1] = true;
    clgemm__pack_layout(c, out);
    if (out->bytes == SIZE_MAX) return false;
    /* (a family that reads operands through tensor maps is one the copies open: FP64 4097^2
     * reaches tma_fp64 so, as FP16 4097^2 reaches tma through map_copies) */
    const family_desc *f = plan_over_copies(h, c, compute, out);
    if (!asked && !f->aligned_copies_pay && !f->tensor_maps) return false;
    return f->call_options && (!f->uses_alignment || f->uses_alignment(&out->schedule.cfg));
}

bool clgemm__pack_choose(struct clgemm_handle_s *h, const gemm_call *c, clgemm_compute compute,
                         pack_choice *out) {
    memset(out, 0, sizeof *out);
    if (c->offs_a || c->m == 0 || c->n == 0 || c->k == 0) return false;
    if (c->batched && c->batch > 65535) return false; /* one launch's grid depth */
    if (map_copies(h, c, compute, out)) return true;
    memset(out, 0, sizeof *out);
    if (mn_major_copies(h, c, compute, out)) return true;
    memset(out, 0, sizeof *out);
    return align_copies(h, c, compute, out);
}

/* Each part of the call's A (second false) or B as q (the call over the copies) stores the
 * operand: `lines` lines of `len` elements, each line on whole 16-byte rows. */
static void residual_lines(const gemm_call *q, bool second, size_t *len, size_t *lines,
                           size_t *ld) {
    stored_lines(q, second, len, lines);
    *ld = (*len + 3) / 4 * 4; /* FP32 */
}

/* Appends `elements` x batch elements of size e to the workspace at *offset; false on overflow. */
static bool place(size_t elements, size_t batch, size_t e, size_t *bytes, size_t *offset) {
    size_t add;
    *offset = *bytes / e;
    return !__builtin_mul_overflow(elements, batch * e, &add) &&
           !__builtin_add_overflow(*bytes, (add + 255) / 256 * 256, bytes);
}

void clgemm__pack_layout(const gemm_call *c, pack_choice *p) {
    const size_t e = clgemm__type(c->precision)->size, batch = c->batched ? c->batch : 1;
    p->bytes = 0;
    for (int x = 0; x < 2; x++)
        if (p->pack[x] && !place(packed_elements(c, x == 1, p->keep_layout[x]), batch, e, &p->bytes,
                                 &p->offset[x]))
            goto overflow;
    if (p->residual) {
        const bool residual = p->residual;
        p->residual = false; /* the copies' call, before its parts are placed */
        const gemm_call q = clgemm__packed_call(c, p, NULL);
        p->residual = residual;
        for (int x = 0; x < 2; x++) {
            size_t len, lines, ld;
            if (p->whole[x]) continue;
            residual_lines(&q, x == 1, &len, &lines, &ld);
            if (!place(lines * ld, batch, e, &p->bytes, &p->big[x]) ||
                !place(lines * ld, batch, e, &p->bytes, &p->small[x]))
                goto overflow;
        }
    }
    return;
overflow:
    p->bytes = SIZE_MAX; /* no such workspace: the call runs as it stands */
}

gemm_call clgemm__packed_call(const gemm_call *c, const pack_choice *p, cl_mem work) {
    gemm_call q = *c;
    for (int x = 0; x < 2; x++) {
        if (!p->pack[x]) continue;
        const bool second = x == 1;
        const size_t ld = packed_ld(c, second, p->keep_layout[x]);
        const size_t stride = c->batched ? packed_lines(c, second, p->keep_layout[x]) * ld : 0;
        clgemm_transpose *t = second ? &q.trans_b : &q.trans_a;
        if (!p->keep_layout[x]) *t = *t == CLGEMM_NO_TRANS ? CLGEMM_TRANS : CLGEMM_NO_TRANS;
        if (second) {
            q.b = work, q.off_b = p->offset[x], q.ldb = ld, q.stride_b = stride;
        } else {
            q.a = work, q.off_a = p->offset[x], q.lda = ld, q.stride_a = stride;
        }
    }
    memset(&q.residual, 0, sizeof q.residual);
    if (p->residual) {
        q.residual.on = true;
        q.residual.mem = work;
        for (int x = 0; x < 2; x++) {
            size_t len, lines, ld;
            q.residual.whole[x] = p->whole[x];
            if (p->whole[x]) continue;
            residual_lines(&q, x == 1, &len, &lines, &ld);
            q.residual.big[x] = p->big[x];
            q.residual.small[x] = p->small[x];
            q.residual.ld[x] = ld;
            q.residual.stride[x] = c->batched ? lines * ld : 0;
        }
    }
    return q;
}

/* Steps of K a work-item of clgemm_pack_panel_runs copies, its columns read together (below). */
#define PANEL_RUN_STEPS 4
#define PACK_STRING_(x) #x
#define PACK_STRING(x)  PACK_STRING_(x)

/* The build option naming the unsigned integer of `bytes` bytes (elements are moved as bits),
 * followed by the string literal `more`. */
#define PACK_T_OPTION(bytes, more)                                                                 \
    ((bytes) == 1   ? "-DPACK_T=uchar" more                                                        \
     : (bytes) == 2 ? "-DPACK_T=ushort" more                                                       \
     : (bytes) == 4 ? "-DPACK_T=uint" more                                                         \
     : (bytes) == 8 ? "-DPACK_T=ulong" more                                                        \
                    : "-DPACK_T=ulong2" more) /* complex FP64 */

/* The copy kernels' key: elements moved as bits of their size; `flags` tells the kernels of
 * pack.cl apart (0: the transpose, KEY_LINES: the copy onto 16-byte lines, KEY_PACKED: the
 * panels, with KEY_PANEL_RUNS in runs). */
static void copy_kernel_key(clgemm_precision type, unsigned flags, kernel_key *key,
                            const char **options) {
    memset(key, 0, sizeof *key);
    key->family = KERNEL_PACK;
    key->flags = flags;
    key->type_ab = (unsigned char)clgemm__type(type)->size; /* the bits moved */
    *options = flags & KEY_PANEL_RUNS
                   ? PACK_T_OPTION(key->type_ab, " -DRUN_STEPS=" PACK_STRING(PANEL_RUN_STEPS))
                   : PACK_T_OPTION(key->type_ab, "");
}

const char *clgemm__pack_kernel(const gemm_call *c, bool keep_layout, kernel_key *key,
                                const char **options) {
    copy_kernel_key(c->precision, keep_layout ? KEY_LINES : 0, key, options);
    return keep_layout ? "clgemm_pack_lines" : "clgemm_pack_transpose";
}

/* One operand of c as stored (lines of len elements, batch b at b * its stride) into dst at
 * doff, line l at l * ldd (where the copy transposes it: its line q at q * ldd), matrix b at b *
 * dstride, by a kernel of pack.cl's copy signature. */
static cl_int enqueue_lines(cl_kernel kernel, cl_command_queue queue, const gemm_call *c,
                            bool second, cl_mem dst, cl_ulong doff, cl_int ldd, cl_ulong dstride,
                            cl_uint num_wait, const cl_event *wait, cl_event *event) {
    size_t len, lines;
    stored_lines(c, second, &len, &lines);
    const cl_int ld = (cl_int)(second ? c->ldb : c->lda);
    const cl_int ilen = (cl_int)len, ilines = (cl_int)lines;
    const cl_ulong off = second ? c->off_b : c->off_a;
    const cl_ulong stride = c->batched ? (second ? c->stride_b : c->stride_a) : 0;
    const cl_mem src = second ? c->b : c->a;
    cl_int err = CL_SUCCESS;
    err |= clSetKernelArg(kernel, 0, sizeof src, &src);
    err |= clSetKernelArg(kernel, 1, sizeof off, &off);
    err |= clSetKernelArg(kernel, 2, sizeof ld, &ld);
    err |= clSetKernelArg(kernel, 3, sizeof stride, &stride);
    err |= clSetKernelArg(kernel, 4, sizeof dst, &dst);
    err |= clSetKernelArg(kernel, 5, sizeof doff, &doff);
    err |= clSetKernelArg(kernel, 6, sizeof ldd, &ldd);
    err |= clSetKernelArg(kernel, 7, sizeof dstride, &dstride);
    err |= clSetKernelArg(kernel, 8, sizeof ilen, &ilen);
    err |= clSetKernelArg(kernel, 9, sizeof ilines, &ilines);
    if (err != CL_SUCCESS) return CL_INVALID_KERNEL_ARGS;
    const size_t local[3] = {32, 8, 1};
    const size_t global[3] = {(len + 31) / 32 * 32, (lines + 31) / 32 * 8,
                              c->batched ? c->batch : 1};
    return clEnqueueNDRangeKernel(queue, kernel, 3, NULL, global, local, num_wait, wait, event);
}

cl_int clgemm__enqueue_pack(cl_kernel kernel, cl_command_queue queue, const gemm_call *c,
                            bool second, bool keep_layout, cl_mem work, size_t offset,
                            cl_uint num_wait, const cl_event *wait, cl_event *event) {
    const size_t ldd = packed_ld(c, second, keep_layout);
    const size_t dstride = c->batched ? packed_elements(c, second, keep_layout) : 0;
    /* The copy starts `offset` elements into the workspace (a sub-buffer would need the
     * device's base alignment). */
    return enqueue_lines(kernel, queue, c, second, work, offset, (cl_int)ldd, (cl_ulong)dstride,
                         num_wait, wait, event);
}

void clgemm__residual_kernel(kernel_key *key, const char **options) {
    copy_kernel_key(CLGEMM_SINGLE, KEY_RESIDUAL, key, options);
}

cl_int clgemm__enqueue_residual(cl_kernel kernel, cl_command_queue queue, const gemm_call *q,
                                bool second, cl_uint num_wait, const cl_event *wait,
                                cl_event *event) {
    const int x = second ? 1 : 0;
    const cl_ulong small = q->residual.small[x];
    if (clSetKernelArg(kernel, 10, sizeof small, &small) != CL_SUCCESS)
        return CL_INVALID_KERNEL_ARGS;
    return enqueue_lines(kernel, queue, q, second, q->residual.mem, q->residual.big[x],
                         (cl_int)q->residual.ld[x], q->residual.stride[x], num_wait, wait, event);
}

/* ---- Micro-panels of one K-block (the blocked schedule, gemm.c) ------------------------------ */

const char *clgemm__pack_panels_kernel(clgemm_precision type, panel_copy how, kernel_key *key,
                                       const char **options) {
    static const char *const names[] = {"clgemm_pack_panels", "clgemm_pack_panel_runs",
                                        "clgemm_pack_panel_pair"};
    const bool runs = how == PANELS_RUNS;
    copy_kernel_key(
        type, KEY_PACKED | (runs ? KEY_PANEL_RUNS : 0) | (how == PANELS_PAIR ? KEY_PANEL_PAIR : 0),
        key, options);
    if (clgemm__panel_size(type) == clgemm__type(type)->size) return names[how];
    /* FP16, BF16 and INT8 widened to FP32 as they are packed: their elements in, FP32 bits out
     * (the key's type_c tells these kernels from FP32's own). */
    key->type_ab = (unsigned char)clgemm__panel_size(type);
    key->type_c = (unsigned char)type;
#define WIDEN_OPTIONS(from)                                                                        \
    (runs ? "-DPACK_T=uint -DPACK_FROM=" #from " -DRUN_STEPS=" PACK_STRING(PANEL_RUN_STEPS)        \
          : "-DPACK_T=uint -DPACK_FROM=" #from)
    *options = type == CLGEMM_HALF       ? WIDEN_OPTIONS(1)
               : type == CLGEMM_BFLOAT16 ? WIDEN_OPTIONS(2)
                                         : WIDEN_OPTIONS(3);
#undef WIDEN_OPTIONS
    return names[how];
}

/* The panel kernels' work-group (cl/pack.cl): 64 steps of one panel, or 64 work-items of
 * PANEL_RUN_STEPS steps of one run of panels. */
#define PANEL_GROUP 64
/* Where the source is contiguous along the panels and its columns lie PANEL_RUN_STRIDE bytes or
 * more apart, a work-item copies a run of about PANEL_RUN_BYTES of one column (several panels):
 * one panel's 128 bytes a work-item, each in a page of its own and at the leading dimension's
 * stride from the next, left the copy waiting on memory (cl/pack.cl). Measured there (64 x 8192 x
 * 8192, columns 32 KB and 64 KB apart); closer columns keep one panel a work-item. */
#define PANEL_RUN_BYTES  1024
#define PANEL_RUN_STRIDE (16 * 1024)

int clgemm__pack_panels_run(const panel_source *src, size_t elem_size) {
    const size_t panel_bytes = (size_t)src->width * elem_size;
    return src->rs == 1 && src->qs * elem_size >= PANEL_RUN_STRIDE && panel_bytes < PANEL_RUN_BYTES
               ? (int)(PANEL_RUN_BYTES / panel_bytes)
               : 1;
}

/* The panels a source fills (its last one padded with zeros). */
static size_t source_panels(const panel_source *src) {
    return ((size_t)src->rows + (size_t)src->width - 1) / (size_t)src->width;
}

cl_int clgemm__pack_panels_args(cl_kernel kernel, const panel_source *src, int run, cl_mem work,
                                size_t offset, size_t global[2], size_t local[2]) {
    const cl_ulong doff = offset;
    const cl_int run_arg = run;
    const size_t panels = source_panels(src);
    cl_int err = CL_SUCCESS;
    cl_uint i = 0;
    err |= clSetKernelArg(kernel, i++, sizeof src->mem, &src->mem);
    err |= clSetKernelArg(kernel, i++, sizeof src->off, &src->off);
    if (run == 1) err |= clSetKernelArg(kernel, i++, sizeof src->rs, &src->rs);
    err |= clSetKernelArg(kernel, i++, sizeof src->qs, &src->qs);
    err |= clSetKernelArg(kernel, i++, sizeof src->rows, &src->rows);
    err |= clSetKernelArg(kernel, i++, sizeof src->depth, &src->depth);
    err |= clSetKernelArg(kernel, i++, sizeof src->width, &src->width);
    err |= clSetKernelArg(kernel, i++, sizeof work, &work);
    err |= clSetKernelArg(kernel, i++, sizeof doff, &doff);
    if (run > 1) err |= clSetKernelArg(kernel, i, sizeof run_arg, &run_arg);
    local[0] = PANEL_GROUP;
    local[1] = 1;
    const size_t steps = run > 1 ? PANEL_RUN_STEPS : 1;
    global[0] = clgemm__round_up(((size_t)src->depth + steps - 1) / steps, PANEL_GROUP);
    global[1] = (panels + (size_t)run - 1) / (size_t)run;
    return err == CL_SUCCESS ? CL_SUCCESS : CL_INVALID_KERNEL_ARGS;
}

cl_int clgemm__pack_panel_pair_args(cl_kernel kernel, const panel_source *b, size_t b_offset,
                                    const panel_source *a, size_t a_offset, cl_mem work,
                                    size_t global[2], size_t local[2]) {
    const panel_source *src[2] = {b, a};
    const cl_ulong doff[2] = {b_offset, a_offset};
    cl_int err = CL_SUCCESS;
    cl_uint i = 0;
    for (int x = 0; x < 2; x++) {
        err |= clSetKernelArg(kernel, i++, sizeof src[x]->mem, &src[x]->mem);
        err |= clSetKernelArg(kernel, i++, sizeof src[x]->off, &src[x]->off);
        err |= clSetKernelArg(kernel, i++, sizeof src[x]->rs, &src[x]->rs);
        err |= clSetKernelArg(kernel, i++, sizeof src[x]->qs, &src[x]->qs);
        err |= clSetKernelArg(kernel, i++, sizeof src[x]->rows, &src[x]->rows);
        err |= clSetKernelArg(kernel, i++, sizeof src[x]->width, &src[x]->width);
        err |= clSetKernelArg(kernel, i++, sizeof doff[x], &doff[x]);
    }
    err |= clSetKernelArg(kernel, i++, sizeof a->depth, &a->depth);
    err |= clSetKernelArg(kernel, i, sizeof work, &work);
    local[0] = PANEL_GROUP;
    local[1] = 1;
    global[0] = clgemm__round_up((size_t)a->depth, PANEL_GROUP);
    global[1] = source_panels(b) + source_panels(a);
    return err == CL_SUCCESS && a->depth == b->depth ? CL_SUCCESS : CL_INVALID_KERNEL_ARGS;
}
