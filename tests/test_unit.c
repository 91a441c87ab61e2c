/* test_unit.c: unit tests that need no OpenCL device: status messages, family names, the
 * parameter rules of each kernel family (clgemm__config_check against made-up devices), the -D
 * build options, the launch geometry, that the built-in defaults obey the rules, the planner's
 * measured schedules (the sweep over shapes against the launches' invariants is
 * test_schedule_sweep.c), and the tuner's correctness check for every type (FP16 / BF16 rounding,
 * bounds that reject wrong results). */
#include "configs.h"
#include "device_models.h"
#include "exec/exec.h"
#include "tune/tune_data.h"

#include <criterion/criterion.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- Status messages ------------------------------------------------------------------------ */

typedef struct status_entry {
    const char *name;
    int value;
    const char *message;
} status_entry;

#define STATUS_ENTRY(name, value, message) {#name, value, message},
static const status_entry statuses[] = {CLGEMM_STATUS_LIST(STATUS_ENTRY)};
#undef STATUS_ENTRY
#define STATUS_COUNT (sizeof statuses / sizeof statuses[0])

Test(status, every_library_code_has_its_own_message) {
    for (size_t i = 0; i < STATUS_COUNT; i++) {
        const char *s = clgemm_status_string(statuses[i].value);
        cr_assert(s != NULL, "%s: NULL message", statuses[i].name);
        cr_expect(s[0] != 0, "%s: empty message", statuses[i].name);
        cr_expect_str_eq(s, statuses[i].message, "%s: message is not the one of the list",
                         statuses[i].name);
        for (size_t j = 0; j < i; j++) {
            cr_expect_neq(statuses[i].value, statuses[j].value, "%s and %s share a value",
                          statuses[i].name, statuses[j].name);
            cr_expect_str_neq(s, clgemm_status_string(statuses[j].value),
                              "%s and %s share a message", statuses[i].name, statuses[j].name);
        }
    }
}

/* Issue 14, item 9: CLGEMM_ERR_TOO_LARGE also covers an ld above 2^31 - 1 (its message used to
 * blame only a span). */
Test(status, too_large_names_the_leading_dimension) {
    cr_assert_not_null(strstr(clgemm_status_string(CLGEMM_ERR_TOO_LARGE), " ld "), "%s",
                       clgemm_status_string(CLGEMM_ERR_TOO_LARGE));
}

Test(status, library_codes_live_outside_opencl_range) {
    /* The header: success is 0, OpenCL's codes (-1 .. -72) pass through unchanged, the
     * library's own codes are -2000 and below. */
    for (size_t i = 0; i < STATUS_COUNT; i++) {
        if (statuses[i].value == 0) {
            cr_expect_str_eq(statuses[i].name, "CLGEMM_SUCCESS");
            continue;
        }
        cr_expect(statuses[i].value <= -2000, "%s = %d is not in the library's block",
                  statuses[i].name, statuses[i].value);
    }
}

/* OpenCL 1.2's error codes, which the library passes through unchanged. */
static const int opencl_codes[] = {
    CL_DEVICE_NOT_FOUND,
    CL_DEVICE_NOT_AVAILABLE,
    CL_COMPILER_NOT_AVAILABLE,
    CL_MEM_OBJECT_ALLOCATION_FAILURE,
    CL_OUT_OF_RESOURCES,
    CL_OUT_OF_HOST_MEMORY,
    CL_PROFILING_INFO_NOT_AVAILABLE,
    CL_MEM_COPY_OVERLAP,
    CL_IMAGE_FORMAT_MISMATCH,
    CL_IMAGE_FORMAT_NOT_SUPPORTED,
    CL_BUILD_PROGRAM_FAILURE,
    CL_MAP_FAILURE,
    CL_MISALIGNED_SUB_BUFFER_OFFSET,
    CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
    CL_COMPILE_PROGRAM_FAILURE,
    CL_LINKER_NOT_AVAILABLE,
    CL_LINK_PROGRAM_FAILURE,
    CL_DEVICE_PARTITION_FAILED,
    CL_KERNEL_ARG_INFO_NOT_AVAILABLE,
    CL_INVALID_VALUE,
    CL_INVALID_DEVICE_TYPE,
    CL_INVALID_PLATFORM,
    CL_INVALID_DEVICE,
    CL_INVALID_CONTEXT,
    CL_INVALID_QUEUE_PROPERTIES,
    CL_INVALID_COMMAND_QUEUE,
    CL_INVALID_HOST_PTR,
    CL_INVALID_MEM_OBJECT,
    CL_INVALID_IMAGE_FORMAT_DESCRIPTOR,
    CL_INVALID_IMAGE_SIZE,
    CL_INVALID_SAMPLER,
    CL_INVALID_BINARY,
    CL_INVALID_BUILD_OPTIONS,
    CL_INVALID_PROGRAM,
    CL_INVALID_PROGRAM_EXECUTABLE,
    CL_INVALID_KERNEL_NAME,
    CL_INVALID_KERNEL_DEFINITION,
    CL_INVALID_KERNEL,
    CL_INVALID_ARG_INDEX,
    CL_INVALID_ARG_VALUE,
    CL_INVALID_ARG_SIZE,
    CL_INVALID_KERNEL_ARGS,
    CL_INVALID_WORK_DIMENSION,
    CL_INVALID_WORK_GROUP_SIZE,
    CL_INVALID_WORK_ITEM_SIZE,
    CL_INVALID_GLOBAL_OFFSET,
    CL_INVALID_EVENT_WAIT_LIST,
    CL_INVALID_EVENT,
    CL_INVALID_OPERATION,
    CL_INVALID_GL_OBJECT,
    CL_INVALID_BUFFER_SIZE,
    CL_INVALID_MIP_LEVEL,
    CL_INVALID_GLOBAL_WORK_SIZE,
    CL_INVALID_PROPERTY,
    CL_INVALID_IMAGE_DESCRIPTOR,
    CL_INVALID_COMPILER_OPTIONS,
    CL_INVALID_LINKER_OPTIONS,
    CL_INVALID_DEVICE_PARTITION_COUNT,
};
#define OPENCL_CODE_COUNT (sizeof opencl_codes / sizeof opencl_codes[0])

Test(status, opencl_codes_have_messages) {
    /* Never NULL or empty, never one of the library's own messages. */
    for (size_t i = 0; i < OPENCL_CODE_COUNT; i++) {
        const char *s = clgemm_status_string(opencl_codes[i]);
        cr_assert(s != NULL, "OpenCL code %d: NULL message", opencl_codes[i]);
        cr_expect(s[0] != 0, "OpenCL code %d: empty message", opencl_codes[i]);
        for (size_t j = 0; j < STATUS_COUNT; j++)
            cr_expect_str_neq(s, statuses[j].message, "OpenCL code %d has the message of %s",
                              opencl_codes[i], statuses[j].name);
    }
}

Test(status, opencl_codes_each_have_their_own_message) {
    /* A user who gets CL_INVALID_HOST_PTR back needs to read that, not "unknown error": every
     * OpenCL 1.2 code gets a message no other code has. One report lists the codes that don't. */
    char shared[512] = "";
    size_t count = 0;
    for (size_t i = 0; i < OPENCL_CODE_COUNT; i++)
        for (size_t j = 0; j < OPENCL_CODE_COUNT; j++) {
            if (i == j || strcmp(clgemm_status_string(opencl_codes[i]),
                                 clgemm_status_string(opencl_codes[j])))
                continue;
            size_t used = strlen(shared);
            snprintf(shared + used, sizeof shared - used, " %d", opencl_codes[i]);
            count++;
            break;
        }
    cr_expect_eq(count, 0, "%zu OpenCL codes share their message with another code:%s", count,
                 shared);
}

Test(status, unknown_codes_still_get_a_message) {
    static const int odd[] = {1, 42, -73, -999, -1000, -1999, -2000, -2029, -2100, -99999};
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++) {
        const char *s = clgemm_status_string(odd[i]);
        cr_assert(s != NULL, "status %d: NULL message", odd[i]);
        cr_expect(s[0] != 0, "status %d: empty message", odd[i]);
        for (size_t j = 0; j < STATUS_COUNT; j++)
            cr_expect_str_neq(s, statuses[j].message, "unknown status %d reads as %s", odd[i],
                              statuses[j].name);
    }
}

/* ---- Element sizes --------------------------------------------------------------------------- */

/* clgemm_type_size against the OpenCL host types clgemm.h documents for each type; 0 outside the
 * enum. */
/* The forcing variables take whole numbers (CLGEMM_STREAMK also "G,T"); anything else counts as
 * unset, so a typo leaves the planner's choice rather than forcing one ("abc" was a K split of
 * 1, which also turned the CPUs' blocked schedule off; "7abc" a split of 7). */
Test(handle_settings, forcing_variables_that_are_not_numbers_count_as_unset) {
    static const char *const vars[] = {"CLGEMM_KSPLIT", "CLGEMM_STREAMK", "CLGEMM_PACK_KC",
                                       "CLGEMM_BATCH_CHUNK", "CLGEMM_TAIL"};
    static const char *const garbage[] = {"abc", "7abc", "1.5", "0x10", "-", " ", ""};
    for (size_t g = 0; g < sizeof garbage / sizeof garbage[0]; g++) {
        for (size_t v = 0; v < sizeof vars / sizeof vars[0]; v++)
            setenv(vars[v], garbage[g], 1);
        struct clgemm_handle_s h = {0};
        clgemm__handle_read_environment(&h);
        cr_expect_eq(h.ksplit, 0, "CLGEMM_KSPLIT='%s'", garbage[g]);
        cr_expect_eq(h.streamk, -1, "CLGEMM_STREAMK='%s'", garbage[g]);
        cr_expect_eq(h.pack_kc, 0, "CLGEMM_PACK_KC='%s'", garbage[g]);
        cr_expect_eq(h.batch_chunk, 0, "CLGEMM_BATCH_CHUNK='%s'", garbage[g]);
        cr_expect_eq(h.tail, 0, "CLGEMM_TAIL='%s'", garbage[g]);
    }
    /* Numbers are clamped to what each takes. */
    setenv("CLGEMM_KSPLIT", "-5", 1);
    setenv("CLGEMM_STREAMK", "37,1", 1);
    setenv("CLGEMM_PACK_KC", "0", 1);
    setenv("CLGEMM_BATCH_CHUNK", "5", 1);
    setenv("CLGEMM_TAIL", "0", 1);
    struct clgemm_handle_s h = {0};
    clgemm__handle_read_environment(&h);
    cr_expect_eq(h.ksplit, 1);
    cr_expect_eq(h.streamk, 37);
    cr_expect_eq(h.streamk_tail, 1);
    cr_expect_eq(h.pack_kc, -1);
    cr_expect_eq(h.batch_chunk, 5);
    cr_expect_eq(h.tail, -1);
    setenv("CLGEMM_KSPLIT", "1000", 1);
    setenv("CLGEMM_TAIL", "264", 1);
    setenv("CLGEMM_STREAMK", "99999999999999999999", 1);
    setenv("CLGEMM_PACK_KC", "17", 1);
    clgemm__handle_read_environment(&h);
    cr_expect_eq(h.ksplit, 64);
    cr_expect_eq(h.streamk, 65535);
    cr_expect_eq(h.pack_kc, 17);
    cr_expect_eq(h.tail, 264);
}

Test(types, public_element_sizes) {
    static const size_t expected[CLGEMM_PRECISION_COUNT] = {
        [CLGEMM_SINGLE] = sizeof(cl_float),
        [CLGEMM_DOUBLE] = sizeof(cl_double),
        [CLGEMM_COMPLEX_SINGLE] = sizeof(cl_float2),
        [CLGEMM_COMPLEX_DOUBLE] = sizeof(cl_double2),
        [CLGEMM_HALF] = sizeof(cl_half),
        [CLGEMM_BFLOAT16] = sizeof(cl_ushort),
        [CLGEMM_INT8] = sizeof(cl_char),
        [CLGEMM_INT32] = sizeof(cl_int),
        [CLGEMM_E4M3] = sizeof(cl_uchar),
        [CLGEMM_E5M2] = sizeof(cl_uchar)};
    for (int t = 0; t < CLGEMM_PRECISION_COUNT; t++)
        cr_expect_eq(clgemm_type_size((clgemm_precision)t), expected[t], "type %d", t);
    cr_expect_eq(clgemm_type_size((clgemm_precision)-1), 0);
    cr_expect_eq(clgemm_type_size((clgemm_precision)CLGEMM_PRECISION_COUNT), 0);
}

/* A value every type holds exactly (-2, and for the complex types 3 in the imaginary part) read
 * back as it was set, in the type's own bits: an INT32 stored as a float's bits read -2^30. */
Test(types, element_set_and_get_round_trip) {
    for (int t = 0; t < CLGEMM_PRECISION_COUNT; t++) {
        const clgemm_precision type = (clgemm_precision)t;
        const int comps = clgemm__type(type)->complex ? 2 : 1;
        unsigned char buf[3 * 16] = {0};
        for (int c = 0; c < comps; c++)
            clgemm__element_set(type, buf, 1, c, c ? 3.0 : -2.0);
        for (int c = 0; c < comps; c++)
            cr_expect_eq(clgemm__element_get(type, buf, 1, c), c ? 3.0 : -2.0, "type %d", t);
        if (type == CLGEMM_INT32) cr_expect_eq(((const int32_t *)buf)[1], -2);
    }
}

/* ---- Family names --------------------------------------------------------------------------- */

Test(family, names) {
    cr_expect_str_eq(clgemm_family_name(CLGEMM_FAMILY_AUTO), "auto");
    cr_expect_str_eq(clgemm_family_name(CLGEMM_FAMILY_NAIVE), "naive");
    cr_expect_str_eq(clgemm_family_name(CLGEMM_FAMILY_TILED), "tiled");
    cr_expect_str_eq(clgemm_family_name(CLGEMM_FAMILY_REGBLOCK), "regblock");
    cr_expect_str_eq(clgemm_family_name(CLGEMM_FAMILY_TMA_FP64), "tma_fp64");
    cr_expect_null(clgemm_family_name((clgemm_family)(CLGEMM_FAMILY_COUNT + 1)));
    cr_expect_null(clgemm_family_name((clgemm_family)-1));
}

/* ---- Parameter rules ------------------------------------------------------------------------ */

static const char *describe(const clgemm_config *c) {
    static char buf[200];
    snprintf(buf, sizeof buf,
             "%s mdimc=%d ndimc=%d ts=%d mwg=%d nwg=%d kwg=%d kwi=%d vwm=%d vwn=%d",
             clgemm_family_name(c->family) ? clgemm_family_name(c->family) : "?", c->mdimc,
             c->ndimc, c->ts, c->mwg, c->nwg, c->kwg, c->kwi, c->vwm, c->vwn);
    return buf;
}

#define EXPECT_CHECK(config, info, prec, want)                                                     \
    do {                                                                                           \
        clgemm_config cfg_ = (config);                                                             \
        device_info info_ = (info);                                                                \
        clgemm_status got_ = clgemm__config_check(&cfg_, &info_, (prec));                          \
        cr_expect_eq(got_, (want), "%s (%s): got %d (%s), want %d (%s)", describe(&cfg_),          \
                     (prec) == CLGEMM_DOUBLE ? "double" : "single", got_,                          \
                     clgemm_status_string(got_), (want), clgemm_status_string(want));              \
    } while (0)

#define OK  CLGEMM_SUCCESS
#define BAD CLGEMM_ERR_INVALID_PARAMS
#define S   CLGEMM_SINGLE
#define D   CLGEMM_DOUBLE

Test(rules, legal_configurations_pass) {
    EXPECT_CHECK(naive(16, 16), gpu(), S, OK);
    EXPECT_CHECK(naive(1, 1), gpu(), D, OK);
    EXPECT_CHECK(tiled(16), gpu(), S, OK);
    EXPECT_CHECK(tiled(1), gpu(), D, OK);
    EXPECT_CHECK(regblock(64, 64, 16, 16, 16, 2, 2, 2), gpu(), S, OK);
    EXPECT_CHECK(regblock(64, 64, 16, 16, 16, 2, 2, 2), gpu(), D, OK);
    EXPECT_CHECK(regblock(1, 1, 1, 1, 1, 1, 1, 1), gpu(), S, OK);
    EXPECT_CHECK(regblock(32, 16, 8, 4, 2, 4, 8, 8), gpu(), S, OK);
    /* naive and tiled do not need powers of two. */
    EXPECT_CHECK(naive(3, 5), gpu(), S, OK);
    EXPECT_CHECK(tiled(5), gpu(), S, OK);
}

Test(rules, family) {
    device_info info = gpu();
    clgemm_config c = naive(8, 8);
    c.family = CLGEMM_FAMILY_AUTO;
    cr_expect_eq(clgemm__config_check(&c, &info, S), CLGEMM_ERR_INVALID_FAMILY);
    c.family = (clgemm_family)(CLGEMM_FAMILY_COUNT + 1);
    cr_expect_eq(clgemm__config_check(&c, &info, S), CLGEMM_ERR_INVALID_FAMILY);
    c.family = (clgemm_family)-1;
    cr_expect_eq(clgemm__config_check(&c, &info, S), CLGEMM_ERR_INVALID_FAMILY);
}

Test(rules, double_needs_fp64) {
    device_info no_fp64 = fake_device(256, 256, 256, 32768, false);
    EXPECT_CHECK(naive(8, 8), no_fp64, S, OK);
    EXPECT_CHECK(naive(8, 8), no_fp64, D, CLGEMM_ERR_NO_FP64);
    EXPECT_CHECK(tiled(8), no_fp64, D, CLGEMM_ERR_NO_FP64);
    EXPECT_CHECK(regblock(64, 64, 16, 16, 16, 2, 2, 2), no_fp64, D, CLGEMM_ERR_NO_FP64);
}

