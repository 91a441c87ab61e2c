/* tune_model.h: the tuner's cost model (tune_model.c), which orders and prunes candidates
 * before anything is compiled. */
#ifndef CLGEMM_TUNE_MODEL_H
#define CLGEMM_TUNE_MODEL_H

#include "families/family.h"

/* A candidate's predicted time for an m x n x k call, relative to other candidates of the same
 * call (lower is better; only ratios mean anything). */
double clgemm__tune_score(const clgemm_config *c, const device_info *info,
                          clgemm_precision precision, size_t m, size_t n, size_t k);

/* Sorts order[0..count) (indices into items) by predicted time, stable, so the order it came
 * in breaks ties, and moves the candidates the model rules out to the end. Returns how many
 * are kept (the prefix of order). */
size_t clgemm__tune_model_order(const clgemm_config *items, size_t *order, size_t count,
                                const device_info *info, clgemm_precision precision, size_t m,
                                size_t n, size_t k);

#endif /* CLGEMM_TUNE_MODEL_H */
