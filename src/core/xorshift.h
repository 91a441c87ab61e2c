/* xorshift.h: the project's one pseudo-random generator (xorshift64*), header-only so the
 * library, the tests and the benches share it: reproducible on every platform, unlike rand().
 * A zero state (which xorshift never leaves) is replaced by a fixed seed. */
#ifndef CLGEMM_XORSHIFT_H
#define CLGEMM_XORSHIFT_H

#include <stdint.h>

static inline uint64_t clgemm_xorshift64s(uint64_t *state) {
    uint64_t x = *state ? *state : UINT64_C(0x9e3779b97f4a7c15);
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * UINT64_C(2685821657736338717);
}

#endif /* CLGEMM_XORSHIFT_H */