Test(rules, parameters_out_of_range) {
    EXPECT_CHECK(naive(0, 8), gpu(), S, BAD);
    EXPECT_CHECK(naive(8, -8), gpu(), S, BAD);
    EXPECT_CHECK(tiled(0), gpu(), S, BAD);
    EXPECT_CHECK(tiled(-16), gpu(), S, BAD);
    EXPECT_CHECK(regblock(64, 64, 16, 16, 16, 0, 2, 2), gpu(), S, BAD);
    EXPECT_CHECK(regblock(64, 64, 16, 16, 16, 2, 2, -2), gpu(), S, BAD);
    EXPECT_CHECK(regblock(0, 64, 16, 16, 16, 2, 2, 2), gpu(), S, BAD);
    /* Absurdly large values are refused before any product of them can overflow. */
    device_info huge =
        fake_device((size_t)1 << 40, (size_t)1 << 40, (size_t)1 << 40, (cl_ulong)1 << 50, true);
    EXPECT_CHECK(naive(1 << 20, 1 << 20), huge, S, BAD);
    EXPECT_CHECK(tiled(1 << 20), huge, S, BAD);
    EXPECT_CHECK(naive(1 << 30, 4), huge, S, BAD);
}

Test(rules, unused_fields_are_ignored) {
    clgemm_config c = naive(8, 8);
    c.ts = -3;
    c.mwg = 7;
    c.vwm = 99;
    EXPECT_CHECK(c, gpu(), S, OK);
    clgemm_config t = tiled(8);
    t.mdimc = 100000;
    t.kwi = -1;
    EXPECT_CHECK(t, gpu(), S, OK);
    clgemm_config r = regblock(64, 64, 16, 16, 16, 2, 2, 2);
    r.ts = 100000;
    EXPECT_CHECK(r, gpu(), S, OK);
}

Test(rules, work_group_size) {
    /* 256 work-items at most. */
    EXPECT_CHECK(naive(16, 16), gpu(), S, OK);
    EXPECT_CHECK(naive(32, 16), gpu(), S, BAD);
    EXPECT_CHECK(tiled(16), gpu(), S, OK);
    EXPECT_CHECK(tiled(17), gpu(), S, BAD);
    EXPECT_CHECK(regblock(64, 64, 16, 16, 16, 2, 2, 2), gpu(), S, OK);
    EXPECT_CHECK(regblock(64, 64, 16, 32, 16, 2, 2, 2), gpu(), S, BAD);
    /* Per-dimension limits: 1024 work-items, but at most 16 along dimension 1. */
    device_info narrow = fake_device(1024, 1024, 16, 65536, true);
    EXPECT_CHECK(naive(64, 16), narrow, S, OK);
    EXPECT_CHECK(naive(16, 32), narrow, S, BAD);
    EXPECT_CHECK(naive(32, 16), narrow, S, OK);
    EXPECT_CHECK(tiled(32), narrow, S, BAD);
    EXPECT_CHECK(regblock(64, 64, 16, 32, 16, 2, 2, 2), narrow, S, OK);
    EXPECT_CHECK(regblock(64, 64, 16, 16, 32, 2, 2, 2), narrow, S, BAD);
    /* And along dimension 0. */
    device_info tall = fake_device(1024, 16, 1024, 65536, true);
    EXPECT_CHECK(naive(32, 16), tall, S, BAD);
    EXPECT_CHECK(naive(16, 32), tall, S, OK);
}

Test(rules, local_memory) {
    /* Tiled: two TS x TS tiles. 16 x 16 floats x 2 = 2048 bytes; doubles need 4096. */
    device_info small = fake_device(256, 256, 256, 2048, true);
    EXPECT_CHECK(tiled(16), small, S, OK);
    EXPECT_CHECK(tiled(16), small, D, BAD);
    EXPECT_CHECK(tiled(8), small, D, OK);
    /* Regblock: (MWG + VWM + NWG + VWN) * KWG reals (rows padded by one vector).
     * 128x128, KWG 16, VW 2: 260 * 16 * 4 = 16640 bytes; KWG 32: 33280 > 32768. */
    EXPECT_CHECK(regblock(128, 128, 16, 16, 16, 2, 2, 2), gpu(), S, OK);
    EXPECT_CHECK(regblock(128, 128, 32, 16, 16, 2, 2, 2), gpu(), S, BAD);
    /* In double the first is 33280 bytes too. */
    EXPECT_CHECK(regblock(128, 128, 16, 16, 16, 2, 2, 2), gpu(), D, BAD);
    /* The padding counts: (64 + 64) * 32 * 4 = 16384 fits a 16 KiB device without it, but
     * (64 + 2 + 64 + 2) * 32 * 4 = 16896 does not. */
    device_info k16 = fake_device(256, 256, 256, 16384, true);
    EXPECT_CHECK(regblock(64, 64, 32, 16, 16, 2, 2, 2), k16, S, BAD);
    EXPECT_CHECK(regblock(64, 64, 16, 16, 16, 2, 2, 2), k16, S, OK);
}

Test(rules, regblock_powers_of_two) {
    /* Each parameter in turn not a power of two, everything else legal. */
    EXPECT_CHECK(regblock(96, 64, 16, 16, 16, 2, 2, 2), gpu(), S, BAD);
    EXPECT_CHECK(regblock(64, 96, 16, 16, 16, 2, 2, 2), gpu(), S, BAD);
    EXPECT_CHECK(regblock(64, 64, 24, 16, 16, 2, 2, 2), gpu(), S, BAD);
    EXPECT_CHECK(regblock(48, 48, 16, 12, 12, 2, 2, 2), gpu(), S, BAD);
    EXPECT_CHECK(regblock(64, 64, 18, 16, 16, 3, 2, 2), gpu(), S, BAD);
    EXPECT_CHECK(regblock(96, 64, 16, 16, 16, 2, 3, 2), gpu(), S, BAD);
    EXPECT_CHECK(regblock(64, 96, 16, 16, 16, 2, 2, 3), gpu(), S, BAD);
}

Test(rules, regblock_vector_widths) {
    /* 1, 2, 4, 8 only. */
    EXPECT_CHECK(regblock(128, 128, 16, 16, 16, 2, 8, 8), gpu(), S, OK);
    EXPECT_CHECK(regblock(256, 64, 16, 16, 16, 2, 16, 2), gpu(), S, BAD);
    EXPECT_CHECK(regblock(64, 256, 16, 16, 16, 2, 2, 16), gpu(), S, BAD);
}

Test(rules, regblock_divisibility) {
    /* MWG must be a multiple of MDIMC * VWM, NWG of NDIMC * VWN, KWG of KWI. */
    EXPECT_CHECK(regblock(32, 64, 16, 16, 16, 2, 4, 2), gpu(), S, BAD);
    EXPECT_CHECK(regblock(64, 32, 16, 16, 16, 2, 2, 4), gpu(), S, BAD);
    EXPECT_CHECK(regblock(16, 64, 16, 32, 8, 2, 1, 2), gpu(), S, BAD);
    EXPECT_CHECK(regblock(64, 64, 16, 16, 16, 32, 2, 2), gpu(), S, BAD);
    EXPECT_CHECK(regblock(64, 64, 16, 16, 16, 16, 2, 2), gpu(), S, OK);
}

Test(rules, regblock_even_tile_loads) {
    /* Every work-item loads as many elements of each tile: MWG*KWG and KWG*NWG must be
     * multiples of MDIMC*NDIMC. 64 * 1 = 64 is not a multiple of 256. */
    EXPECT_CHECK(regblock(64, 64, 1, 16, 16, 1, 2, 2), gpu(), S, BAD);
    EXPECT_CHECK(regblock(64, 64, 4, 16, 16, 1, 2, 2), gpu(), S, OK);
    /* Only B's tile is ragged: 16 * 2 = 32 < 64 work-items, 256 * 2 fine. */
    EXPECT_CHECK(regblock(256, 16, 2, 8, 8, 1, 1, 1), gpu(), S, BAD);
}

/* A register-blocked configuration with STAGES set (0: left out, as older code leaves it). */
static clgemm_config staged(clgemm_config c, int stages) {
    clgemm_config_set(&c, "STAGES", stages);
    return c;
}

Test(rules, regblock_stages) {
    const clgemm_config base = regblock(256, 128, 16, 16, 16, 8, 4, 4);
    /* Two buffers double the local memory: (256 + 4 + 128 + 4) * 16 * 4 = 25,088 bytes fits the
     * 48 KiB a device reports, 50,176 only the H200's static arrays. */
    EXPECT_CHECK(base, h200_device(), S, OK);
    EXPECT_CHECK(staged(base, 1), h200_device(), S, OK);
    EXPECT_CHECK(staged(base, 2), h200_device(), S, BAD);
    EXPECT_CHECK(staged(base, 2), h200_static(), S, OK);
    /* 64-deep slices, two buffers: 200,704 bytes of the 231,424. */
    EXPECT_CHECK(staged(regblock(256, 128, 64, 16, 16, 8, 4, 4), 2), h200_static(), S, OK);
    EXPECT_CHECK(staged(regblock(256, 256, 64, 16, 16, 8, 4, 4), 2), h200_static(), S, BAD);
    EXPECT_CHECK(staged(base, 3), h200_static(), S, BAD);
    EXPECT_CHECK(staged(base, 4), h200_static(), S, BAD);
    EXPECT_CHECK(staged(base, -1), h200_static(), S, BAD);
    /* Two buffers load a slice in KWI-row parts of whole rounds: 64 x 1 rows are 64 elements,
     * fewer than 256 work-items; 64 x 4 are enough. */
    EXPECT_CHECK(staged(regblock(64, 64, 16, 16, 16, 1, 2, 2), 2), gpu(), S, BAD);
    EXPECT_CHECK(regblock(64, 64, 16, 16, 16, 1, 2, 2), gpu(), S, OK);
    EXPECT_CHECK(staged(regblock(64, 64, 16, 16, 16, 4, 2, 2), 2), gpu(), S, OK);
    EXPECT_CHECK(staged(regblock(1, 1, 1, 1, 1, 1, 1, 1), 2), gpu(), S, OK);
}

/* STAGES 0 and 1 are the configuration older code wrote: the same kernel (no build option, the
 * same text and key), equal to each other; 2 is another. */
Test(rules, regblock_stages_optional) {
    const clgemm_config base = regblock(64, 64, 16, 16, 16, 4, 2, 2);
    clgemm_config one = staged(base, 1), two = staged(base, 2);
    cr_expect(clgemm__config_equal(&base, &one));
    cr_expect(!clgemm__config_equal(&base, &two));
    char a[256], b[256];
    cr_assert_gt(clgemm__config_options(&base, a, sizeof a), 0);
    cr_assert_gt(clgemm__config_options(&one, b, sizeof b), 0);
    cr_expect_str_eq(a, b);
    cr_expect_null(strstr(a, "STAGES"));
    cr_assert_gt(clgemm__config_options(&two, b, sizeof b), 0);
    cr_expect_not_null(strstr(b, "-DSTAGES=2"));
    clgemm_config_string(&one, a, sizeof a);
    cr_expect_null(strstr(a, "STAGES"), "%s", a);
    clgemm_config_string(&two, a, sizeof a);
    cr_expect_not_null(strstr(a, " STAGES=2"), "%s", a);
}

/* The tuner's space grows (tiles of 256, 64-deep slices, two buffers) only where static
 * __local arrays may take more than OpenCL's figure. */
Test(rules, regblock_search_ranges) {
    const family_desc *f = clgemm__family(CLGEMM_FAMILY_REGBLOCK);
    device_info plain = h200_device(), wide = h200_static();
    int want_plain[][3] = {{0, 16, 128}, {1, 16, 128}, {2, 8, 32}, {8, 0, 0}};
    int want_wide[][3] = {{0, 16, 256}, {1, 16, 256}, {2, 8, 64}, {8, 1, 2}};
    for (size_t i = 0; i < sizeof want_plain / sizeof want_plain[0]; i++) {
        int lo, hi, p = want_plain[i][0];
        clgemm__param_search(f, p, &plain, &lo, &hi);
        cr_expect(lo == want_plain[i][1] && hi == want_plain[i][2], "%s: %d..%d on 48 KiB",
                  f->params[p].name, lo, hi);
        clgemm__param_search(f, p, &wide, &lo, &hi);
        cr_expect(lo == want_wide[i][1] && hi == want_wide[i][2], "%s: %d..%d on the H200",
                  f->params[p].name, lo, hi);
    }
    /* Those indices are the parameters named. */
    cr_expect_str_eq(f->params[2].name, "KWG");
    cr_expect_str_eq(f->params[8].name, "STAGES");
}

Test(rules, regblock_register_block) {
    /* MWI * NWI <= 256: 16 x 16 passes, 32 x 32 does not (everything else legal). */
    EXPECT_CHECK(regblock(128, 128, 8, 8, 8, 2, 1, 1), gpu(), S, OK);
    EXPECT_CHECK(regblock(256, 256, 8, 8, 8, 2, 1, 1), gpu(), S, BAD);
    EXPECT_CHECK(regblock(256, 128, 8, 8, 8, 2, 1, 1), gpu(), S, BAD);
}

/* ---- Build options -------------------------------------------------------------------------- */

/* Splits options into tokens and checks they are exactly `want` (in any order). */
static void expect_options(const clgemm_config *c, const char *const *want, size_t count) {
    char buf[512];
    int len = clgemm__config_options(c, buf, sizeof buf);
    cr_assert(len >= 0, "%s: options did not fit 512 bytes", describe(c));
    cr_expect_eq((size_t)len, strlen(buf), "%s: returned length %d, wrote %zu", describe(c), len,
                 strlen(buf));
    bool seen[16] = {false};
    size_t tokens = 0;
    for (char *save = NULL, *tok = strtok_r(buf, " ", &save); tok;
         tok = strtok_r(NULL, " ", &save)) {
        tokens++;
        bool known = false;
        for (size_t i = 0; i < count; i++)
            if (strcmp(tok, want[i]) == 0) {
                cr_expect(!seen[i], "%s: %s twice", describe(c), tok);
                seen[i] = known = true;
            }
        cr_expect(known, "%s: unexpected option %s", describe(c), tok);
    }
    cr_expect_eq(tokens, count, "%s: %zu options, want %zu", describe(c), tokens, count);
}

Test(options, naive) {
    clgemm_config c = naive(8, 4);
    c.ts = 5; /* unused fields must not appear */
    c.mwg = 64;
    static const char *const want[] = {"-DMDIMC=8", "-DNDIMC=4"};
    expect_options(&c, want, 2);
}

Test(options, tiled) {
    clgemm_config c = tiled(16);
    c.mdimc = 3;
    c.vwn = 2;
    static const char *const want[] = {"-DTS=16"};
    expect_options(&c, want, 1);
}

Test(options, regblock) {
    clgemm_config c = regblock(128, 64, 16, 16, 8, 2, 4, 8);
    c.ts = 32;
    static const char *const want[] = {"-DMWG=128", "-DNWG=64", "-DKWG=16", "-DMDIMC=16",
                                       "-DNDIMC=8", "-DKWI=2",  "-DVWM=4",  "-DVWN=8"};
    expect_options(&c, want, 8);
}

Test(options, small_buffer) {
    clgemm_config c = regblock(128, 64, 16, 16, 8, 2, 4, 8);
    char buf[512];
    int len = clgemm__config_options(&c, buf, sizeof buf);
    cr_assert_gt(len, 0);
    /* Room for the text but not its terminating NUL: refused. */
    cr_expect_lt(clgemm__config_options(&c, buf, (size_t)len), 0);
    cr_expect_lt(clgemm__config_options(&c, buf, 10), 0);
    cr_expect_eq(clgemm__config_options(&c, buf, (size_t)len + 1), len);
}

/* The CPU micro-kernel family: MR x NR blocks of VW-wide vectors; FP32, FP64, FP16 and BF16. */
static clgemm_config microkernel(int mr, int nr, int vw) {
    return (clgemm_config){.family = CLGEMM_FAMILY_MICROKERNEL, .params = {mr, nr, vw}};
}

