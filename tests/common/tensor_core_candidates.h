/* tensor_core_candidates.h: the tensor-core families' --quick candidates (what the tuner may
 * pick for them), as parameter values in each family's parameter order. The descriptors' lists
 * are the truth: test_unit checks that this copy equals them, and test_tensor_cores runs every
 * entry on the device. */
#ifndef CLGEMM_TEST_TENSOR_CORE_CANDIDATES_H
#define CLGEMM_TEST_TENSOR_CORE_CANDIDATES_H
#include <clgemm.h>

static const struct {
    clgemm_family family;
    int v[7];
} tc_candidates[] = {
    {CLGEMM_FAMILY_TMA, {128, 256, 64, 4}},
    {CLGEMM_FAMILY_TMA, {256, 128, 64, 4}},
    {CLGEMM_FAMILY_TMA, {128, 128, 64, 6}},
    {CLGEMM_FAMILY_TMA, {64, 256, 64, 5}},
    {CLGEMM_FAMILY_TMA, {128, 64, 64, 8}},
    {CLGEMM_FAMILY_TMA, {64, 64, 64, 8}},
    {CLGEMM_FAMILY_TMA, {128, 256, 32, 4}},
    {CLGEMM_FAMILY_TMA, {256, 128, 32, 4}},
    {CLGEMM_FAMILY_TMA, {128, 128, 32, 6}},
    {CLGEMM_FAMILY_TMA, {64, 256, 32, 5}},
    {CLGEMM_FAMILY_TMA, {128, 64, 32, 8}},
    {CLGEMM_FAMILY_TMA, {128, 256, 128, 4}},
    {CLGEMM_FAMILY_TMA, {256, 128, 128, 4}},
    {CLGEMM_FAMILY_TMA, {128, 128, 128, 6}},
    {CLGEMM_FAMILY_TMA, {64, 256, 128, 5}},
    {CLGEMM_FAMILY_TMA, {128, 64, 128, 8}},
    {CLGEMM_FAMILY_TMA, {128, 256, 64, 4, 2}},
    {CLGEMM_FAMILY_TMA, {128, 128, 64, 3, 2}},
    {CLGEMM_FAMILY_TMA, {128, 256, 32, 4, 2}},
    {CLGEMM_FAMILY_TMA, {128, 128, 32, 3, 2}},
    {CLGEMM_FAMILY_TMA, {128, 256, 128, 4, 2}},
    {CLGEMM_FAMILY_TMA, {128, 128, 128, 3, 2}},
    {CLGEMM_FAMILY_TMA, {128, 256, 64, 4, 2, 2}},
    {CLGEMM_FAMILY_TMA, {128, 128, 64, 3, 2, 2}},
    {CLGEMM_FAMILY_TMA, {128, 128, 64, 4, 2, 2}},
    {CLGEMM_FAMILY_TMA, {128, 256, 32, 4, 2, 2}},
    {CLGEMM_FAMILY_TMA, {128, 128, 128, 3, 2, 2}},
    {CLGEMM_FAMILY_TMA, {128, 64, 64, 8, 0, 2}},
    {CLGEMM_FAMILY_TMA, {256, 128, 64, 4, 0, 2}},
    {CLGEMM_FAMILY_TMA, {128, 128, 64, 6, 0, 2}},
    {CLGEMM_FAMILY_TMA, {128, 256, 32, 4, 0, 2}},
    {CLGEMM_FAMILY_TMA, {128, 128, 32, 6, 0, 2}},
    {CLGEMM_FAMILY_TMA, {128, 256, 128, 4, 0, 2}},
    {CLGEMM_FAMILY_TMA, {128, 256, 32, 4, 0, 0, 2}},
    {CLGEMM_FAMILY_TMA, {128, 256, 32, 4, 0, 2, 2}},
    {CLGEMM_FAMILY_TMA, {128, 256, 64, 4, 2, 2, 2}},
    {CLGEMM_FAMILY_TMA_SIMT, {128, 128, 32, 4}},
    {CLGEMM_FAMILY_TMA_SIMT, {128, 128, 32, 6}},
    {CLGEMM_FAMILY_TMA_SIMT, {128, 64, 32, 6}},
    {CLGEMM_FAMILY_TMA_SIMT, {64, 128, 32, 6}},
    {CLGEMM_FAMILY_TMA_SIMT, {128, 128, 32, 4, 2}},
    {CLGEMM_FAMILY_TMA_SIMT, {128, 256, 32, 4, 0, 0, 2}},
    {CLGEMM_FAMILY_TMA_SIMT, {128, 256, 32, 3, 2, 0, 2}},
    {CLGEMM_FAMILY_WGMMA, {128, 256, 16, 64, 256, 4}},
    {CLGEMM_FAMILY_WGMMA, {256, 128, 16, 128, 128, 4}},
    {CLGEMM_FAMILY_WGMMA, {128, 128, 16, 64, 128, 6}},
    {CLGEMM_FAMILY_WGMMA, {128, 128, 32, 64, 128, 3}},
    {CLGEMM_FAMILY_WGMMA, {64, 128, 32, 64, 128, 4}},
    {CLGEMM_FAMILY_WGMMA, {128, 256, 8, 64, 256, 4}},
    {CLGEMM_FAMILY_WGMMA, {128, 128, 8, 64, 128, 6}},
    {CLGEMM_FAMILY_MMA, {128, 128, 32, 64, 64, 3}},
    {CLGEMM_FAMILY_MMA, {128, 128, 16, 64, 64, 3}},
    {CLGEMM_FAMILY_MMA, {128, 64, 16, 64, 32, 2}},
    {CLGEMM_FAMILY_MMA, {64, 64, 32, 32, 32, 3}},
    {CLGEMM_FAMILY_MMA, {64, 64, 16, 32, 32, 2}},
    {CLGEMM_FAMILY_MMA, {128, 128, 64, 64, 32, 3}},
    {CLGEMM_FAMILY_MMA, {64, 64, 64, 32, 32, 3}},
};
#endif
