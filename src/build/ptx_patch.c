/* ptx_patch.c: the text step of the patched-PTX build path (program.c). NVIDIA's OpenCL compiler
 * emits `.target sm_90` PTX, where Hopper's own instructions (wgmma, setmaxnreg) are refused, but
 * its JIT accepts `.target sm_90a` PTX handed back as a program binary. A kernel that wants them
 * writes each such instruction behind a "// @" PTX comment marker; this step turns the compiled
 * text into sm_90a PTX: the target line rewritten, every marker removed, and (where asked) a
 * register cap added to each entry, which setmaxnreg needs. Anything unexpected is a refusal,
 * never a silently different kernel. Pure: text in, text or a reason out. */
#include "build/ptx_patch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What may follow a marker: the sm_90a instructions clgemm's kernels write (wgmma), the
 * asynchronous-proxy ones of the TMA route (bulk tensor copies, the mbarriers they complete on,
 * their fences), and selp, which turns a marked try_wait's predicate into a value and so must
 * vanish with it from the unpatched build. A marker in front of anything else means the source
 * and this step disagree. */
static const char *const marked[] = {"wgmma.",
                                     "setmaxnreg.",
                                     "fence.proxy.async",
                                     "mbarrier.",
                                     "fence.mbarrier_init.",
                                     "cp.async.bulk.",
                                     "selp.",
                                     NULL};

bool clgemm__ptx_marker_known(const char *p) {
    for (const char *const *m = marked; *m; m++)
        if (strncmp(p, *m, strlen(*m)) == 0) return true;
    return false;
}

static const char *const result_strings[] = {
    [PTX_PATCH_OK] = "patched",
    [PTX_PATCH_NO_TARGET] = "no `.target sm_90` line in the PTX",
    [PTX_PATCH_ALREADY_SM90A] = "the PTX already targets sm_90a",
    [PTX_PATCH_NO_MARKERS] = "no `// @` markers in the PTX",
    [PTX_PATCH_UNKNOWN_MARKER] =
        "a `// @` marker in front of an instruction the patch does not know",
    [PTX_PATCH_ENTRY_SYNTAX] =
        "an .entry whose parameter list does not close, or that has a register cap",
    [PTX_PATCH_NO_MEMORY] = "out of host memory",
};

const char *clgemm__ptx_patch_string(ptx_patch_result r) {
    size_t i = (size_t)r;
    return i < sizeof result_strings / sizeof *result_strings ? result_strings[i]
                                                              : "unknown result";
}

/* The one `.target` directive: it must name sm_90 exactly (sm_90a, sm_80 or two directives are
 * refusals). *at is the offset of "sm_90" in the text. */
static ptx_patch_result find_target(const char *ptx, size_t *at) {
    const char *t = NULL;
    for (const char *p = ptx; (p = strstr(p, ".target")); p += 7) {
        if (t) return PTX_PATCH_NO_TARGET; /* two target lines: not what the compiler writes */
        t = p;
    }
    if (!t) return PTX_PATCH_NO_TARGET;
    const char *s = t + 7;
    while (*s == ' ' || *s == '\t')
        s++;
    if (strncmp(s, "sm_90a", 6) == 0) return PTX_PATCH_ALREADY_SM90A;
    if (strncmp(s, "sm_90", 5) != 0 ||
        (s[5] != ',' && s[5] != ' ' && s[5] != '\n' && s[5] != '\r' && s[5] != '\t' && s[5] != 0))
        return PTX_PATCH_NO_TARGET;
    *at = (size_t)(s - ptx);
    return PTX_PATCH_OK;
}

/* The threads an entry's `.reqntid` states (its dimensions' product) between its parameter list
 * (ending at close) and its body (at brace, or NULL); 0 where it states none. */
static long entry_threads(const char *close, const char *brace) {
    const char *r = strstr(close, ".reqntid");
    if (!r || (brace && r > brace)) return 0;
    long threads = 1;
    const char *p = r + 8;
    for (int d = 0; d < 3; d++) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v <= 0 || v > 1024) return d ? threads : 0;
        threads *= v;
        while (*end == ' ' || *end == '\t')
            end++;
        if (*end != ',') break;
        p = end + 1;
    }
    return threads > 1024 ? 0 : threads;
}