Test(rules, microkernel) {
    EXPECT_CHECK(microkernel(2, 1, 2), cpu(), S, OK);
    EXPECT_CHECK(microkernel(32, 8, 16), cpu(), S, OK);
    EXPECT_CHECK(microkernel(16, 6, 8), cpu(), D, OK);   /* NR need not be a power of two */
    EXPECT_CHECK(microkernel(64, 4, 8), cpu(), D, OK);   /* 32 vectors, a 16 KiB panel */
    EXPECT_CHECK(microkernel(8, 4, 1), cpu(), S, BAD);   /* no 1-wide vectors */
    EXPECT_CHECK(microkernel(32, 4, 32), cpu(), S, BAD); /* OpenCL has no 32-wide ones */
    EXPECT_CHECK(microkernel(8, 4, 3), cpu(), S, BAD);
    EXPECT_CHECK(microkernel(24, 4, 8), cpu(), S, BAD); /* MR a power of two */
    EXPECT_CHECK(microkernel(8, 4, 16), cpu(), S, BAD); /* a vector taller than the block */
    EXPECT_CHECK(microkernel(64, 8, 8), cpu(), S, BAD); /* 64 accumulator vectors */
    EXPECT_CHECK(microkernel(16, 33, 16), cpu(), S, BAD);
    EXPECT_CHECK(microkernel(128, 2, 16), cpu(), D, BAD); /* a 32 KiB panel */
    EXPECT_CHECK(microkernel(128, 2, 16), cpu(), S, OK);  /* 16 KiB of floats */
    /* Complex: VW counts complex elements (vectors of 2 VW components), two accumulators per
     * vector of C, the panel in complex elements. */
    EXPECT_CHECK(microkernel(16, 8, 8), cpu(), CLGEMM_COMPLEX_SINGLE, OK);   /* 32 accumulators */
    EXPECT_CHECK(microkernel(16, 12, 8), cpu(), CLGEMM_COMPLEX_SINGLE, BAD); /* 48 */
    EXPECT_CHECK(microkernel(16, 4, 16), cpu(), CLGEMM_COMPLEX_SINGLE, BAD); /* 32 components */
    EXPECT_CHECK(microkernel(4, 3, 2), cpu(), CLGEMM_COMPLEX_DOUBLE, OK);
    EXPECT_CHECK(microkernel(32, 2, 8), cpu(), CLGEMM_COMPLEX_DOUBLE, OK);  /* a 16 KiB panel */
    EXPECT_CHECK(microkernel(64, 2, 8), cpu(), CLGEMM_COMPLEX_DOUBLE, BAD); /* 32 KiB */
    /* Not on GPUs of a known vendor (a simulator, class "other", may run it), not for FP8 types;
     * FP16 and BF16 storage run in FP32, INT8 in 32-bit integers. */
    device_info nvidia = gpu();
    nvidia.cls = DEVICE_NVIDIA_GPU;
    EXPECT_CHECK(microkernel(16, 8, 8), nvidia, S, BAD);
    EXPECT_CHECK(microkernel(16, 8, 8), gpu(), S, OK);
    EXPECT_CHECK(microkernel(16, 8, 8), cpu(), CLGEMM_HALF, OK);
    EXPECT_CHECK(microkernel(16, 8, 8), cpu(), CLGEMM_BFLOAT16, OK);
    EXPECT_CHECK(microkernel(16, 8, 8), cpu(), CLGEMM_INT8, OK);
    EXPECT_CHECK(microkernel(16, 8, 8), cpu(), CLGEMM_E4M3, BAD);
    device_info info = cpu();
    clgemm_config c = microkernel(16, 8, 8);
    cr_expect(clgemm__config_supports(&c, &info, S, CLGEMM_COMPUTE_DEFAULT));
    /* TF32 modes compute as FP32 (clgemm.h: where no matrix unit has them, as DEFAULT). */
    cr_expect(clgemm__config_supports(&c, &info, S, CLGEMM_COMPUTE_TF32));
    cr_expect(clgemm__config_supports(&c, &info, S, CLGEMM_COMPUTE_FP32_3XTF32));
    cr_expect(!clgemm__config_supports(&c, &info, CLGEMM_HALF, CLGEMM_COMPUTE_TF32));
    device_info no_fp64 = cpu();
    no_fp64.has_fp64 = false;
    EXPECT_CHECK(microkernel(16, 8, 8), no_fp64, D, CLGEMM_ERR_NO_FP64);
}

/* A micro-kernel configuration with the blocked schedule's block sizes set (0: left out, as
 * configurations older than them leave them). */
static clgemm_config blocked(clgemm_config c, int kc, int mc) {
    clgemm_config_set(&c, "KC", kc);
    clgemm_config_set(&c, "MC", mc);
    return c;
}

/* KC and MC: 0 and 1 are the defaults, anything up to the parameters' 1024 is legal; they
 * change nothing the tile rules see. */
Test(rules, microkernel_block_sizes) {
    const clgemm_config base = microkernel(32, 8, 8);
    const int legal[] = {0, 1, 2, 7, 64, 256, 384, 1024};
    for (size_t i = 0; i < sizeof legal / sizeof legal[0]; i++) {
        EXPECT_CHECK(blocked(base, legal[i], 0), cpu(), D, OK);
        EXPECT_CHECK(blocked(base, 0, legal[i]), cpu(), D, OK);
        EXPECT_CHECK(blocked(microkernel(8, 4, 4), legal[i], legal[i]), cpu(),
                     CLGEMM_COMPLEX_DOUBLE, OK);
    }
    const int illegal[] = {-1, 1025, 4096};
    for (size_t i = 0; i < sizeof illegal / sizeof illegal[0]; i++) {
        EXPECT_CHECK(blocked(base, illegal[i], 0), cpu(), D, BAD);
        EXPECT_CHECK(blocked(base, 0, illegal[i]), cpu(), D, BAD);
    }
}

/* KC and MC 0 and 1 are the configuration older code wrote: the same kernel (no build option,
 * the same text), equal to each other; other values are other configurations, MC a build
 * option of the kernel. The kernel's own defaults stay: 2 MB blocks of A, 32-step private
 * panels, K ranges of split layers in steps of 8 (3 panels when the schedule is forced). */
Test(rules, microkernel_block_sizes_optional) {
    const clgemm_config base = microkernel(32, 8, 16);
    const clgemm_config one = blocked(base, 1, 1), set = blocked(base, 128, 8);
    const clgemm_config mc_only = blocked(base, 0, 8);
    cr_expect(clgemm__config_equal(&base, &one));
    cr_expect(!clgemm__config_equal(&base, &set));
    cr_expect(!clgemm__config_equal(&base, &mc_only));
    char a[256], b[256];
    cr_assert_gt(clgemm__config_options(&base, a, sizeof a), 0);
    cr_assert_gt(clgemm__config_options(&one, b, sizeof b), 0);
    cr_expect_str_eq(a, b);
    cr_expect(!strstr(a, "KC") && !strstr(a, "MC"), "%s", a);
    cr_assert_gt(clgemm__config_options(&set, b, sizeof b), 0);
    cr_expect(strstr(b, " -DKC=128") && strstr(b, " -DMC=8"), "%s", b);
    clgemm_config_string(&one, a, sizeof a);
    cr_expect_str_eq(a, "microkernel MR=32 NR=8 VW=16");
    clgemm_config_string(&set, a, sizeof a);
    cr_expect_str_eq(a, "microkernel MR=32 NR=8 VW=16 KC=128 MC=8");
    const family_desc *f = clgemm__family(CLGEMM_FAMILY_MICROKERNEL);
    kernel_call call = {.type_ab = S, .type_c = S};
    cr_assert_gt(f->call_options(&call, a, sizeof a), 0);
    cr_expect_str_eq(a, " -DKSTEP=8 -DPANEL_DEPTH=32 -DPACK_A_BYTES=2097152 -DHALF_BY_INTEGERS=1");
    call.pack_small = true;
    cr_assert_gt(f->call_options(&call, a, sizeof a), 0);
    cr_expect_str_eq(a, " -DKSTEP=8 -DPANEL_DEPTH=32 -DPACK_MC_PANELS=3 -DHALF_BY_INTEGERS=1");
}

/* The tuner searches KC and MC on CPUs (K-blocks of 256 to 1024 steps, 4 to 32 panels), nowhere
 * else (Oclgrind, GPUs: the default's value); the tile parameters everywhere alike. */
Test(rules, microkernel_search_ranges) {
    const family_desc *f = clgemm__family(CLGEMM_FAMILY_MICROKERNEL);
    device_info on_cpu = cpu(), sim = gpu(), h200 = h200_static();
    const int want_cpu[][3] = {{0, 8, 64}, {1, 2, 16}, {2, 2, 16}, {3, 256, 1024}, {4, 4, 32}};
    for (size_t i = 0; i < sizeof want_cpu / sizeof want_cpu[0]; i++) {
        int lo, hi, p = want_cpu[i][0];
        clgemm__param_search(f, p, &on_cpu, &lo, &hi);
        cr_expect(lo == want_cpu[i][1] && hi == want_cpu[i][2], "%s: %d..%d on a CPU",
                  f->params[p].name, lo, hi);
        const device_info *others[] = {&sim, &h200};
        for (size_t d = 0; d < 2; d++) {
            clgemm__param_search(f, p, others[d], &lo, &hi);
            bool block = p >= 3;
            cr_expect(lo == (block ? 0 : want_cpu[i][1]) && hi == (block ? 0 : want_cpu[i][2]),
                      "%s: %d..%d on %s", f->params[p].name, lo, hi, others[d]->name);
        }
    }
    cr_expect_str_eq(f->params[3].name, "KC");
    cr_expect_str_eq(f->params[4].name, "MC");
    cr_expect(clgemm__param_optional(f, 3) && clgemm__param_optional(f, 4));
    cr_expect(!clgemm__param_optional(f, 0) && !clgemm__param_optional(f, 2));
}

/* ---- Launch geometry ------------------------------------------------------------------------ */

static void expect_launch(clgemm_config c, size_t m, size_t n, size_t l0, size_t l1, size_t g0,
                          size_t g1) {
    size_t local[2], global[2];
    clgemm__config_launch(&c, m, n, local, global);
    cr_expect(local[0] == l0 && local[1] == l1 && global[0] == g0 && global[1] == g1,
              "%s m=%zu n=%zu: local %zux%zu global %zux%zu, want %zux%zu and %zux%zu",
              describe(&c), m, n, local[0], local[1], global[0], global[1], l0, l1, g0, g1);
}

Test(launch, covers_c_with_whole_work_groups) {
    expect_launch(naive(8, 4), 1, 1, 8, 4, 8, 4);
    expect_launch(naive(8, 4), 17, 9, 8, 4, 24, 12);
    expect_launch(naive(3, 5), 7, 13, 3, 5, 9, 15);
    expect_launch(tiled(16), 64, 65, 16, 16, 64, 80);
    expect_launch(tiled(1), 7, 3, 1, 1, 7, 3);
    /* Regblock: one MDIMC x NDIMC group per MWG x NWG tile. */
    expect_launch(regblock(64, 32, 16, 16, 8, 2, 2, 2), 65, 32, 16, 8, 32, 8);
    expect_launch(regblock(64, 32, 16, 16, 8, 2, 2, 2), 1, 33, 16, 8, 16, 16);
    /* Microkernel: one work-item per MR x NR block, alone in its work-group. */
    expect_launch(microkernel(32, 8, 16), 65, 17, 1, 1, 3, 3);
    expect_launch(microkernel(16, 6, 8), 16, 6, 1, 1, 1, 1);
    expect_launch(microkernel(16, 6, 8), 1, 7, 1, 1, 1, 2);
}

/* ---- Defaults and fallback ------------------------------------------------------------------ */

Test(defaults, obey_the_rules_on_typical_devices) {
    /* Each class's default on a typical device of that class. */
    struct {
        device_class cls;
        device_info info;
    } typical[] = {
        {DEVICE_NVIDIA_GPU, fake_device(1024, 1024, 1024, 49152, true)},
        {DEVICE_AMD_GPU, fake_device(256, 1024, 1024, 65536, true)},
        {DEVICE_INTEL_GPU, fake_device(256, 256, 256, 65536, true)},
        {DEVICE_OTHER_GPU, fake_device(256, 256, 256, 32768, true)},
        {DEVICE_CPU, fake_device(4096, 4096, 4096, 2097152, true)},
    };
    for (size_t i = 0; i < sizeof typical / sizeof typical[0]; i++)
        for (int prec = S; prec < CLGEMM_PRECISION_COUNT; prec++) {
            typical[i].info.cls = typical[i].cls;
            clgemm_config c = clgemm__config_default(&typical[i].info, (clgemm_precision)prec);
            cr_expect_eq(clgemm__config_check(&c, &typical[i].info, (clgemm_precision)prec), OK,
                         "default for %s (%s) breaks a rule: %s",
                         clgemm__device_class_name(typical[i].cls), clgemm__type(prec)->name,
                         describe(&c));
        }
}

Test(defaults, size_aware_defaults_obey_the_rules) {
    /* For every shape, the default the planner starts from is legal on a typical device of the
     * class; the largest problems get the class's large-problem default; and a smaller C never
     * gets larger tiles than a bigger one. */
    struct {
        device_class cls;
        device_info info;
    } typical[] = {
        {DEVICE_NVIDIA_GPU, fake_device(1024, 1024, 1024, 49152, true)},
        {DEVICE_AMD_GPU, fake_device(256, 1024, 1024, 65536, true)},
        {DEVICE_INTEL_GPU, fake_device(256, 256, 256, 65536, true)},
        {DEVICE_OTHER_GPU, fake_device(256, 256, 256, 32768, true)},
        {DEVICE_CPU, fake_device(4096, 4096, 4096, 2097152, true)},
    };
    static const size_t sizes[] = {1, 7, 64, 100, 256, 1000, 4096, 1 << 16};
    for (size_t i = 0; i < sizeof typical / sizeof typical[0]; i++)
        for (int prec = S; prec < CLGEMM_PRECISION_COUNT; prec++) {
            device_info *info = &typical[i].info;
            info->cls = typical[i].cls;
            info->compute_units = info->cls == DEVICE_CPU ? 8 : 64;
            const char *cls = clgemm__device_class_name(info->cls);
            size_t last_area = 0;
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
                clgemm_config c =
                    clgemm__config_default_for(info, (clgemm_precision)prec, CLGEMM_COMPUTE_DEFAULT,
                                               sizes[s], sizes[s], sizes[s], 1);
                cr_expect_eq(clgemm__config_check(&c, info, (clgemm_precision)prec), OK,
                             "%s, %zu^2: default breaks a rule: %s", cls, sizes[s], describe(&c));
                size_t area = c.family == CLGEMM_FAMILY_REGBLOCK ? (size_t)c.mwg * c.nwg : 1;
                cr_expect_geq(area, last_area, "%s: %zu^2 gets smaller tiles than a smaller C", cls,
                              sizes[s]);
                last_area = area;
            }
            clgemm_config big = clgemm__config_default_for(
                info, (clgemm_precision)prec, CLGEMM_COMPUTE_DEFAULT, 1 << 16, 1 << 16, 1 << 16, 1);
            clgemm_config large = clgemm__config_default(info, (clgemm_precision)prec);
            if (clgemm__config_check(&large, info, (clgemm_precision)prec) == OK)
                cr_expect(memcmp(&big, &large, sizeof big) == 0,
                          "%s: a 65536^2 problem does not get the large-problem default", cls);
        }
}

Test(defaults, fallback_runs_on_a_minimal_device) {
    /* OpenCL 1.2's minimums: 32 KiB of local memory; a modest 64-item work-group. */
    device_info minimal = fake_device(64, 64, 64, 32768, true);
    clgemm_config c = clgemm__config_fallback();
    cr_expect_eq(clgemm__config_check(&c, &minimal, S), OK, "%s", describe(&c));
    cr_expect_eq(clgemm__config_check(&c, &minimal, D), OK, "%s", describe(&c));
}

/* ---- The matrix-unit family's guard ----------------------------------------------------------
 * mma is planned only on NVIDIA devices of compute capability 8.0+ (FP64: 9.0+), for FP16, BF16,
 * FP64 and FP32 with a TF32 compute mode; never for the FP32 default, complex types, or any
 * other device (which never sees its source). */
