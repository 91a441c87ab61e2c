/* tuner.c: PLACEHOLDER until the tuner lands. */
#include "internal.h"