int clgemm__ptx_register_cap(long threads) {
    if (threads <= 0) return 0;
    const long per_scheduler = (threads / 32 + (threads % 32 != 0) + 3) / 4 * 32;
    const long cap = 16384 / per_scheduler / 8 * 8;
    return (int)(cap > 255 ? 255 : cap);
}

/* The cap of the entry whose parameter list ends at `end`: maxnreg, or from its stated threads
 * (0 where it states none). */
static int entry_cap(const char *ptx, size_t end, int maxnreg) {
    if (maxnreg != CLGEMM_PTX_CAP_FROM_THREADS) return maxnreg;
    return clgemm__ptx_register_cap(entry_threads(ptx + end - 1, strchr(ptx + end, '{')));
}

/* Offsets just past the closing parenthesis of each .entry's parameter list, in order. */
static ptx_patch_result entry_ends(const char *ptx, size_t **ends, size_t *count) {
    *ends = NULL;
    *count = 0;
    size_t cap = 0;
    for (const char *p = ptx; (p = strstr(p, ".entry")); p += 6) {
        const char *open = strchr(p, '(');
        const char *brace = strchr(p, '{');
        if (!open || (brace && brace < open)) return PTX_PATCH_ENTRY_SYNTAX;
        const char *close = strchr(open, ')');
        if (!close || (brace && brace < close)) return PTX_PATCH_ENTRY_SYNTAX;
        /* A cap already there (between the list and the body) is not ours to change. */
        const char *cap_at = strstr(close, ".maxnreg");
        if (cap_at && (!brace || cap_at < brace)) return PTX_PATCH_ENTRY_SYNTAX;
        if (*count == cap) {
            size_t *n = realloc(*ends, (cap = cap ? 2 * cap : 4) * sizeof *n);
            if (!n) return PTX_PATCH_NO_MEMORY;
            *ends = n;
        }
        (*ends)[(*count)++] = (size_t)(close + 1 - ptx);
    }
    return PTX_PATCH_OK;
}

ptx_patch_result clgemm__ptx_patch(const char *ptx, int maxnreg, char **out, int *markers) {
    *out = NULL;
    *markers = 0;
    size_t target;
    ptx_patch_result r = find_target(ptx, &target);
    if (r != PTX_PATCH_OK) return r;
    int found = 0;
    for (const char *p = ptx; (p = strstr(p, "// @")); p += 4) {
        if (!clgemm__ptx_marker_known(p + 4)) return PTX_PATCH_UNKNOWN_MARKER;
        found++;
    }
    if (found == 0) return PTX_PATCH_NO_MARKERS;
    /* From the stated threads: only a kernel that moves registers between warpgroups. */
    if (maxnreg == CLGEMM_PTX_CAP_FROM_THREADS && !strstr(ptx, CLGEMM_PTX_MARKER "setmaxnreg."))
        maxnreg = 0;
    size_t *ends = NULL, n_entries = 0;
    if (maxnreg != 0 && (r = entry_ends(ptx, &ends, &n_entries)) != PTX_PATCH_OK) {
        free(ends);
        return r;
    }
    for (size_t e = 0; e < n_entries; e++)
        if (!entry_cap(ptx, ends[e], maxnreg)) r = PTX_PATCH_ENTRY_SYNTAX; /* no threads stated */
    enum { CAP_TEXT = 24 }; /* "\n.maxnreg 255" and its NUL */
    size_t len = strlen(ptx);
    char *o = r == PTX_PATCH_OK ? malloc(len + 2 + n_entries * CAP_TEXT) : NULL;
    if (!o) {
        free(ends);
        return r == PTX_PATCH_OK ? PTX_PATCH_NO_MEMORY : r;
    }
    char *w = o;
    size_t next_entry = 0;
    for (size_t i = 0; i <= len;) {
        if (next_entry < n_entries && i == ends[next_entry]) /* (a list may close the text) */
            w +=
                snprintf(w, CAP_TEXT, "\n.maxnreg %d", entry_cap(ptx, ends[next_entry++], maxnreg));
        if (i == len) break;
        if (i == target) { /* "sm_90" -> "sm_90a" */
            memcpy(w, "sm_90a", 6);
            w += 6;
            i += 5;
        } else if (strncmp(ptx + i, "// @", 4) == 0) {
            i += 4;
        } else {
            *w++ = ptx[i++];
        }
    }
    *w = 0;
    free(ends);
    *out = o;
    *markers = found;
    return PTX_PATCH_OK;
}