Test(mma_guard, chosen_only_where_the_device_has_the_instructions) {
    device_info h200 = h200_device();
    const struct {
        clgemm_precision type;
        clgemm_compute compute;
        bool mma;
    } cases[] = {
        {CLGEMM_HALF, CLGEMM_COMPUTE_DEFAULT, true},
        {CLGEMM_BFLOAT16, CLGEMM_COMPUTE_DEFAULT, true},
        {CLGEMM_DOUBLE, CLGEMM_COMPUTE_DEFAULT, true},
        {CLGEMM_SINGLE, CLGEMM_COMPUTE_TF32, true},
        {CLGEMM_SINGLE, CLGEMM_COMPUTE_FP32_3XTF32, true},
        {CLGEMM_SINGLE, CLGEMM_COMPUTE_DEFAULT, false},
        {CLGEMM_COMPLEX_SINGLE, CLGEMM_COMPUTE_DEFAULT, false},
        {CLGEMM_COMPLEX_DOUBLE, CLGEMM_COMPUTE_DEFAULT, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        clgemm_config c =
            clgemm__config_default_for(&h200, cases[i].type, cases[i].compute, 4096, 4096, 4096, 1);
        cr_expect_eq(c.family == CLGEMM_FAMILY_MMA, cases[i].mma, "type %d compute %d: %s",
                     cases[i].type, cases[i].compute, describe(&c));
        cr_expect_eq(clgemm__config_check(&c, &h200, cases[i].type), OK, "%s", describe(&c));
    }
    /* An older NVIDIA GPU (7.5), sm_80 for FP64, and every other class: never mma. */
    device_info older = h200;
    older.nv_compute_capability = 75;
    device_info ampere = h200;
    ampere.nv_compute_capability = 80;
    device_info amd = h200;
    amd.cls = DEVICE_AMD_GPU;
    device_info cpu = h200;
    cpu.cls = DEVICE_CPU;
    for (clgemm_precision t = 0; t < CLGEMM_PRECISION_COUNT; t++) {
        const device_info *others[] = {&older, &amd, &cpu};
        for (int d = 0; d < 3; d++) {
            clgemm_config c =
                clgemm__config_default_for(others[d], t, CLGEMM_COMPUTE_TF32, 64, 64, 64, 1);
            cr_expect_neq(c.family, CLGEMM_FAMILY_MMA, "device %d type %d got mma", d, t);
            clgemm_config forced = {.family = CLGEMM_FAMILY_MMA,
                                    .params = {128, 128, 32, 64, 64, 3}};
            cr_expect_neq(clgemm__config_check(&forced, others[d], t), OK,
                          "device %d type %d accepts a forced mma config", d, t);
        }
    }
    clgemm_config d = clgemm__config_default_for(&ampere, CLGEMM_DOUBLE, 0, 4096, 4096, 4096, 1);
    cr_expect_neq(d.family, CLGEMM_FAMILY_MMA, "FP64 mma needs sm_90");
}

/* The 8-bit types on mma.sync (m16n8k32): INT8 from compute capability 8.0, FP8 from 8.9 where
 * the driver's compiler took the probe (PTX ISA 8.4: nv_fp8_mma). Single matrices and batches
 * plan on mma on 8.x; on 9.0 the tma family keeps single matrices and the rest stays where it
 * was (the CUDA cores) unless a configuration is forced; below 8.0 never. */
Test(mma_guard, eight_bit_types_by_compute_capability) {
    device_info a100 = h200_device();
    a100.nv_compute_capability = 80;
    a100.compute_units = 108;
    device_info rtx = a100;
    rtx.nv_compute_capability = 86;
    device_info l40 = a100;
    l40.nv_compute_capability = 89;
    l40.nv_fp8_mma = true;
    device_info old_driver = l40; /* 8.9 whose compiler refused FP8 mma.sync */
    old_driver.nv_fp8_mma = false;
    device_info turing = a100;
    turing.nv_compute_capability = 75;
    device_info h200 = h200_device();
    h200.nv_sm90a = h200.nv_tma = h200.nv_fp8_mma = true;
    h200.local_mem_static = 232448;
    const struct {
        const char *name;
        const device_info *info;
        clgemm_family int8, fp8; /* the family of one 4096^3 matrix; AUTO: neither mma nor tma */
    } devices[] = {
        {"8.0", &a100, CLGEMM_FAMILY_MMA, CLGEMM_FAMILY_AUTO},
        {"8.6", &rtx, CLGEMM_FAMILY_MMA, CLGEMM_FAMILY_AUTO},
        {"8.9", &l40, CLGEMM_FAMILY_MMA, CLGEMM_FAMILY_MMA},
        {"8.9, FP8 probe failed", &old_driver, CLGEMM_FAMILY_MMA, CLGEMM_FAMILY_AUTO},
        {"9.0", &h200, CLGEMM_FAMILY_TMA, CLGEMM_FAMILY_TMA},
        {"7.5", &turing, CLGEMM_FAMILY_AUTO, CLGEMM_FAMILY_AUTO},
    };
    const clgemm_precision types[] = {CLGEMM_INT8, CLGEMM_E4M3, CLGEMM_E5M2};
    const clgemm_config forced = {.family = CLGEMM_FAMILY_MMA, .params = {128, 128, 64, 64, 32, 3}};
    for (size_t d = 0; d < sizeof devices / sizeof devices[0]; d++)
        for (int t = 0; t < 3; t++) {
            const device_info *info = devices[d].info;
            const clgemm_family want = t ? devices[d].fp8 : devices[d].int8;
            clgemm_config c = clgemm__config_default_for(info, types[t], CLGEMM_COMPUTE_DEFAULT,
                                                         4096, 4096, 4096, 1);
            if (want == CLGEMM_FAMILY_AUTO) {
                cr_expect(c.family != CLGEMM_FAMILY_MMA && c.family != CLGEMM_FAMILY_TMA,
                          "%s type %d: %s", devices[d].name, types[t], describe(&c));
            } else {
                cr_expect_eq(c.family, want, "%s type %d: %s", devices[d].name, types[t],
                             describe(&c));
            }
            cr_expect_eq(clgemm__config_check(&c, info, types[t]), OK, "%s: %s", devices[d].name,
                         describe(&c));
            /* A batch of 256^3 matrices: mma on 8.x where the type runs there, else not mma. */
            clgemm_config b = clgemm__config_default_for(info, types[t], CLGEMM_COMPUTE_DEFAULT,
                                                         256, 256, 256, 100);
            const bool batch_mma = want == CLGEMM_FAMILY_MMA;
            cr_expect_eq(b.family == CLGEMM_FAMILY_MMA, batch_mma, "%s type %d batch: %s",
                         devices[d].name, types[t], describe(&b));
            /* Forced: legal wherever the type runs on mma.sync, the H200 included. */
            const bool runs = info->nv_compute_capability >= 80 &&
                              (t == 0 || (info->nv_compute_capability >= 89 && info->nv_fp8_mma));
            cr_expect_eq(clgemm__config_supports(&forced, info, types[t], CLGEMM__COMPUTE_ANY) &&
                             clgemm__config_check(&forced, info, types[t]) == OK,
                         runs, "%s type %d forced %s", devices[d].name, types[t],
                         describe(&forced));
        }
    /* One k32 step a slice at least: KWG 16 is refused for 8-bit, legal for FP16. */
    clgemm_config shallow = {.family = CLGEMM_FAMILY_MMA, .params = {128, 128, 16, 64, 64, 3}};
    cr_expect_neq(clgemm__config_check(&shallow, &a100, CLGEMM_INT8), OK);
    cr_expect_eq(clgemm__config_check(&shallow, &a100, CLGEMM_HALF), OK);
}

/* ---- Planning a batch (issue 10) -------------------------------------------------------------
 * Small matrices in a large batch get tiles that fit them (no more than a quarter of padding),
 * large ones in a batch keep large tiles, and a batch of one plans as before. Split K counts
 * the tiles of the whole batch. */
static size_t tile_area(const clgemm_config *c) {
    return c->family == CLGEMM_FAMILY_REGBLOCK ? (size_t)c->mwg * (size_t)c->nwg : 0;
}

Test(batch_plan, small_matrices_in_large_batches_get_small_tiles) {
    device_info h200 = h200_device();
    clgemm_config c =
        clgemm__config_default_for(&h200, S, CLGEMM_COMPUTE_DEFAULT, 32, 32, 32, 10000);
    cr_expect_eq(tile_area(&c), 32u * 32u, "10000 x 32^2: %s", describe(&c));
    c = clgemm__config_default_for(&h200, S, CLGEMM_COMPUTE_DEFAULT, 64, 64, 64, 10000);
    cr_expect_eq(tile_area(&c), 64u * 64u, "10000 x 64^2: %s", describe(&c));
    c = clgemm__config_default_for(&h200, S, CLGEMM_COMPUTE_DEFAULT, 128, 128, 128, 1000);
    cr_expect_eq(tile_area(&c), 64u * 64u, "1000 x 128^2 (the batch list: 64 x 64): %s",
                 describe(&c));
    /* Matrices of 256 and more on every side, K too: 128 x 64 tiles (8 x 8 blocks). */
    c = clgemm__config_default_for(&h200, S, CLGEMM_COMPUTE_DEFAULT, 512, 512, 512, 100);
    cr_expect_eq(tile_area(&c), 128u * 64u, "100 x 512^2: %s", describe(&c));
    c = clgemm__config_default_for(&h200, S, CLGEMM_COMPUTE_DEFAULT, 256, 256, 256, 1000);
    cr_expect_eq(tile_area(&c), 128u * 64u, "1000 x 256^2: %s", describe(&c));
    cr_expect(c.mwg == 128 && c.nwg == 64, "1000 x 256^2: %s", describe(&c));
    c = clgemm__config_default_for(&h200, S, CLGEMM_COMPUTE_DEFAULT, 256, 256, 128, 1000);
    cr_expect_eq(tile_area(&c), 256u * 128u, "1000 x 256 x 256 x 128 (short K): %s", describe(&c));
    c = clgemm__config_default_for(&h200, S, CLGEMM_COMPUTE_DEFAULT, 512, 512, 512, 8);
    cr_expect_neq(tile_area(&c), 128u * 64u, "8 x 512^2 (few matrices, the single list): %s",
                  describe(&c));
    /* Batch 1: the tiles that fill the device, as before (smallest for a small C). */
    c = clgemm__config_default_for(&h200, S, CLGEMM_COMPUTE_DEFAULT, 512, 512, 512, 1);
    cr_expect_eq(tile_area(&c), 32u * 32u, "1 x 512^2: %s", describe(&c));
    /* Where 32 x 32 tiles leave compute units idle, the 16 x 32 ones (the 256^3 searches'). */
    c = clgemm__config_default_for(&h200, S, CLGEMM_COMPUTE_DEFAULT, 256, 256, 256, 1);
    cr_expect_eq(tile_area(&c), 16u * 32u, "1 x 256^2: %s", describe(&c));
    c = clgemm__config_default_for(&h200, S, CLGEMM_COMPUTE_DEFAULT, 384, 384, 384, 1);
    cr_expect_eq(tile_area(&c), 32u * 32u, "1 x 384^2: %s", describe(&c));
    /* Peeled strips keep square tiles (32 x 32), not the smaller 16 x 32 ones. */
    clgemm_config big = clgemm__config_default(&h200, S);
    c = clgemm__config_smallest(&big, &h200, S);
    cr_expect(c.mwg == 32 && c.nwg == 32, "strips: %s", describe(&c));
    /* Split K: 2 tiles of 256 x 256 x 16384 are split alone, not in a batch of 100. */
    clgemm_config rb = clgemm__config_default(&h200, S);
    cr_expect_gt(clgemm__plan_splits(&rb, &h200, 0, S, 256, 256, 16384, 1), 1);
    cr_expect_eq(clgemm__plan_splits(&rb, &h200, 0, S, 256, 256, 16384, 100), 1);
}

/* The overlap rule of C's matrices: interleaved ones (in the gaps ldc leaves) are disjoint. */
Test(batch_plan, overlap_rule) {
    /* 4 x 3 column-major, ldc 8: elements i + 8 j, i < 4, j < 3. */
    cr_expect(clgemm__matrices_overlap(0, 4, 3, 8));
    cr_expect(clgemm__matrices_overlap(3, 4, 3, 8));
    cr_expect_not(clgemm__matrices_overlap(4, 4, 3, 8));
    cr_expect(clgemm__matrices_overlap(5, 4, 3, 8));  /* 5 + 0 = 1 + 8 */
    cr_expect(clgemm__matrices_overlap(7, 4, 3, 8));  /* 7 + 1 = 0 + 8 */
    cr_expect(clgemm__matrices_overlap(16, 4, 3, 8)); /* (0, 2) */
    cr_expect_not(clgemm__matrices_overlap(20, 4, 3, 8));
    cr_expect_not(clgemm__matrices_overlap(24, 4, 3, 8)); /* past the last column */
    /* Brute force over small shapes. */
    for (size_t inner = 1; inner <= 4; inner++)
        for (size_t outer = 1; outer <= 3; outer++)
            for (size_t ld = inner; ld <= 6; ld++)
                for (size_t d = 0; d < 30; d++) {
                    bool want = false;
                    for (size_t i = 0; i < inner; i++)
                        for (size_t j = 0; j < outer; j++)
                            for (size_t i2 = 0; i2 < inner; i2++)
                                for (size_t j2 = 0; j2 < outer; j2++)
                                    if (i + j * ld == d + i2 + j2 * ld) want = true;
                    cr_expect_eq(clgemm__matrices_overlap(d, inner, outer, ld), want,
                                 "d %zu inner %zu outer %zu ld %zu", d, inner, outer, ld);
                }
}

/* ---- The tuner's check (tune_data.c) ----------------------------------------------------------
 */

Test(tune_data, half_round_trip_and_ties_to_even) {
    for (uint32_t h = 0; h < 0x10000; h++) {
        double v = clgemm__half_to_double((uint16_t)h);
        if (isnan(v)) continue;
        cr_assert_eq(clgemm__half_from_float((float)v), h, "0x%04x", h);
    }
    struct {
        float in;
        uint16_t out;
    } cases[] = {
        {1.0f + 0x1p-11f, 0x3c00},     /* tie: to the even 1.0 */
        {1.0f + 3 * 0x1p-11f, 0x3c02}, /* tie: up to the even mantissa 2 */
        {1.0f + 0x1p-11f + 0x1p-20f, 0x3c01},
        {65519.0f, 0x7bff},
        {65520.0f, 0x7c00}, /* rounds to infinity */
        {0x1p-25f, 0x0000}, /* subnormal tie: to 0 */
        {3 * 0x1p-25f, 0x0002},
        {-0x1p-24f, 0x8001},
        {1e-10f, 0x0000},
        {-INFINITY, 0xfc00},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        cr_assert_eq(clgemm__half_from_float(cases[i].in), cases[i].out, "case %zu: 0x%04x", i,
                     clgemm__half_from_float(cases[i].in));
    cr_assert(isnan(clgemm__half_to_double(clgemm__half_from_float(NAN))));
}

Test(tune_data, bf16_round_trip_and_ties_to_even) {
    for (uint32_t b = 0; b < 0x10000; b++) {
        double v = clgemm__bf16_to_double((uint16_t)b);
        if (isnan(v)) continue;
        cr_assert_eq(clgemm__bf16_from_float((float)v), b, "0x%04x", b);
    }
    cr_assert_eq(clgemm__bf16_from_float(1.0f + 0x1p-8f), 0x3f80);
    cr_assert_eq(clgemm__bf16_from_float(1.0f + 3 * 0x1p-8f), 0x3f82);
    cr_assert_eq(clgemm__bf16_from_float(1.0f + 0x1p-8f + 0x1p-20f), 0x3f81);
    cr_assert(isnan(clgemm__bf16_to_double(clgemm__bf16_from_float(NAN))));
}

/* Writes component comp of C's element i in C's type. */
static void set_c(tune_problem *p, size_t i, int comp, double v) {
    switch (p->key.type_c) {
    case CLGEMM_DOUBLE:
        ((double *)p->host[2])[i] = v;
        break;
    case CLGEMM_COMPLEX_SINGLE:
        ((float *)p->host[2])[2 * i + (size_t)comp] = (float)v;
        break;
    case CLGEMM_COMPLEX_DOUBLE:
        ((double *)p->host[2])[2 * i + (size_t)comp] = v;
        break;
    case CLGEMM_HALF:
        ((uint16_t *)p->host[2])[i] = clgemm__half_from_float((float)v);
        break;
    case CLGEMM_BFLOAT16:
        ((uint16_t *)p->host[2])[i] = clgemm__bf16_from_float((float)v);
        break;
    default:
        ((float *)p->host[2])[i] = (float)v;
        break;
    }
}

/* For every type pair and transposes: the reference stored in C's type passes; one component of
 * one element off by more than its bound, or NaN, fails (the reference itself is checked in
 * reference_follows_the_transposes). */
Test(tune_data, check_accepts_the_reference_and_rejects_errors) {
    static const clgemm_precision pairs[][2] = {
        {CLGEMM_SINGLE, CLGEMM_SINGLE},
        {CLGEMM_DOUBLE, CLGEMM_DOUBLE},
        {CLGEMM_COMPLEX_SINGLE, CLGEMM_COMPLEX_SINGLE},
        {CLGEMM_COMPLEX_DOUBLE, CLGEMM_COMPLEX_DOUBLE},
        {CLGEMM_HALF, CLGEMM_HALF},
        {CLGEMM_HALF, CLGEMM_SINGLE},
        {CLGEMM_BFLOAT16, CLGEMM_BFLOAT16},
        {CLGEMM_BFLOAT16, CLGEMM_SINGLE},
    };
    static const clgemm_transpose trans[] = {CLGEMM_NO_TRANS, CLGEMM_TRANS, CLGEMM_CONJ_TRANS};
    for (size_t t = 0; t < sizeof pairs / sizeof pairs[0]; t++)
        for (int ta = 0; ta < 3; ta++)
            for (int tb = 0; tb < 3; tb++) {
                tune_problem p = {
                    .key = clgemm__tuning_key(pairs[t][0], pairs[t][1], trans[ta], trans[tb]),
                    .m = 5,
                    .n = 4,
                    .k = 7};
                uint64_t rng = 42 + t;
                cr_assert_eq(clgemm__tune_problem_init(&p, &rng), CLGEMM_SUCCESS);
                cr_assert_eq(p.sample_count, 20, "a small C is checked whole");
                int comps = clgemm__type(pairs[t][0])->complex ? 2 : 1;
                for (size_t s = 0; s < p.sample_count; s++)
                    for (int c = 0; c < comps; c++)
                        set_c(&p, p.samples[s], c, p.ref[2 * s + c]);
                cr_assert(clgemm__tune_problem_check(&p), "type %zu, trans %d%d", t, ta, tb);
                for (int c = 0; c < comps; c++) {
                    size_t s = 7;
                    set_c(&p, p.samples[s], c, p.ref[2 * s + c] + 4 * p.tol[s] + 0.1);
                    cr_assert_not(clgemm__tune_problem_check(&p), "type %zu comp %d", t, c);
                    set_c(&p, p.samples[s], c, NAN);
                    cr_assert_not(clgemm__tune_problem_check(&p), "type %zu comp %d: NaN", t, c);
                    set_c(&p, p.samples[s], c, p.ref[2 * s + c]);
                }
                cr_assert(clgemm__tune_problem_check(&p));
                /* The bound is tight: at most a few times the worst case of an FP32 sum of 7
                 * terms in [-1, 1] (FP64 far less), plus C's rounding. */
                for (size_t s = 0; s < p.sample_count; s++)
                    cr_assert_leq(p.tol[s], 0.03, "type %zu: tolerance %g", t, p.tol[s]);
                clgemm__tune_problem_free(&p);
            }
}

/* The reference is op(A) op(B) of the stored inputs: checked by hand for a complex problem with
 * both operands conjugate-transposed. */
Test(tune_data, reference_follows_the_transposes) {
    tune_problem p = {.key = clgemm__tuning_key(CLGEMM_COMPLEX_DOUBLE, CLGEMM_COMPLEX_DOUBLE,
                                                CLGEMM_CONJ_TRANS, CLGEMM_TRANS),
                      .m = 3,
                      .n = 2,
                      .k = 4};
    uint64_t rng = 7;
    cr_assert_eq(clgemm__tune_problem_init(&p, &rng), CLGEMM_SUCCESS);
    cr_assert_eq(p.lda, 4);
    cr_assert_eq(p.ldb, 2);
    const double *a = p.host[0], *b = p.host[1];
    for (size_t s = 0; s < p.sample_count; s++) {
        size_t i = p.samples[s] % 3, j = p.samples[s] / 3;
        double re = 0, im = 0;
        for (size_t l = 0; l < 4; l++) {
            double ar = a[2 * (l + i * 4)], ai = -a[2 * (l + i * 4) + 1]; /* A^H */
            double br = b[2 * (j + l * 2)], bi = b[2 * (j + l * 2) + 1];  /* B^T */
            re += ar * br - ai * bi;
            im += ar * bi + ai * br;
        }
        cr_assert(fabs(p.ref[2 * s] - re) < 1e-14 && fabs(p.ref[2 * s + 1] - im) < 1e-14);
    }
    clgemm__tune_problem_free(&p);
}

/* The schedules the planner gives the shapes of issue 11 on an H200 (measured choices,
 * docs/PERFORMANCE.md): squares keep their data-parallel grid unless its last wave is mostly
 * empty, narrow shapes get 64 x 64 tiles and stream-K, long K gets 64 x 64 tiles split about
 * two work-groups per SM, and FP64 long K leaves the tensor-core family (no split) for one that
 * splits. Column-major m x n x k. */
Test(schedule_plan, h200_shapes) {
    device_info h200 = h200_device();
    const clgemm_compute DEF = CLGEMM_COMPUTE_DEFAULT;
    clgemm_config c = clgemm__config_default_for(&h200, S, DEF, 4096, 4096, 4096, 1);
    cr_expect_eq(tile_area(&c), 256u * 128u, "4096^2: %s", describe(&c));
    cr_expect_eq(clgemm__plan_streamk(&c, &h200, -1, S, 4096, 4096, 4096, 1), 0);
    c = clgemm__config_default_for(&h200, S, DEF, 2047, 2047, 2047, 1);
    cr_expect_eq(tile_area(&c), 256u * 128u, "2047^2 (128 tiles, 97%% of a wave): %s",
                 describe(&c));
    cr_expect_eq(clgemm__plan_streamk(&c, &h200, -1, S, 2047, 2047, 2047, 1), 0);
    c = clgemm__config_default_for(&h200, S, DEF, 4097, 4097, 4097, 1);
    cr_expect_eq(tile_area(&c), 256u * 128u, "4097^2: %s", describe(&c));
    size_t main_m, main_n;
    clgemm__plan_peel(&c, &h200, -1, 4097, 4097, 1, &main_m, &main_n);
    cr_expect(main_m == 4096 && main_n == 4096, "4097^2 keeps %zu x %zu", main_m, main_n);
    clgemm__plan_peel(&c, &h200, -1, 4097, 4097, 2, &main_m, &main_n);
    cr_expect(main_m == 4097 && main_n == 4097, "no peeling in a batch");
    clgemm__plan_peel(&c, &h200, -1, 2047, 2047, 1, &main_m, &main_n);
    cr_expect(main_m == 2047 && main_n == 2047, "2047^2: last tiles mostly full");
    cr_expect_eq(clgemm__plan_streamk(&c, &h200, -1, S, 4096, 4096, 4097, 1), 0);
    cr_expect_eq(clgemm__plan_streamk(&c, &h200, -1, S, 4097, 4097, 4097, 1), 132,
                 "unpeeled 4097^2: 561 tiles, 85%% of 5 waves");
    cr_expect_eq(clgemm__plan_streamk(&c, &h200, 0, S, 4097, 4097, 4097, 1), 0, "forced off");
    cr_expect_eq(clgemm__plan_streamk(&c, &h200, -1, S, 4097, 4097, 4097, 2), 0, "a batch");
    /* Narrow: 256-long tiles along the long side, K split to two work-groups per SM. */
    for (int narrow = 0; narrow < 2; narrow++) {
        size_t m = narrow ? 8192 : 64, n = narrow ? 64 : 8192;
        c = clgemm__config_default_for(&h200, S, DEF, m, n, 8192, 1);
        cr_expect((size_t)c.mwg == (narrow ? 256u : 64u) && (size_t)c.nwg == (narrow ? 64u : 256u),
                  "%zu x %zu x 8192: %s", m, n, describe(&c));
        cr_expect_eq(clgemm__plan_splits(&c, &h200, 0, S, m, n, 8192, 1), 8,
                     "32 tiles x 8 layers: one wave of two per SM");
    }
    /* K from a quarter of the long side on splits as well; a shorter K stays unsplit (stream-K
     * may take it), and on other devices K below the long side. */
    c = clgemm__config_default_for(&h200, S, DEF, 8192, 64, 2048, 1);
    cr_expect_eq(clgemm__plan_splits(&c, &h200, 0, S, 8192, 64, 2048, 1), 8);
    cr_expect_eq(clgemm__plan_splits(&c, &h200, 0, S, 8192, 64, 2047, 1), 1);
    device_info other = h200;
    other.cls = DEVICE_AMD_GPU;
    cr_expect_eq(clgemm__plan_splits(&c, &other, 0, S, 8192, 64, 4096, 1), 1);
    c = clgemm__config_default_for(&h200, S, DEF, 256, 256, 16384, 1);
    cr_expect_eq(tile_area(&c), 64u * 64u, "256 x 256 x 16384: %s", describe(&c));
    cr_expect_eq(clgemm__plan_splits(&c, &h200, 0, S, 256, 256, 16384, 1), 17);
    /* FP64 on the tensor cores: a matrix far wider than tall in 64 x 128 tiles, the squares in
     * 128 x 64. */
    c = clgemm__config_default_for(&h200, CLGEMM_DOUBLE, DEF, 64, 8192, 8192, 1);
    cr_expect(c.family == CLGEMM_FAMILY_MMA && c.params[0] == 64 && c.params[1] == 128,
              "FP64 64 x 8192 x 8192: %s", describe(&c));
    c = clgemm__config_default_for(&h200, CLGEMM_DOUBLE, DEF, 8192, 64, 8192, 1);
    cr_expect(c.family == CLGEMM_FAMILY_MMA && c.params[0] == 128 && c.params[1] == 64,
              "FP64 8192 x 64 x 8192: %s", describe(&c));
    /* FP64 long K stays on the tensor cores, split. */
    c = clgemm__config_default_for(&h200, CLGEMM_DOUBLE, DEF, 256, 256, 16384, 1);
    cr_expect_eq(c.family, CLGEMM_FAMILY_MMA, "FP64 long K: %s", describe(&c));
    cr_expect_eq(clgemm__plan_splits(&c, &h200, 0, CLGEMM_DOUBLE, 256, 256, 16384, 1), 32,
                 "8 tiles of 128 x 64, two per SM: 33 layers wanted, 32 non-empty");
    /* Batches of FP32 matrices: 64 x 64 tiles in 8-deep slices up to 128^3, from 256^3 128 x 128
     * with 16-byte loads (Hopper's list), 32 x 32 where 64 x 64 would pad a 32^3 matrix four
     * times over. */
    static const struct {
        size_t batch, n, area, kwg;
        int vload;
    } batches[] = {{10000, 32, 32 * 32, 16, 0},
                   {10000, 64, 64 * 64, 8, 0},
                   {1000, 128, 64 * 64, 8, 0},
                   {1000, 256, 128 * 128, 8, 2},
                   {100, 512, 128 * 128, 8, 2}};
    for (size_t i = 0; i < sizeof batches / sizeof batches[0]; i++) {
        size_t b = batches[i].batch, n = batches[i].n;
        c = clgemm__config_default_for_dims(&h200, S, DEF,
                                            &(const gemm_dims){n, n, n, b, true, false, false});
        cr_expect(tile_area(&c) == batches[i].area && (size_t)c.kwg == batches[i].kwg &&
                      c.params[10] == batches[i].vload,
                  "%zu x %zu^3: %s", b, n, describe(&c));
    }
    /* Operands off 16 bytes (or not known to be on them) keep the tiles that load element by
     * element faster: 128 x 64 for those batches, 256 x 128 for one matrix. */
    c = clgemm__config_default_for(&h200, S, DEF, 256, 256, 256, 1000);
    cr_expect(tile_area(&c) == 128u * 64u && c.params[10] == 0,
              "1000 x 256^3, alignment not known: %s", describe(&c));
    c = clgemm__config_default_for_dims(
        &h200, S, DEF, &(const gemm_dims){4096, 4096, 4096, 1, true, false, false});
    cr_expect(tile_area(&c) == 128u * 128u && c.params[10] == 2, "4096^2 aligned: %s",
              describe(&c));
    c = clgemm__config_default_for(&h200, S, DEF, 4097, 4097, 4097, 1);
    cr_expect(tile_area(&c) == 256u * 128u, "4097^2: %s", describe(&c));
    /* A narrow matrix (row-major 8192 x 64 x 8192: 64 x 8192 x 8192 here, B K-major): 64 x 256
     * tiles, with 16-byte loads where the operands keep them. */
    c = clgemm__config_default_for_dims(&h200, S, DEF,
                                        &(const gemm_dims){64, 8192, 8192, 1, true, false, false});
    cr_expect(c.family == CLGEMM_FAMILY_REGBLOCK && c.mwg == 64 && c.nwg == 256 &&
                  c.params[10] == 2,
              "64 x 8192 x 8192 aligned: %s", describe(&c));
    c = clgemm__config_default_for_dims(&h200, S, DEF,
                                        &(const gemm_dims){64, 8192, 8192, 1, false, false, false});
    cr_expect(c.mwg == 64 && c.nwg == 256 && c.params[10] == 0, "64 x 8192 x 8192 off 16 bytes: %s",
              describe(&c));
    /* Both operands MN-major (row-major TN), below the tma_simt family's sizes: 256 x 128 tiles
     * with 16-byte loads where they fill 0.9 of a wave (128 x 128 ones lose a fifth), 128 x 64
     * where those even the SMs out, else 128 x 128 with 16-byte loads. */
    static const struct {
        size_t n, area;
    } mn_major[] = {{1536, 128 * 64},
                    {1792, 128 * 64},
                    {2048, 256 * 128},
                    {2560, 256 * 128},
                    {3072, 256 * 128}};
    for (size_t i = 0; i < sizeof mn_major / sizeof mn_major[0]; i++) {
        size_t n = mn_major[i].n;
        c = clgemm__config_default_for_dims(&h200, S, DEF,
                                            &(const gemm_dims){n, n, n, 1, true, false, true});
        cr_expect(c.family == CLGEMM_FAMILY_REGBLOCK && tile_area(&c) == mn_major[i].area &&
                      c.params[10] == 2,
                  "%zu^2, both MN-major: %s", n, describe(&c));
    }
    c = clgemm__config_default_for_dims(&h200, S, DEF,
                                        &(const gemm_dims){1280, 1280, 1280, 1, true, false, true});
    cr_expect(tile_area(&c) < 256u * 128u, "1280^2, both MN-major: %s", describe(&c));
    /* Aligned FP32 squares: 128 x 64 tiles where 128 x 128 ones would leave the SMs two rounds
     * against their 1.5, 256 x 128 where 128 x 128 ones make 1.2 to 1.6 waves of two an SM
     * (2304^2: 324 tiles, 2560^2: 400), else 128 x 128; stream-K only past one whole wave of
     * work-groups (2176^2: 289 tiles of 128 x 128 over 264; 2304^2: 162 of 256 x 128 over 132),
     * never over tiles of which four fit an SM. */
    static const struct {
        size_t n, mwg, nwg;
        int groups;
    } mid[] = {{1536, 128, 64, 0},    {1664, 128, 64, 0},    {1792, 128, 64, 0},
               {1920, 128, 128, 0},   {2048, 128, 128, 0},   {2176, 128, 128, 264},
               {2304, 256, 128, 132}, {2432, 256, 128, 132}, {2560, 256, 128, 132},
               {2816, 128, 128, 0},   {3072, 128, 128, 264}, {8192, 128, 128, 0}};
    for (size_t i = 0; i < sizeof mid / sizeof mid[0]; i++) {
        size_t n = mid[i].n;
        c = clgemm__config_default_for_dims(&h200, S, DEF,
                                            &(const gemm_dims){n, n, n, 1, true, false, false});
        cr_expect((size_t)c.mwg == mid[i].mwg && (size_t)c.nwg == mid[i].nwg && c.params[10] == 2,
                  "%zu^2 aligned: %s", n, describe(&c));
        cr_expect_eq(clgemm__plan_streamk(&c, &h200, -1, S, n, n, n, 1), mid[i].groups, "%zu^2", n);
    }
    c = clgemm__config_default_for_dims(
        &h200, S, DEF, &(const gemm_dims){2176, 4352, 2176, 1, true, false, false});
    cr_expect_eq(clgemm__plan_streamk(&c, &h200, -1, S, 2176, 4352, 2176, 1), 264,
                 "578 tiles of 128 x 128: %s", describe(&c));
    c = clgemm__config_default_for_dims(
        &h200, S, DEF, &(const gemm_dims){1536, 1536, 1536, 1, true, false, false});
    cr_expect_eq(clgemm__plan_streamk(&c, &h200, -1, S, 2176, 2176, 2176, 1), 0,
                 "578 tiles of 128 x 64, four an SM: %s", describe(&c));
    /* The single-matrix list is unchanged by it. */
    c = clgemm__config_default_for(&h200, S, DEF, 1024, 1024, 1024, 1);
    cr_expect(tile_area(&c) == 64u * 64u && c.kwg == 32, "1024^3: %s", describe(&c));
    /* FP64 on the SIMT family (an NVIDIA device of no known tier and no FP64 tensor cores):
     * narrow shapes in 128 x 64 or 64 x 128 tiles, the long side along the long dimension. */
    device_info pascal = h200;
    pascal.nv_compute_capability = 60;
    c = clgemm__config_default_for(&pascal, CLGEMM_DOUBLE, DEF, 256, 256, 16384, 1);
    cr_expect(c.family == CLGEMM_FAMILY_REGBLOCK && c.mwg == 128 && c.nwg == 64,
              "FP64 long K on the SIMT family takes 128 x 64 tiles (8 x 8 blocks): %s",
              describe(&c));
    cr_expect_eq(clgemm__plan_splits(&c, &pascal, 0, CLGEMM_DOUBLE, 256, 256, 16384, 1), 33,
                 "two 128 x 64 FP64 work-groups per SM: 8 tiles x 33 layers");
    for (int narrow = 0; narrow < 2; narrow++) {
        size_t m = narrow ? 8192 : 64, n = narrow ? 64 : 8192;
        c = clgemm__config_default_for(&pascal, CLGEMM_DOUBLE, DEF, m, n, 8192, 1);
        cr_expect(c.family == CLGEMM_FAMILY_REGBLOCK && (size_t)c.mwg == (narrow ? 128u : 64u) &&
                      (size_t)c.nwg == (narrow ? 64u : 128u),
                  "FP64 %zu x %zu x 8192: %s", m, n, describe(&c));
    }
    c = clgemm__config_default_for(&h200, CLGEMM_DOUBLE, DEF, 4096, 4096, 4096, 1);
    cr_expect_eq(c.family, CLGEMM_FAMILY_MMA, "FP64 4096^2: %s", describe(&c));
    /* With the static local memory probed: FP64 squares of K >= 6000 in 128 x 128 tiles of 5
     * stages (160 KiB) unless their last, partial wave costs (132 SMs, one work-group each:
     * rounded-up waves above 1.06 times the waves); shorter K, and such waves, in 128 x 64 (or
     * 64 x 128, 64 x 64) tiles of 4 stages (98 KiB, two an SM). */
    const device_info big = h200_static();
    static const struct {
        size_t n, k, batch;
        bool large;
    } waves[] = {{6000, 6000, 1, true},   {7000, 7000, 1, true},   {8192, 8192, 1, true},
                 {10000, 10000, 1, true}, {12288, 12288, 1, true}, {2560, 8192, 1, false},
                 {2047, 2047, 1, false},  {4096, 4096, 1, false},  {4096, 5999, 1, false},
                 {2049, 2049, 1, false},  {3000, 3000, 1, false},  {4097, 4097, 1, false},
                 {5000, 5000, 1, false},  {128, 128, 1000, false}, {256, 256, 1000, false},
                 {512, 512, 100, false},  {2048, 2048, 30, false}, {8193, 8193, 1, true}};
    for (size_t i = 0; i < sizeof waves / sizeof waves[0]; i++) {
        size_t n = waves[i].n;
        c = clgemm__config_default_for(&big, CLGEMM_DOUBLE, DEF, n, n, waves[i].k, waves[i].batch);
        cr_expect(c.family == CLGEMM_FAMILY_MMA &&
                      (waves[i].large
                           ? c.params[1] == 128 && c.params[5] == 5
                           : c.params[0] == 128 && c.params[1] == 64 && c.params[5] == 4),
                  "FP64 %zu x %zu^2 x %zu: %s", waves[i].batch, n, waves[i].k, describe(&c));
        if (waves[i].large) {
            cr_expect_eq(clgemm__config_check(&c, &big, CLGEMM_DOUBLE), OK);
            cr_expect_neq(clgemm__config_check(&c, &h200, CLGEMM_DOUBLE), OK, "160 KiB > 48 KiB");
        }
    }
    /* Without the probe (48 KiB): 128 x 64 tiles of 2 stages, at any size. */
    for (size_t n = 2048; n <= 8192; n *= 2) {
        c = clgemm__config_default_for(&h200, CLGEMM_DOUBLE, DEF, n, n, n, 1);
        cr_expect(c.params[0] == 128 && c.params[1] == 64 && c.params[5] == 2,
                  "FP64 %zu^2 in 48 KiB: %s", n, describe(&c));
    }
    /* Batches of 32^3 FP64 matrices in 32 x 32 tiles on either device; 64^3 and one matrix of
     * 32^3 as before. */
    for (int probed = 0; probed < 2; probed++) {
        const device_info *d = probed ? &big : &h200;
        c = clgemm__config_default_for(d, CLGEMM_DOUBLE, DEF, 32, 32, 32, 10000);
        cr_expect(c.family == CLGEMM_FAMILY_MMA && c.params[0] == 32 && c.params[1] == 32,
                  "FP64 10000 x 32^3: %s", describe(&c));
        c = clgemm__config_default_for(d, CLGEMM_DOUBLE, DEF, 64, 64, 64, 10000);
        cr_expect(c.params[0] == 64 && c.params[1] == 64, "FP64 10000 x 64^3: %s", describe(&c));
        c = clgemm__config_default_for(d, CLGEMM_DOUBLE, DEF, 32, 32, 32, 1);
        cr_expect(c.params[0] == 64 && c.params[1] == 64, "FP64 32^3: %s", describe(&c));
    }
    c = clgemm__config_default_for(&big, CLGEMM_DOUBLE, DEF, 8192, 64, 8192, 1);
    cr_expect(c.params[0] == 128 && c.params[1] == 64 && c.params[5] == 4, "FP64 8192 x 64: %s",
              describe(&c));
    c = clgemm__config_default_for(&big, CLGEMM_DOUBLE, DEF, 64, 8192, 8192, 1);
    cr_expect(c.params[0] == 64 && c.params[1] == 128, "FP64 64 x 8192: %s", describe(&c));
    c = clgemm__config_default_for(&big, CLGEMM_DOUBLE, DEF, 256, 256, 16384, 1);
    cr_expect(c.params[0] == 128 && c.params[1] == 64, "FP64 long K: %s", describe(&c));
    /* Not on a CPU unless forced. */
    device_info cpu = fake_device(4096, 4096, 4096, 1 << 21, true);
    cpu.cls = DEVICE_CPU;
    cpu.compute_units = 2;
    c = clgemm__config_default_for(&cpu, S, DEF, 4097, 4097, 4097, 1);
    cr_expect_eq(clgemm__plan_streamk(&c, &cpu, -1, S, 4097, 4097, 4097, 1), 0);
    cr_expect_eq(clgemm__plan_streamk(&c, &cpu, 7, S, 4097, 4097, 4097, 1), 7);
    cr_expect_eq(clgemm__plan_streamk(&c, &cpu, INT_MAX, S, 4097, 4097, 4097, 1), 65535,
                 "a forced count beyond what the kernels' range arithmetic holds is clamped");
    clgemm__plan_peel(&c, &cpu, -1, 4097, 4097, 1, &main_m, &main_n);
    cr_expect(main_m == 4097 && main_n == 4097, "no peeling on a CPU unless forced");
    clgemm__plan_peel(&c, &cpu, 1, 4097, 4097, 1, &main_m, &main_n);
    cr_expect(main_m < 4097 && main_n < 4097, "CLGEMM_PEEL=1 peels");
}

/* A partial last wave shared out by a K split (clgemm__plan_tail): whole waves in the head, the
 * rest's rectangles split so that each makes about one wave. Unset, only where measured to pay:
 * the mma family on compute capability 9.0 with at most half a wave left. */
Test(schedule_plan, partial_last_wave_split_where_measured_or_forced) {
    const device_info h200 = h200_static();
    size_t head;
    int splits[2];
    tile_rect rest[2];
    /* FP64 8192^2 in 128 x 128 tiles, one an SM: 4096 tiles, 31 waves of 132 and 4 tiles, the
     * bottom of the last column, in 32 layers of K / 32 (132 / 4 = 33 asked; 512 slices of 16
     * make 32 layers of 16, none empty). */
    const clgemm_config d = {.family = CLGEMM_FAMILY_MMA, .params = {128, 128, 16, 64, 32, 5}};
    clgemm__plan_tail(&d, &h200, -1, D, 8192, 8192, 8192, 1, &head, splits);
    cr_expect_eq(head, 0, "CLGEMM_TAIL=0: never");
    clgemm__plan_tail(&d, &h200, 0, D, 8192, 8192, 8192, 1, &head, splits);
    cr_expect_eq(head, 31u * 132u, "unset: 4 tiles left of 132");
    cr_expect(splits[0] == 32 && splits[1] == 1, "splits %d, %d", splits[0], splits[1]);
    /* Unset: 6144^2 leaves 60 tiles of 132 (split); 7 x 66 tiles leave 66, half a wave (split),
     * 7 x 85 leave 67 (plain); 128 x 64 tiles two an SM: 4097^2 leaves 33 of 264 (split),
     * 4096^2 200 of 264 (plain). */
    clgemm__plan_tail(&d, &h200, 0, D, 6144, 6144, 6144, 1, &head, splits);
    cr_expect_eq(head, 17u * 132u);
    clgemm__plan_tail(&d, &h200, 0, D, 128 * 7, 128 * 66, 4096, 1, &head, splits);
    cr_expect_eq(head, 3u * 132u, "462 tiles: 66 left of 132");
    clgemm__plan_tail(&d, &h200, 0, D, 128 * 7, 128 * 85, 4096, 1, &head, splits);
    cr_expect_eq(head, 0, "595 tiles: 67 left of 132");
    const clgemm_config d64 = {.family = CLGEMM_FAMILY_MMA, .params = {128, 64, 16, 64, 32, 4}};
    clgemm__plan_tail(&d64, &h200, 0, D, 4097, 4097, 4097, 1, &head, splits);
    cr_expect_eq(head, 8u * 264u, "33 x 65 tiles, 33 left of 264");
    clgemm__plan_tail(&d64, &h200, 0, D, 4096, 4096, 4096, 1, &head, splits);
    cr_expect_eq(head, 0, "200 left of 264");
    /* Unset elsewhere: not on another device, not for the register-blocked family (its build
     * for it took 130 registers on the H200, one work-group an SM in place of two). */
    device_info other = h200;
    other.nv_compute_capability = 80;
    clgemm__plan_tail(&d, &other, 0, D, 8192, 8192, 8192, 1, &head, splits);
    cr_expect_eq(head, 0, "compute capability 8.0: unmeasured");
    const clgemm_config s32 = regblock(128, 128, 8, 16, 16, 8, 4, 4);
    clgemm__plan_tail(&s32, &h200, 0, S, 8192, 8192, 8192, 1, &head, splits);
    cr_expect_eq(head, 0, "register-blocked: only when asked");
    clgemm__plan_tail(&s32, &h200, 1, S, 8192, 8192, 8192, 1, &head, splits);
    cr_expect_neq(head, 0, "register-blocked, asked");
    clgemm__plan_tail(&d, &h200, 1, D, 8192, 8192, 8192, 1, &head, splits);
    cr_expect_eq(head, 31u * 132u);
    cr_expect(splits[0] == 32 && splits[1] == 1, "splits %d, %d", splits[0], splits[1]);
    clgemm__tail_rects(8192, 8192, 128, 128, head, rest);
    cr_expect(rest[0].i0 == 7680 && rest[0].j0 == 8064 && rest[0].m == 512 && rest[0].n == 128);
    cr_expect(rest[1].m == 0 || rest[1].n == 0, "nothing after the last column");
    const schedule_force tail = {0, -1, -1, 0, 1};
    gemm_schedule s = clgemm__plan_schedule(&d, &h200, &tail, D, D, 8192, 8192, 8192, 1, false);
    cr_expect(s.head_tiles == head && s.splits == 1 && s.groups == 0 && !s.peeled);
    cr_expect_eq(s.workspace, 32u * 512u * 128u * 8u, "the tail's layers in FP64");
    s = clgemm__plan_schedule(&d, &h200, &tail, D, D, 8192, 8192, 8192, 1, true);
    cr_expect_eq(s.head_tiles, 0, "a batch table keeps the plain grid");
    /* Whole waves (7936 x 8448: 62 x 66 tiles, 31 of 132) and batches: nothing to share. */
    clgemm__plan_tail(&d, &h200, 1, D, 7936, 8448, 8192, 1, &head, splits);
    cr_expect_eq(head, 0, "whole waves");
    clgemm__plan_tail(&d, &h200, 1, D, 8192, 8192, 8192, 2, &head, splits);
    cr_expect_eq(head, 0, "a batch");
    /* Waves of 264 (FP32's two an SM, forced): 4096 tiles leave 136, the bottom 8 tiles of
     * column 61 (32 layers) and columns 62-63 (128 tiles, 2 layers); a K too short for more
     * than 4 layers of 8 slices caps both. */
    clgemm__plan_tail(&d, &h200, 264, D, 8192, 8192, 8192, 1, &head, splits);
    cr_expect_eq(head, 15u * 264u);
    cr_expect(splits[0] == 32 && splits[1] == 2, "splits %d, %d", splits[0], splits[1]);
    clgemm__tail_rects(8192, 8192, 128, 128, head, rest);
    cr_expect(rest[0].i0 == 56 * 128 && rest[0].j0 == 61 * 128 && rest[0].m == 8 * 128 &&
              rest[0].n == 128);
    cr_expect(rest[1].i0 == 0 && rest[1].j0 == 62 * 128 && rest[1].m == 8192 && rest[1].n == 256);
    clgemm__plan_tail(&d, &h200, 264, D, 8192, 8192, 512, 1, &head, splits);
    cr_expect(splits[0] == 4 && splits[1] == 2, "short K: splits %d, %d", splits[0], splits[1]);
    /* Ragged edges: the last rectangle keeps C's own edge (8000 x 8000: 63 x 63 tiles). */
    clgemm__plan_tail(&d, &h200, 1, D, 8000, 8000, 8192, 1, &head, splits);
    cr_expect_eq(head, 30u * 132u);
    clgemm__tail_rects(8000, 8000, 128, 128, head, rest);
    cr_expect(rest[0].i0 == 54 * 128 && rest[0].j0 == 62 * 128 && rest[0].m == 8000 - 54 * 128 &&
              rest[0].n == 8000 - 62 * 128);
    cr_expect(rest[1].m == 0 || rest[1].n == 0);
    /* Families that cannot run it (the micro-kernel) never do. */
    const clgemm_config mk = {.family = CLGEMM_FAMILY_MICROKERNEL, .params = {32, 6, 8}};
    clgemm__plan_tail(&mk, &h200, 1, D, 8192, 8192, 8192, 1, &head, splits);
    cr_expect_eq(head, 0);
}

/* FP64 of 17 to 32 rows along M, N and K of 4096 or more, one aligned matrix in the measured
 * layout: the mma family's 32 x 128 tiles in 4 stages, whose 81 KiB the planner counts (two
 * work-groups an SM, not the three its register estimate allows), so K is split to one wave of
 * them: 4 ways at 8192 x 32 x 8192 (64 tiles), 8 at 32 x 4096 (32), 2 at 32 x 16384 (128). */
Test(schedule_plan, fp64_32_row_tiles_counted_by_local_memory) {
    device_info h200 = h200_static();
    h200.has_fp64 = true;
    const clgemm_compute DEF = CLGEMM_COMPUTE_DEFAULT;
    const clgemm_config want = {.family = CLGEMM_FAMILY_MMA, .params = {32, 128, 16, 32, 32, 4}};
    const gemm_dims rows32 = {32, 8192, 8192, 1, true, false, false};
    clgemm_config c = clgemm__config_default_for_dims(&h200, D, DEF, &rows32);
    cr_expect(c.family == want.family && !memcmp(c.params, want.params, 6 * sizeof(int)),
              "32 x 8192 x 8192: family %d, %d x %d", (int)c.family, c.params[0], c.params[1]);
    const gemm_dims others[] = {
        {48, 8192, 8192, 1, true, false, false}, {16, 8192, 8192, 1, true, false, false},
        {32, 2048, 8192, 1, true, false, false}, {32, 8192, 2048, 1, true, false, false},
        {32, 8192, 8192, 2, true, false, false}, {32, 8192, 8192, 1, false, false, false},
        {32, 8192, 8192, 1, true, true, false},  {32, 8192, 8192, 1, true, false, true}};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
        c = clgemm__config_default_for_dims(&h200, D, DEF, &others[i]);
        cr_expect(c.family != want.family || c.params[0] != 32, "case %zu: unmeasured", i);
    }
    const family_desc *mma = clgemm__family(CLGEMM_FAMILY_MMA);
    cr_expect_eq(mma->local_bytes(&want, D), 4u * 160u * 16u * 8u + 1024u);
    cr_expect_eq(mma->local_bytes(&want, CLGEMM_HALF), 4u * 160u * 16u * 2u + 1024u);
    cr_expect_eq(clgemm__plan_splits(&want, &h200, 0, D, 32, 8192, 8192, 1), 4);
    cr_expect_eq(clgemm__plan_splits(&want, &h200, 0, D, 32, 4096, 8192, 1), 8);
    cr_expect_eq(clgemm__plan_splits(&want, &h200, 0, D, 32, 16384, 4096, 1), 2);
}

/* The schedule as one value (clgemm__plan_schedule): each decision as the single planners make
 * it, the workspace it needs in bytes (counted here from the launches), and the plain fallback
 * when a workspace cannot be had or sized. H200, FP32, column-major m x n x k. */
Test(schedule_plan, one_value) {
    device_info h200 = h200_device();
    const clgemm_compute DEF = CLGEMM_COMPUTE_DEFAULT;
    const schedule_force unset = {0, -1, -1, 0, 0}, no_peel = {0, 0, -1, 0, 0};
    /* 4096^2: the plain grid, no workspace. */
    clgemm_config c = clgemm__config_default_for(&h200, S, DEF, 4096, 4096, 4096, 1);
    gemm_schedule s = clgemm__plan_schedule(&c, &h200, &unset, S, S, 4096, 4096, 4096, 1, false);
    cr_expect(s.splits == 1 && s.groups == 0 && !s.peeled && s.workspace == 0, "4096^2");
    cr_expect(s.main_m == 4096 && s.main_n == 4096 && s.cfg.mwg == c.mwg);
    /* 4097^2: the last row and column of tiles peeled into the smallest tiles, K split 32 ways
     * at most; the strips' partial products (the larger strip, 4097 x 1) in the workspace. */
    c = clgemm__config_default_for(&h200, S, DEF, 4097, 4097, 4097, 1);
    s = clgemm__plan_schedule(&c, &h200, &unset, S, S, 4097, 4097, 4097, 1, false);
    clgemm_config small = clgemm__config_smallest(&c, &h200, S);
    int strip_splits = clgemm__plan_splits(&small, &h200, CLGEMM__STRIP_SPLITS, S, 1, 1, 4097, 1);
    cr_expect(s.peeled && s.main_m == 4096 && s.main_n == 4096 && s.splits == 1, "4097^2");
    cr_expect(s.small.mwg == small.mwg && s.small.nwg == small.nwg &&
              s.strip_splits == strip_splits);
    cr_expect_gt(strip_splits, 1);
    cr_expect_eq(s.groups, clgemm__plan_streamk(&c, &h200, -1, S, 4096, 4096, 4097, 1));
    cr_expect_eq(s.workspace, 4097u * (size_t)strip_splits * 4u);
    /* Unpeeled 4097^2: stream-K over 132 work-groups, two tile-sized slots each. */
    s = clgemm__plan_schedule(&c, &h200, &no_peel, S, S, 4097, 4097, 4097, 1, false);
    cr_expect(!s.peeled && s.groups == 132 && s.splits == 1, "stream-K: %d groups", s.groups);
    cr_expect_eq(s.workspace, 2u * 132u * 256u * 128u * 4u);
    /* ... and a table batch keeps the plain grid. */
    s = clgemm__plan_schedule(&c, &h200, &no_peel, S, S, 4097, 4097, 4097, 1, true);
    cr_expect(!s.peeled && s.groups == 0 && s.workspace == 0, "table");
    /* Long K: split 17 ways, each layer a whole C in FP32. */
    c = clgemm__config_default_for(&h200, S, DEF, 256, 256, 16384, 1);
    s = clgemm__plan_schedule(&c, &h200, &unset, S, S, 256, 256, 16384, 1, false);
    cr_expect(s.splits == 17 && s.groups == 0 && !s.peeled, "long K: %d", s.splits);
    cr_expect_eq(s.workspace, 17u * 256u * 256u * 4u);
    /* FP64: the workspace is in the arithmetic type's bytes. */
    c = clgemm__config_default_for(&h200, CLGEMM_DOUBLE, DEF, 256, 256, 16384, 1);
    s = clgemm__plan_schedule(&c, &h200, &unset, CLGEMM_DOUBLE, CLGEMM_DOUBLE, 256, 256, 16384, 1,
                              false);
    cr_expect_eq(s.workspace, (size_t)s.splits * 256u * 256u * 8u, "FP64 split %d", s.splits);
    /* The fallback: one plain launch. */
    gemm_schedule plain = clgemm__schedule_without_workspace(&s, 256, 256);
    cr_expect(plain.splits == 1 && plain.groups == 0 && !plain.peeled && plain.workspace == 0 &&
              plain.main_m == 256 && plain.main_n == 256 && plain.cfg.family == s.cfg.family);
    /* A workspace whose size overflows size_t gives the fallback, never a short buffer. */
    const schedule_force split8 = {8, -1, -1, 0, 0};
    size_t huge = (size_t)1 << 50;
    c = clgemm__config_default_for(&h200, S, DEF, 256, 256, 16384, 1);
    s = clgemm__plan_schedule(&c, &h200, &split8, S, S, 256, 256, 16384, huge, false);
    cr_expect(s.splits == 1 && s.workspace == 0, "overflow: %d layers, %zu bytes", s.splits,
              s.workspace);
}

/* The micro-kernel's blocked schedule (pack_depth, src/families/microkernel.c) on a CPU of the
 * AVX-512 tier: K-blocks of 2 KB per panel row from 1024^3 on (complex: at every size), unless C
 * is at most two panels of A tall, never for a batch, a table or another tier (FP16 and BF16 C
 * through a staged FP32 copy); op(A)
 * packed about 2 MB of a K-block at a time where op(B)'s K-block is at most 2 MB (pack_rows), 7
 * panels when forced; the workspace holds one such block of A and the K-block of B, B's from a
 * 64-byte boundary; CLGEMM_PACK_KC forces it or (-1) forbids it. */
Test(schedule_plan, blocked_on_cpus) {
    device_info avx512 = cpu();
    strcpy(avx512.name, "pthread-skylake-avx512");
    cr_assert_eq(clgemm__device_tier(&avx512), TIER_CPU_AVX512);
    const schedule_force unset = {0, -1, -1, 0, 0}, never = {0, -1, -1, -1, 0},
                         kc5 = {0, -1, -1, 5, 0};
    const clgemm_config c = microkernel(32, 8, 16);
    gemm_schedule s = clgemm__plan_schedule(&c, &avx512, &unset, S, S, 2048, 2048, 2048, 1, false);
    cr_expect_eq(s.pack_kc, 512, "FP32 2048^3: %d", s.pack_kc);
    cr_expect(s.splits == 1 && s.groups == 0 && !s.peeled);
    /* A: 2048 x 512 (B's K-block, 4 MB, is past 2 MB: all of A at once); B: 2048 x 512 from a
     * 64-byte boundary. */
    cr_expect_eq(s.pack_mc, 2048u, "FP32 2048^3: %zu rows of A", s.pack_mc);
    cr_expect_eq(s.workspace, 2u * 2048u * 512u * 4u);
    /* FP64 64 x 8192 x 8192 row-major (column-major 8192 x 64 x 8192) in the EPYC's default: B's
     * K-block within 2 MB, so A 16 panels of 32 x 512 x 8 bytes at a time; B's 64 columns
     * rounded to 66. 512 columns (B's K-block 2 MB) still so, 513 not. */
    const clgemm_config d = {.family = CLGEMM_FAMILY_MICROKERNEL, .params = {32, 6, 8, 512}};
    s = clgemm__plan_schedule(&d, &avx512, &unset, D, D, 8192, 64, 8192, 1, false);
    cr_expect_eq(s.pack_kc, 512);
    cr_expect_eq(s.pack_mc, 512u, "FP64 8192 x 64 x 8192: %zu rows of A", s.pack_mc);
    cr_expect_eq(s.workspace, (512u + 66u) * 512u * 8u);
    s = clgemm__plan_schedule(&d, &avx512, &unset, D, D, 8192, 512, 8192, 1, false);
    cr_expect_eq(s.pack_mc, 512u, "FP64 8192 x 512 x 8192: %zu rows of A", s.pack_mc);
    s = clgemm__plan_schedule(&d, &avx512, &unset, D, D, 8192, 513, 8192, 1, false);
    cr_expect_eq(s.pack_mc, 8192u, "FP64 8192 x 513 x 8192: %zu rows of A", s.pack_mc);
    s = clgemm__plan_schedule(&c, &avx512, &unset, D, D, 1000, 1001, 1100, 1, false);
    cr_expect_eq(s.pack_kc, 256, "FP64 1000 x 1001 x 1100: %d", s.pack_kc);
    cr_expect_eq(s.pack_mc, 1000u, "all of A's 1000 rows in one block of 2 MB");
    const size_t a = 1024u * 256u, b = 1008u * 256u; /* rows rounded to 32, columns to 8 */
    cr_expect_eq(s.workspace, (a + b) * 8u);
    /* K shorter than a block: one block of all of K. */
    s = clgemm__plan_schedule(&c, &avx512, &unset, S, S, 8192, 8192, 100, 1, false);
    cr_expect_eq(s.pack_kc, 100);
    const struct {
        clgemm_precision type_c;
        size_t m, n, k, batch;
        bool table;
        const char *why;
    } plain[] = {
        {S, 1000, 1000, 1000, 1, false, "below 1024^3"},
        {S, 64, 8192, 8192, 1, false, "two panels of A"},
        {S, 2048, 2048, 2048, 2, false, "a batch"},
        {S, 2048, 2048, 2048, 1, true, "a table"},
    };
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) {
        s = clgemm__plan_schedule(&c, &avx512, &unset, S, plain[i].type_c, plain[i].m, plain[i].n,
                                  plain[i].k, plain[i].batch, plain[i].table);
        cr_expect_eq(s.pack_kc, 0, "%s", plain[i].why);
    }
    /* FP16 A and B with FP32 C: blocked, the panels widened to FP32 (4 bytes an element), no
     * staged C (C holds the arithmetic type). */
    s = clgemm__plan_schedule(&c, &avx512, &unset, CLGEMM_HALF, S, 2048, 2048, 2048, 1, false);
    cr_expect_eq(s.pack_kc, 512);
    cr_expect_eq(s.pack_stage, 0u);
    cr_expect_eq(s.workspace, 2u * 2048u * 512u * 4u);
    /* FP16 and BF16 C: blocked too, into an FP32 copy of C at the workspace's start (rounded
     * into C once), the panels after it from a 64-byte boundary. 1000 x 999 x 1100: C's copy
     * of 999,000 floats ends off 64 bytes. */
    const clgemm_precision sixteen[] = {CLGEMM_HALF, CLGEMM_BFLOAT16};
    for (int t = 0; t < 2; t++) {
        s = clgemm__plan_schedule(&c, &avx512, &unset, sixteen[t], sixteen[t], 2048, 2048, 2048, 1,
                                  false);
        cr_expect_eq(s.pack_kc, 512);
        cr_expect_eq(s.pack_stage, 2048u * 2048u);
        cr_expect_eq(clgemm__pack_panels_base(&s, sixteen[t]), 2048u * 2048u * 4u);
        cr_expect_eq(s.workspace, 2048u * 2048u * 4u + 2u * 2048u * 512u * 4u);
        s = clgemm__plan_schedule(&c, &avx512, &unset, sixteen[t], sixteen[t], 1000, 999, 1100, 1,
                                  false);
        cr_expect_eq(s.pack_stage, 999000u);
        cr_expect_eq(clgemm__pack_panels_base(&s, sixteen[t]), 3996032u, "999,000 x 4 rounded");
        /* One K-block (K no deeper than its 512 steps): the block writes C itself, no copy. */
        s = clgemm__plan_schedule(&c, &avx512, &unset, sixteen[t], sixteen[t], 2048, 2048, 512, 1,
                                  false);
        cr_expect_eq(s.pack_kc, 512);
        cr_expect_eq(s.pack_stage, 0u);
        cr_expect_eq(s.workspace, 2u * 2048u * 512u * 4u);
    }
    /* Complex: blocked at every size and shape (2 KB per panel row: 256 steps of complex FP32,
     * 128 of complex FP64), still never for a batch. */
    const clgemm_config cc = microkernel(16, 6, 8);
    const clgemm_precision C = CLGEMM_COMPLEX_SINGLE, Z = CLGEMM_COMPLEX_DOUBLE;
    s = clgemm__plan_schedule(&cc, &avx512, &unset, C, C, 7, 5, 300, 1, false);
    cr_expect_eq(s.pack_kc, 256, "complex FP32 7 x 5 x 300: %d", s.pack_kc);
    cr_expect_eq(s.workspace, (16u * 256u + 6u * 256u) * 8u); /* A's 16 rows, B's 6 columns */
    s = clgemm__plan_schedule(&cc, &avx512, &unset, Z, Z, 64, 8192, 8192, 1, false);
    cr_expect_eq(s.pack_kc, 128, "complex FP64, two panels of A: %d", s.pack_kc);
    s = clgemm__plan_schedule(&cc, &avx512, &unset, C, C, 64, 64, 64, 3, false);
    cr_expect_eq(s.pack_kc, 0, "a complex batch");
    /* Other tiers never; the forcing setting both ways. */
    s = clgemm__plan_schedule(&c, &avx512, &never, S, S, 2048, 2048, 2048, 1, false);
    cr_expect_eq(s.pack_kc, 0);
    s = clgemm__plan_schedule(&c, &avx512, &kc5, S, S, 7, 13, 19, 1, false);
    cr_expect_eq(s.pack_kc, 5);
    cr_expect_eq(s.pack_mc, 7u);
    s = clgemm__plan_schedule(&c, &avx512, &kc5, S, S, 300, 13, 19, 1, false);
    cr_expect_eq(s.pack_mc, 7u * 32u, "forced: blocks of 7 panels of A");
    cr_expect_eq(s.workspace, (7u * 32u * 5u + 16u * 5u) * 4u);
    device_info h200 = h200_device();
    s = clgemm__plan_schedule(&c, &h200, &unset, S, S, 2048, 2048, 2048, 1, false);
    cr_expect_eq(s.pack_kc, 0, "not on a GPU");
}

