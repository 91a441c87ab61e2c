#!/bin/sh
# suites.sh: every device suite on the H200 at the current commit (run like h200_schedules.sh).
. tests/gpu/lib.sh
suites test_gemm test_split test_batched test_types test_faults test_invalid test_unit
