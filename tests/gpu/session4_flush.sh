#!/bin/sh
# session4_flush.sh: a split-K call flushes the queue after its partial products, before it sets
# up the reduction, against the build before (.old/build-gpu, commit 66af42c), alternating, two
# rounds. Predicted: if the driver holds enqueued work until a flush, the device starts ~5 us
# sooner (one launch's host time): long K (~130 us calls) +3-5%, narrow (~250 us) +2%; if it
# does not, a loss of at most ~1% (the flush's own host time). 4096^2 (no split): unchanged.
. tests/gpu/lib.sh
row() { awk -v t="$1" '/^[sd] /{printf "%s %-5s %sx%sx%s %s\n", t, $1, $4, $5, $6, $8}'; }
for round in 1 2; do
    for b in .old/build-gpu build-gpu; do
        t=$([ $b = build-gpu ] && echo new || echo old)
        BENCH="$b/bench/clgemm-bench --runs 40 --layout row --no-clblast"
        $BENCH --precision d --shape 4096,4096,4096 --shape 256,256,16384 --family regblock \
            --params MWG=128,NWG=128,KWG=8,MDIMC=16,NDIMC=16,KWI=4,VWM=2,VWN=2 2>&1 | row "$t-simt"
        $BENCH --precision s --shape 256,256,16384 --shape 8192,64,8192 --shape 4096,4096,4096 \
            2>&1 | row "$t"
        $BENCH --precision d --shape 256,256,16384 --shape 64,8192,8192 2>&1 | row "$t"
    done
done
suites test_split
echo "== $(date -u +%T) end"