/* Whether a CPU call is blocked depends on its operands' layout (column-major terms): an op(A)
 * along K (read in place, every work-item copies its rows) blocks FP32 and FP64 from 128^3 on
 * every CPU. Otherwise, on an Intel CPU FP64 is blocked from 512^3 (its power-of-two leading
 * dimensions put a panel of A read in place in a few L1 sets), FP32 from 512^3 where op(B) lies
 * along K and from 320^3 where it lies along N (its 32 x 6 blocks read in place), BF16 from 256^3,
 * and a narrow C's op(A) is packed in launches of 16 MB; an AMD one (PoCL's vendor string
 * AuthenticAMD) keeps 1024^3 for the three and 2 MB. The defaults follow: the in-place blocks where
 * the call reads in place. */
Test(schedule_plan, intel_blocks_by_size_and_layout) {
    device_info intel = cpu(), amd = cpu();
    strcpy(intel.name, "pthread-skylake-avx512-Intel(R) Xeon(R) Processor");
    strcpy(intel.vendor, "GenuineIntel");
    strcpy(amd.name, "pthread-skylake-avx512-AMD EPYC");
    strcpy(amd.vendor, "AuthenticAMD");
    const schedule_force unset = {0, -1, -1, 0, 0};
    const clgemm_config d = microkernel(32, 8, 8), s32 = microkernel(32, 12, 16);
    enum { NN, A_K, B_N }; /* op(A) along M and op(B) along K; op(A) along K; op(B) along N */
    const struct {
        const device_info *info;
        clgemm_precision type;
        size_t n;
        int layout, want;
    } cases[] = {{&intel, D, 512, NN, 256},
                 {&intel, D, 511, NN, 0},
                 {&intel, D, 128, A_K, 128},
                 {&intel, D, 127, A_K, 0},
                 {&intel, S, 511, NN, 0},
                 {&intel, S, 512, NN, 512},
                 {&intel, S, 319, B_N, 0},
                 {&intel, S, 320, B_N, 320},
                 {&intel, S, 128, A_K, 128},
                 {&intel, S, 127, A_K, 0},
                 {&intel, S, 1024, NN, 512},
                 {&amd, D, 512, NN, 0},
                 {&amd, D, 1024, NN, 256},
                 {&amd, S, 512, NN, 0},
                 {&amd, S, 512, A_K, 512},
                 {&amd, D, 128, A_K, 128},
                 {&amd, S, 512, B_N, 0},
                 {&intel, CLGEMM_BFLOAT16, 256, NN, 256},
                 {&intel, CLGEMM_BFLOAT16, 255, NN, 0},
                 {&amd, CLGEMM_BFLOAT16, 512, NN, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const size_t n = cases[i].n;
        const gemm_dims dims = {n, n, n, 1, false, cases[i].layout == A_K, cases[i].layout == B_N};
        gemm_schedule s =
            clgemm__plan_schedule_dims(cases[i].type == D ? &d : &s32, cases[i].info, &unset,
                                       cases[i].type, cases[i].type, &dims, false);
        cr_expect_eq(s.pack_kc, cases[i].want, "%s %s %zu^3, layout %d: %d", cases[i].info->vendor,
                     clgemm__type(cases[i].type)->name, n, cases[i].layout, s.pack_kc);
    }
    /* FP32 on the Intel CPU: 32 x 6 read in place, 32 x 12 (1024 steps, 4 panels) blocked. */
    const clgemm_config s32x6 = microkernel(32, 6, 16),
                        s32x12 = {.family = CLGEMM_FAMILY_MICROKERNEL,
                                  .params = {32, 12, 16, 1024, 4}};
    const struct {
        size_t n;
        int layout;
        const clgemm_config *want;
    } lists[] = {{256, NN, &s32x6},   {480, NN, &s32x6},  {512, NN, &s32x12},
                 {256, A_K, &s32x12}, {256, B_N, &s32x6}, {384, B_N, &s32x12}};
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) {
        const size_t n = lists[i].n;
        const gemm_dims dims = {n, n, n, 1, false, lists[i].layout == A_K, lists[i].layout == B_N};
        clgemm_config got =
            clgemm__config_default_for_dims(&intel, S, CLGEMM_COMPUTE_DEFAULT, &dims);
        char text[256];
        clgemm_config_string(&got, text, sizeof text);
        cr_expect(clgemm__config_equal(&got, lists[i].want), "Intel FP32 %zu^3, layout %d: %s", n,
                  lists[i].layout, text);
    }
    /* A C a few columns wide packs op(A) about 16 MB a launch there (2 MB on the AMD CPU): FP64
     * 8192 x 64 x 8192 in 16 x 14 blocks of 512 steps, 256 panels of 64 KB (32 on the AMD one). */
    const clgemm_config d16 = {.family = CLGEMM_FAMILY_MICROKERNEL, .params = {16, 14, 8, 512, 8}};
    gemm_schedule s = clgemm__plan_schedule(&d16, &intel, &unset, D, D, 8192, 64, 8192, 1, false);
    cr_expect(s.pack_kc == 512 && s.pack_mc == 4096u, "Intel: %d steps, %zu rows", s.pack_kc,
              s.pack_mc);
    s = clgemm__plan_schedule(&d16, &amd, &unset, D, D, 8192, 64, 8192, 1, false);
    cr_expect(s.pack_kc == 512 && s.pack_mc == 512u, "AMD: %d steps, %zu rows", s.pack_kc,
              s.pack_mc);
}

