/* force_config.c: the benches' --force FAMILY[:P=V,...]: one family's configuration for every
 * element type it is legal for on the handle's device ("auto": the library's choice again), so
 * that two families compare in one run. */
#include "force_config.h"

#include <stdio.h>
#include <string.h>

int bench_force(clgemm_handle h, const char *spec, const char *tool) {
    char family[32];
    size_t len = strcspn(spec, ":");
    if (len == 0 || len >= sizeof family) {
        fprintf(stderr, "%s: bad --force %s (FAMILY[:P=V,...])\n", tool, spec);
        return -1;
    }
    memcpy(family, spec, len);
    family[len] = 0;
    clgemm_config c;
    clgemm_family f = clgemm_family_from_name(family);
    if (strcmp(family, "auto") == 0) {
        for (int t = 0; t < CLGEMM_PRECISION_COUNT; t++)
            clgemm_set_config(h, (clgemm_precision)t, NULL);
        return 0;
    }
    if (f == CLGEMM_FAMILY_AUTO || clgemm_config_init(&c, f) != CLGEMM_SUCCESS) {
        fprintf(stderr, "%s: unknown family %s\n", tool, family);
        return -1;
    }
    for (const char *p = spec[len] ? spec + len + 1 : spec + len; *p;) {
        char pname[32];
        int value, used;
        if (sscanf(p, "%31[^=]=%d%n", pname, &value, &used) != 2 ||
            clgemm_config_set(&c, pname, value) != CLGEMM_SUCCESS) {
            fprintf(stderr, "%s: bad parameter in --force %s\n", tool, spec);
            return -1;
        }
        p += used;
        if (*p == ',') p++;
    }
    int taken = 0;
    for (int t = 0; t < CLGEMM_PRECISION_COUNT; t++)
        taken += clgemm_set_config(h, (clgemm_precision)t, &c) == CLGEMM_SUCCESS;
    if (!taken) {
        fprintf(stderr, "%s: --force %s is legal for no type on this device\n", tool, spec);
        return -1;
    }
    return 0;
}
