/* tuning_db.c: PLACEHOLDER until the tuning-database module lands (owned by the tuner work). */
#include "internal.h"
#include <stdlib.h>
clgemm_status clgemm__tuning_load(const char *path, const device_info *info, tuning_table **table) {
    *table = NULL;
    return CLGEMM_SUCCESS;
}
bool clgemm__tuning_lookup(const tuning_table *table, clgemm_precision precision, size_t m,
                           size_t n, size_t k, clgemm_config *config) {
    return false;
}
void clgemm__tuning_free(tuning_table *table) {}