/* FP16 (its panels widened to FP32, where read in place every element is widened at every use)
 * and INT8 (FP32 panels against 32-bit integer multiplies in place) are blocked from 256^3, FP16
 * with FP16 or FP32 C; BF16 and FP32 from 1024^3; a C at most two panels of A tall still reads
 * in place. */
Test(schedule_plan, blocked_fp16_and_int8_from_256) {
    device_info amd = cpu();
    strcpy(amd.name, "pthread-skylake-avx512-AMD EPYC");
    strcpy(amd.vendor, "AuthenticAMD");
    const schedule_force unset = {0, -1, -1, 0, 0};
    const clgemm_config c = microkernel(32, 8, 16);
    const clgemm_precision H = CLGEMM_HALF, B = CLGEMM_BFLOAT16, I8 = CLGEMM_INT8,
                           I32 = CLGEMM_INT32;
    const struct {
        clgemm_precision type, type_c;
        size_t m, n, k;
        int want; /* K-blocks' depth: all of a K under 512 steps */
    } cases[] = {
        {H, H, 256, 256, 256, 256},    {H, S, 256, 256, 256, 256},   {H, H, 255, 256, 256, 0},
        {H, H, 64, 4096, 256, 0},      {H, H, 512, 512, 512, 512},   {B, B, 512, 512, 512, 0},
        {B, S, 1024, 1024, 1024, 512}, {S, S, 512, 512, 512, 0},     {I8, I32, 256, 256, 256, 256},
        {I8, I32, 255, 256, 256, 0},   {I8, I32, 512, 512, 512, 512}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gemm_schedule s = clgemm__plan_schedule(&c, &amd, &unset, cases[i].type, cases[i].type_c,
                                                cases[i].m, cases[i].n, cases[i].k, 1, false);
        cr_expect_eq(s.pack_kc, cases[i].want, "%s %zu x %zu x %zu: %d",
                     clgemm__type(cases[i].type)->name, cases[i].m, cases[i].n, cases[i].k,
                     s.pack_kc);
    }
}

