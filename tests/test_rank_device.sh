#!/bin/sh
# test_rank_device.sh: scripts/clgemm-rank-device gives each local rank its device (Open MPI,
# MPICH and Slurm variables, the wrap-around, a platform kept) and refuses a missing or garbage
# rank or count without running the command. Prints "N passed, N failed".
# Usage: test_rank_device.sh PATH/TO/clgemm-rank-device
# The command lines are built from words on purpose, and $CLGEMM_DEVICE is the child's.
# shellcheck disable=SC2016,SC2086
set -u
script=$1
passed=0
failed=0
expect() { # WANTED OUTPUT-OF-COMMAND...
    want=$1
    shift
    got=$("$@" 2>/dev/null)
    if [ "$got" = "$want" ]; then passed=$((passed + 1)); else
        echo "FAIL: $* gave '$got', wanted '$want'"
        failed=$((failed + 1))
    fi
}
show='echo "$CLGEMM_DEVICE"'
clean="env -u OMPI_COMM_WORLD_LOCAL_RANK -u MPI_LOCALRANKID -u SLURM_LOCALID -u CLGEMM_DEVICE -u CLGEMM_RANK_DEVICES"
expect ":3" $clean OMPI_COMM_WORLD_LOCAL_RANK=3 "$script" sh -c "$show"
expect ":2" $clean MPI_LOCALRANKID=2 "$script" sh -c "$show"
expect ":1" $clean SLURM_LOCALID=1 "$script" sh -c "$show"
expect ":0" $clean OMPI_COMM_WORLD_LOCAL_RANK=0 SLURM_LOCALID=5 "$script" sh -c "$show"
expect ":1" $clean SLURM_LOCALID=5 CLGEMM_RANK_DEVICES=4 "$script" sh -c "$show"
expect "nvidia:2" $clean SLURM_LOCALID=2 CLGEMM_DEVICE=nvidia:7 "$script" sh -c "$show"
expect "a b" $clean SLURM_LOCALID=0 "$script" echo "a b"
# Refusals: exit 2, the command never runs.
for bad in "" "OMPI_COMM_WORLD_LOCAL_RANK=x" "SLURM_LOCALID=-1" "SLURM_LOCALID=1 CLGEMM_RANK_DEVICES=0" \
    "SLURM_LOCALID=1 CLGEMM_RANK_DEVICES=two"; do
    # shellcheck disable=SC2086
    out=$($clean $bad "$script" echo RAN 2>/dev/null)
    status=$?
    # shellcheck disable=SC2086
    if [ $status -eq 2 ] && [ -z "$out" ]; then passed=$((passed + 1)); else
        echo "FAIL: '$bad': exit $status, output '$out'"
        failed=$((failed + 1))
    fi
done
if "$script" 2>/dev/null; [ $? -eq 2 ]; then passed=$((passed + 1)); else
    echo "FAIL: no command accepted"
    failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
