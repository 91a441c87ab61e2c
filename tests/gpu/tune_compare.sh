#!/bin/sh
# tune_compare.sh: issue 11's tuner measurement on a two-GPU H200 machine (nvidia-h200-x2): for
# each default GPU shape of clgemm-tune (FP32 256^3, 1024^3, 4096^3) a 180 s search against a
# 10-minute one of the same space. Every search runs cold and alone on its GPU (its own
# database and kernel cache, the driver's cache off), and each pair's two results are then
# re-timed from their databases by clgemm-bench, alternating, in one process, beside the
# built-in default: the searches' own timings are not what is compared.
# The searches outlast a device command (600 s): `start` copies the build to $W and runs one
# chain per GPU in the background (setsid); `wait S` waits at most S seconds for both. Every
# command leaves the logs so far in $OUT/log. The chains end with the session's other
# measurements (tests/gpu/tables.sh on GPU 0, tests/gpu/batch_sweep.sh on GPU 1).
#   sh tests/gpu/tune_compare.sh start 60; sh tests/gpu/tune_compare.sh wait 585 (repeat)
W=/tmp/tcmp
collect() {
    [ -n "${OUT:-}" ] || return 0
    for f in $W/logs/*.log; do
        echo "#### $f"
        cat "$f"
    done >$OUT/log 2>&1
}
tune() { # gpu side budget tag
    mkdir -p $W/kern-$4
    echo "$(date -u +%T) tune $2^3 for $3 s on GPU $1 ($4)"
    CUDA_VISIBLE_DEVICES=$1 CUDA_CACHE_DISABLE=1 CLGEMM_CACHE_DIR=$W/kern-$4 \
        $B/tools/clgemm-tune --shape $2 --budget $3 --output $W/db-$4.json >$W/logs/tune-$4.log 2>&1
    echo "$(date -u +%T) done: $(grep -E '^s NN' $W/logs/tune-$4.log)"
}
retime() { # gpu side: the 180 s and 600 s results and the default, 3 rounds, alternating
    for round in 1 2 3; do
        for db in $W/db-$2-180.json $W/db-$2-600.json /tmp/none.json; do
            printf '%s round %s %-28s' "$2^3" $round "$(basename $db)"
            CUDA_VISIBLE_DEVICES=$1 CLGEMM_TUNING_DB=$db $B/bench/clgemm-bench --no-clblast \
                --precision s --layout col --runs 30 --shape $2,$2,$2 2>&1 | grep -E "^s " |
                awk '{print " " $8 " GFLOPS  " $0}' | cut -c1-200
        done
    done
}
case "$1" in
start)
    rm -rf $W
    mkdir -p $W/logs
    cp -r build-gpu .gpu tests bench $W/
    cd $W
    . ./.gpu/nvidia-opencl.sh
    export LD_LIBRARY_PATH=$W/.gpu/lib
    nvidia-smi -L
    for g in 0 1; do
        echo "CUDA_VISIBLE_DEVICES=$g:"
        CUDA_VISIBLE_DEVICES=$g build-gpu/tools/clgemm-tune --list | grep -E "^ +[0-9]+:"
    done
    setsid sh tests/gpu/tune_compare.sh chain0 >$W/logs/chain0.log 2>&1 </dev/null &
    setsid sh tests/gpu/tune_compare.sh chain1 >$W/logs/chain1.log 2>&1 </dev/null &
    sleep "${2:-60}"
    nvidia-smi --query-gpu=index,utilization.gpu,memory.used --format=csv
    collect
    ;;
wait)
    end=$(($(date +%s) + ${2:-585}))
    while [ $(date +%s) -lt $end ] && ! { [ -e $W/done0 ] && [ -e $W/done1 ]; }; do
        sleep 5
    done
    nvidia-smi --query-gpu=index,utilization.gpu,memory.used --format=csv
    ls $W
    collect
    tail -5 $W/logs/chain0.log $W/logs/chain1.log
    ;;
chain0)
    export CLGEMM_CACHE_DIR=/tmp/tcmp-bench0
    . tests/gpu/lib.sh
    tune 0 4096 600 4096-600
    tune 0 1024 600 1024-600
    retime 0 1024
    CUDA_VISIBLE_DEVICES=0 sh tests/gpu/tables.sh
    touch $W/done0
    ;;
chain1)
    export CLGEMM_CACHE_DIR=/tmp/tcmp-bench1
    . tests/gpu/lib.sh
    tune 1 256 600 256-600
    tune 1 4096 180 4096-180
    tune 1 1024 180 1024-180
    tune 1 256 180 256-180
    retime 1 4096
    retime 1 256
    CUDA_VISIBLE_DEVICES=1 sh tests/gpu/batch_sweep.sh
    touch $W/done1
    ;;
esac