/* A configuration's KC is the K-blocks' depth (1: the default's); whether a call is blocked,
 * and CLGEMM_PACK_KC's forcing, stay as they were. */
Test(schedule_plan, blocked_block_sizes) {
    device_info avx512 = cpu();
    strcpy(avx512.name, "pthread-skylake-avx512");
    const schedule_force unset = {0, -1, -1, 0, 0}, kc5 = {0, -1, -1, 5, 0};
    const clgemm_config c = microkernel(32, 8, 8);
    const struct {
        clgemm_precision type;
        int kc, want;
    } depth[] = {{D, 128, 128}, {D, 1, 256}, {D, 0, 256},  {S, 1024, 1024},
                 {S, 1, 512},   {S, 64, 64}, {D, 384, 384}};
    for (size_t i = 0; i < sizeof depth / sizeof depth[0]; i++) {
        clgemm_config k = blocked(c, depth[i].kc, 16);
        gemm_schedule s = clgemm__plan_schedule(&k, &avx512, &unset, depth[i].type, depth[i].type,
                                                4096, 4096, 4096, 1, false);
        cr_expect_eq(s.pack_kc, depth[i].want, "%s KC %d: %d", clgemm__type(depth[i].type)->name,
                     depth[i].kc, s.pack_kc);
        size_t size = clgemm__type(depth[i].type)->size, kc = (size_t)depth[i].want;
        /* All 4096 rows of op(A) at once (op(B)'s K-block is past 2 MB, or 2 MB of A covers
         * all of it), and all of op(B). */
        cr_expect_eq(s.pack_mc, 4096u, "KC %zu: %zu rows of A", kc, s.pack_mc);
        cr_expect_eq(s.workspace, 2u * 4096u * kc * size);
    }
    /* 256 x 256 x 16384 FP64: blocked, in K-blocks of the configuration's depth. */
    clgemm_config k = blocked(c, 512, 0);
    gemm_schedule s = clgemm__plan_schedule(&k, &avx512, &unset, D, D, 256, 256, 16384, 1, false);
    cr_expect_eq(s.pack_kc, 512);
    /* Below 1024^3, or C two panels tall: not blocked, whatever KC says. */
    s = clgemm__plan_schedule(&k, &avx512, &unset, D, D, 1000, 1000, 1000, 1, false);
    cr_expect_eq(s.pack_kc, 0);
    s = clgemm__plan_schedule(&k, &avx512, &unset, D, D, 64, 8192, 8192, 1, false);
    cr_expect_eq(s.pack_kc, 0);
    /* Complex: blocked at every size, in the configuration's K-blocks. */
    k = blocked(microkernel(8, 4, 4), 64, 0);
    s = clgemm__plan_schedule(&k, &avx512, &unset, CLGEMM_COMPLEX_DOUBLE, CLGEMM_COMPLEX_DOUBLE, 7,
                              5, 300, 1, false);
    cr_expect_eq(s.pack_kc, 64);
    /* CLGEMM_PACK_KC wins over the configuration. */
    s = clgemm__plan_schedule(&k, &avx512, &kc5, D, D, 4096, 4096, 4096, 1, false);
    cr_expect_eq(s.pack_kc, 5);
}

