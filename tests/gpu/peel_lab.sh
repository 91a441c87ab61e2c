B=build-gpu/bench/clgemm-bench
export CLGEMM_TUNING_DB=/tmp/none.json CLGEMM_CACHE_DIR=/tmp/clgemm-kernels
for v in 0 -1; do
  if [ $v = 0 ]; then export CLGEMM_PEEL=0; else unset CLGEMM_PEEL; fi
  echo "== peel $v"
  $B --no-clblast --runs 20 --layout row --precision s --shape 4096,4096,4096 --shape 4097,4097,4097 --shape 4100,4100,4100 --shape 8193,8193,8193 2>&1 | grep -E "^s "
done
timeout 300 build-gpu/tests/test_split 2>&1 | grep -E "FAIL|Synthesis|Assert" | head
