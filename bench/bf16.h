/* bf16.h: BF16 elements for the benches' inputs and checks (clgemm-bench's runners.c,
 * batched.c): the nearest BF16 of a float (ties to even; the benches' inputs lie in [-1, 1], so
 * no overflow and no NaN), and back. */
#ifndef CLGEMM_BENCH_BF16_H
#define CLGEMM_BENCH_BF16_H

#include <stdint.h>
#include <string.h>

static inline uint16_t bench_bf16_from_float(float x) {
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return (uint16_t)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

static inline float bench_bf16_to_float(uint16_t h) {
    uint32_t u = (uint32_t)h << 16;
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

#endif /* CLGEMM_BENCH_BF16_H */