/* ---- The patched-PTX step (ptx_patch.c) and the wgmma family's guard ------------------------ */
#include "build/ptx_patch.h"
#include "tensor_core_candidates.h"

static const char ptx_ok[] = ".version 8.0\n.target sm_90, texmode_independent\n"
                             ".address_size 64\n.entry k(\n.param .u64 k_0\n)\n{\n"
                             "// @wgmma.fence.sync.aligned;\nmov.u32 %r1, 0;\n"
                             "// @fence.proxy.async.shared::cta;\n"
                             "// an ordinary comment\nret;\n}\n";

Test(ptx_patch, rewrites_the_target_and_every_marker) {
    char *out;
    int markers;
    cr_assert_eq(clgemm__ptx_patch(ptx_ok, 0, &out, &markers), PTX_PATCH_OK);
    cr_expect_eq(markers, 2);
    cr_expect(strstr(out, ".target sm_90a, texmode_independent") != NULL, "%s", out);
    cr_expect(strstr(out, "// @") == NULL, "markers left: %s", out);
    cr_expect(strstr(out, "\nwgmma.fence.sync.aligned;\n") != NULL, "%s", out);
    cr_expect(strstr(out, "\nfence.proxy.async.shared::cta;\n") != NULL, "%s", out);
    cr_expect(strstr(out, "// an ordinary comment") != NULL, "%s", out);
    cr_expect(strstr(out, ".maxnreg") == NULL, "no cap was asked for: %s", out);
    /* Everything else is the same text. */
    cr_expect_eq(strlen(out), strlen(ptx_ok) + 1 - 2 * 4, "%s", out);
    char *again;
    cr_expect_eq(clgemm__ptx_patch(out, 0, &again, &markers), PTX_PATCH_ALREADY_SM90A);
    cr_expect_null(again);
    free(out);
}

Test(ptx_patch, adds_a_register_cap_to_every_entry) {
    static const char two[] = ".target sm_90\n.entry a(\n.param .u32 x\n)\n{\n// @setmaxnreg.inc"
                              ".sync.aligned.u32 240;\nret;\n}\n.entry b()\n{\nret;\n}\n";
    char *out;
    int markers;
    cr_assert_eq(clgemm__ptx_patch(two, 168, &out, &markers), PTX_PATCH_OK);
    cr_expect(strstr(out, ".entry a(\n.param .u32 x\n)\n.maxnreg 168\n{") != NULL, "%s", out);
    cr_expect(strstr(out, ".entry b()\n.maxnreg 168\n{") != NULL, "%s", out);
    cr_expect(strstr(out, "\nsetmaxnreg.inc.sync.aligned.u32 240;") != NULL, "%s", out);
    free(out);
    /* An entry that already has a cap is not ours to change. */
    static const char capped[] = ".target sm_90\n.entry a()\n.maxnreg 64\n{\n// @wgmma.fence"
                                 ".sync.aligned;\n}\n";
    cr_expect_eq(clgemm__ptx_patch(capped, 168, &out, &markers), PTX_PATCH_ENTRY_SYNTAX);
    cr_expect_eq(clgemm__ptx_patch(capped, 0, &out, &markers), PTX_PATCH_OK);
    free(out);
}

/* The cap from the stated threads (the tma family's need): an SM of compute capability 9.0 deals
 * a work-group's warps over four schedulers with 16,384 registers each. Only a kernel that moves
 * registers with setmaxnreg gets it; one that states no `.reqntid` cannot. */
Test(ptx_patch, a_cap_from_the_stated_threads) {
    const long threads[] = {0, 32, 160, 256, 288, 384, 544, 640, 1024};
    const int caps[] = {0, 255, 255, 255, 168, 168, 96, 96, 64};
    for (size_t i = 0; i < sizeof threads / sizeof *threads; i++)
        cr_expect_eq(clgemm__ptx_register_cap(threads[i]), caps[i], "%ld threads", threads[i]);
    static const char moves[] =
        ".target sm_90\n.entry a(\n.param .u32 x\n)\n.reqntid 384, 1, 1\n{\n"
        "// @setmaxnreg.dec.sync.aligned.u32 40;\nret;\n}\n";
    char *out;
    int markers;
    cr_assert_eq(clgemm__ptx_patch(moves, CLGEMM_PTX_CAP_FROM_THREADS, &out, &markers),
                 PTX_PATCH_OK);
    cr_expect(strstr(out, ")\n.maxnreg 168\n.reqntid 384, 1, 1\n{") != NULL, "%s", out);
    free(out);
    static const char stays[] = ".target sm_90\n.entry a()\n.reqntid 288, 1, 1\n{\n"
                                "// @wgmma.fence.sync.aligned;\nret;\n}\n";
    cr_assert_eq(clgemm__ptx_patch(stays, CLGEMM_PTX_CAP_FROM_THREADS, &out, &markers),
                 PTX_PATCH_OK);
    cr_expect(strstr(out, ".maxnreg") == NULL, "no setmaxnreg, no cap: %s", out);
    free(out);
    static const char unstated[] = ".target sm_90\n.entry a()\n{\n"
                                   "// @setmaxnreg.inc.sync.aligned.u32 232;\nret;\n}\n";
    cr_expect_eq(clgemm__ptx_patch(unstated, CLGEMM_PTX_CAP_FROM_THREADS, &out, &markers),
                 PTX_PATCH_ENTRY_SYNTAX);
    cr_expect_null(out);
}

/* Every marker in every kernel source that asks for the patch is one the patch accepts: the
 * offline compile check removes markers blindly, so only this catches a new instruction written
 * behind one (cl/tma.cl's mbarrier and bulk-copy lines once built offline and were refused on
 * the H200). */
Test(ptx_patch, knows_every_marker_the_kernels_write) {
    static const char *const files[] = {"wgmma.cl", "tma.cl"};
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
        cr_assert_not_null(clgemm__ptx_patch_need(files[f]), "%s", files[f]);
        char *src = clgemm__kernel_source(files[f]);
        cr_assert(src, "%s", files[f]);
        int seen = 0;
        for (const char *p = src; (p = strstr(p, CLGEMM_PTX_MARKER)); p += 4) {
            if (p[4] == '"') continue; /* the marker named in a comment */
            const char *end = strpbrk(p + 4, " ;\\\"\n");
            int len = end ? (int)(end - p - 4) : (int)strlen(p + 4);
            cr_expect(clgemm__ptx_marker_known(p + 4), "%s: `%.*s` behind a marker", files[f], len,
                      p + 4);
            seen++;
        }
        cr_expect_gt(seen, 0, "%s has no markers", files[f]);
        free(src);
    }
}

Test(ptx_patch, refuses_what_it_does_not_expect) {
    const struct {
        const char *ptx;
        ptx_patch_result want;
    } cases[] = {
        {".version 8.0\n.address_size 64\n// @wgmma.fence.sync.aligned;\n", PTX_PATCH_NO_TARGET},
        {".target sm_80\n// @wgmma.fence.sync.aligned;\n", PTX_PATCH_NO_TARGET},
        {".target sm_900\n// @wgmma.fence.sync.aligned;\n", PTX_PATCH_NO_TARGET},
        {".target sm_90\n.target sm_90\n// @wgmma.fence.sync.aligned;\n", PTX_PATCH_NO_TARGET},
        {".target sm_90a\n// @wgmma.fence.sync.aligned;\n", PTX_PATCH_ALREADY_SM90A},
        {".target sm_90\nmov.u32 %r1, 0;\n", PTX_PATCH_NO_MARKERS},
        {".target sm_90\n// @wgmma.fence.sync.aligned;\n// @mov.u32 %r1, 0;\n",
         PTX_PATCH_UNKNOWN_MARKER},
        {"", PTX_PATCH_NO_TARGET},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *out = (char *)1;
        int markers = -1;
        cr_expect_eq(clgemm__ptx_patch(cases[i].ptx, 0, &out, &markers), cases[i].want,
                     "case %zu: %s", i, cases[i].ptx);
        cr_expect_null(out, "case %zu", i);
        cr_expect_eq(markers, 0, "case %zu", i);
        cr_expect_neq(strcmp(clgemm__ptx_patch_string(cases[i].want), "unknown result"), 0);
    }
    /* A cap asked for on an entry whose parameter list never closes. */
    char *out;
    int markers;
    cr_expect_eq(clgemm__ptx_patch(".target sm_90\n.entry a(\n{\n// @wgmma.fence.sync.aligned;\n",
                                   64, &out, &markers),
                 PTX_PATCH_ENTRY_SYNTAX);
}

/* cl/ptx.cl stands between common.cl and each tensor-core kernel, and only there: the other
 * kernels' sources are types.cl, gemm_args.h, common.cl and their own file. gemm_args.h (the
 * GEMM argument list) comes before common.cl, whose GEMM_ARGS expands it. */
Test(kernel_source, the_tensor_core_families_get_ptx_cl_and_only_they) {
    for (const family_desc *const *f = clgemm__families; *f; f++) {
        /* (tma_simt and tma_fp64 build tma.cl too) */
        bool tensor = (*f)->id == CLGEMM_FAMILY_MMA || (*f)->id == CLGEMM_FAMILY_WGMMA ||
                      (*f)->id == CLGEMM_FAMILY_TMA || (*f)->id == CLGEMM_FAMILY_TMA_SIMT ||
                      (*f)->id == CLGEMM_FAMILY_TMA_FP64;
        cr_expect_eq(clgemm__kernel_parts((*f)->file) != NULL, tensor, "%s", (*f)->name);
        char *src = clgemm__kernel_source((*f)->file);
        cr_assert_not_null(src, "%s", (*f)->name);
        char head[64];
        snprintf(head, sizeof head, "/* %s:", (*f)->file);
        const char *common = strstr(src, "/* common.cl:"), *ptx = strstr(src, "/* ptx.cl:");
        const char *own = strstr(src, head), *args = strstr(src, "/* gemm_args.h:");
        cr_expect(args && common && args < common, "%s", (*f)->name);
        cr_expect_eq(ptx != NULL, tensor, "%s", (*f)->name);
        cr_expect(common && own && common < own, "%s", (*f)->name);
        if (ptx) cr_expect(common < ptx && ptx < own, "%s", (*f)->name);
        free(src);
    }
    cr_expect_null(clgemm__kernel_parts("no-such.cl"));
}

Test(ptx_patch, only_the_hopper_families_ask_and_the_cache_key_says_so) {
    for (const family_desc *const *f = clgemm__families; *f; f++)
        cr_expect_eq(clgemm__ptx_patch_need((*f)->file) != NULL,
                     (*f)->id == CLGEMM_FAMILY_WGMMA || (*f)->id == CLGEMM_FAMILY_TMA ||
                         (*f)->id == CLGEMM_FAMILY_TMA_SIMT || (*f)->id == CLGEMM_FAMILY_TMA_FP64,
                     "%s", (*f)->name);
    cr_expect_null(clgemm__ptx_patch_need("no-such.cl"));
    device_info h200 = fake_device(1024, 1024, 1024, 49152, true);
    char *a = clgemm__program_key(&h200, "wgmma.cl", "src", "-DX=1");
    char *b = clgemm__program_key(&h200, "mma.cl", "src", "-DX=1");
    cr_assert(a && b);
    cr_expect(strstr(a, "sm_90a patch") != NULL && strstr(b, "sm_90a patch") == NULL);
    cr_expect_neq(strcmp(a, b), 0, "a patched program shares an unpatched one's cache entry");
    free(a);
    free(b);
}

/* wgmma only where the device is compute capability 9.0 AND its driver ran the patched-PTX probe
 * (elsewhere a forced configuration is refused and it is never planned); the defaults of its
 * types are the mma.sync family's on every device (measured faster on the H200), and where the
 * probe failed the same types plan on mma.sync too. */
Test(wgmma_guard, legal_only_where_the_patched_build_works) {
    device_info h200 = h200_device();
    h200.nv_sm90a = true;
    device_info failed = h200;
    failed.nv_sm90a = false;
    device_info ada = h200;
    ada.nv_compute_capability = 89;
    device_info blackwell = h200;
    blackwell.nv_compute_capability = 100;
    const struct {
        clgemm_precision type;
        clgemm_compute compute;
        bool wgmma;
    } cases[] = {
        {CLGEMM_HALF, CLGEMM_COMPUTE_DEFAULT, true},
        {CLGEMM_BFLOAT16, CLGEMM_COMPUTE_DEFAULT, true},
        {CLGEMM_SINGLE, CLGEMM_COMPUTE_TF32, true},
        {CLGEMM_SINGLE, CLGEMM_COMPUTE_FP32_3XTF32, false},
        {CLGEMM_SINGLE, CLGEMM_COMPUTE_DEFAULT, false},
        {CLGEMM_DOUBLE, CLGEMM_COMPUTE_DEFAULT, false},
        {CLGEMM_COMPLEX_SINGLE, CLGEMM_COMPUTE_DEFAULT, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        clgemm_config c =
            clgemm__config_default_for(&h200, cases[i].type, cases[i].compute, 8192, 8192, 8192, 1);
        cr_expect_neq(c.family, CLGEMM_FAMILY_WGMMA, "type %d compute %d: %s", cases[i].type,
                      cases[i].compute, describe(&c));
        cr_expect_eq(clgemm__config_check(&c, &h200, cases[i].type), OK, "%s", describe(&c));
        clgemm_config legal = {
            .family = CLGEMM_FAMILY_WGMMA,
            .params = {128, 256, cases[i].type == CLGEMM_SINGLE ? 8 : 16, 64, 256, 4}};
        cr_expect_eq(clgemm__config_supports(&legal, &h200, cases[i].type, cases[i].compute) &&
                         clgemm__config_check(&legal, &h200, cases[i].type) == OK,
                     cases[i].wgmma, "type %d compute %d: forced %s", cases[i].type,
                     cases[i].compute, describe(&legal));
        const device_info *others[] = {&failed, &ada, &blackwell};
        for (int d = 0; d < 3; d++) {
            clgemm_config o = clgemm__config_default_for(others[d], cases[i].type, cases[i].compute,
                                                         8192, 8192, 8192, 1);
            cr_expect_neq(o.family, CLGEMM_FAMILY_WGMMA, "device %d type %d", d, cases[i].type);
            if (cases[i].wgmma && d == 0) /* the fallback: the mma.sync family */
                cr_expect_eq(o.family, CLGEMM_FAMILY_MMA, "type %d: %s", cases[i].type,
                             describe(&o));
            clgemm_config forced = {.family = CLGEMM_FAMILY_WGMMA,
                                    .params = {128, 256, 16, 64, 256, 4}};
            cr_expect_neq(clgemm__config_check(&forced, others[d], CLGEMM_HALF), OK,
                          "device %d accepts a forced wgmma config", d);
        }
    }
}

/* A failed patched build on a real device: the probe without inline PTX builds anywhere, but
 * PoCL's binary is no PTX, so the patch step refuses it; the probe says no, its log shows both
 * stages, and (wgmma_guard::chosen_only_where_the_patched_build_works) a device whose probe
 * said no plans these types on the mma.sync family. */
Test(wgmma_guard, the_probe_fails_cleanly_off_nvidia) {
    cl_platform_id platform;
    cl_device_id device;
    cl_uint n = 0;
    if (clGetPlatformIDs(1, &platform, &n) != CL_SUCCESS || n == 0 ||
        clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL) != CL_SUCCESS)
        cr_skip_test("no OpenCL device");
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    cr_assert_eq(err, CL_SUCCESS);
    device_info info;
    cr_assert_eq(clgemm__device_query(device, &info), CLGEMM_SUCCESS);
    if (info.cls == DEVICE_NVIDIA_GPU) cr_skip_test("an NVIDIA device: the probe may succeed");
    char *log = NULL;
    cr_expect_not(clgemm__sm90a_probe(ctx, device, false, &log));
    cr_expect(log && strstr(log, "sm_90a patch refused"), "log: %s", log ? log : "(none)");
    free(log);
    cr_expect_not(clgemm__sm90a_usable(ctx, device, &info), "the guard builds nothing here");
    clReleaseContext(ctx);
}

/* test_tensor_cores.c runs every candidate of the tensor-core families: its copy of their lists
 * is theirs. */
Test(wgmma_guard, the_device_suite_runs_every_candidate) {
    const clgemm_family fams[] = {CLGEMM_FAMILY_TMA, CLGEMM_FAMILY_TMA_SIMT, CLGEMM_FAMILY_TMA_FP64,
                                  CLGEMM_FAMILY_WGMMA, CLGEMM_FAMILY_MMA};
    for (int f = 0; f < 5; f++) {
        const family_desc *d = clgemm__family(fams[f]);
        size_t at = 0;
        for (size_t i = 0; i < sizeof tc_candidates / sizeof tc_candidates[0]; i++) {
            if (tc_candidates[i].family != fams[f]) continue;
            cr_assert(d->quick[at].family, "%s: extra candidate %zu", d->name, at);
            for (int p = 0; p < d->num_params; p++)
                cr_expect_eq(d->quick[at].params[d->params[p].slot], tc_candidates[i].v[p],
                             "%s candidate %zu %s", d->name, at, d->params[p].name);
            at++;
        }
        cr_expect_eq(d->quick[at].family, 0, "%s: candidate %zu missing from the suite", d->name,
                     at);
    }
}
