/* force_config.h: the benches' --force FAMILY[:P=V,...] (force_config.c). */
#ifndef CLGEMM_BENCH_FORCE_CONFIG_H
#define CLGEMM_BENCH_FORCE_CONFIG_H
#include <clgemm.h>

/* Sets spec's configuration on h for every type it is legal for ("auto" clears them all); 0 on
 * success, -1 after a message on stderr naming tool. */
int bench_force(clgemm_handle h, const char *spec, const char *tool);

#endif
