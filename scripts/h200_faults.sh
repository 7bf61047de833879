#!/usr/bin/env bash
# h200_faults.sh: GPU faults CI cannot produce, once on the H200 (issue 7), in one call of the
# device tool. Writes faults.txt and log.txt to $OUT.
#   1. out of memory: another process holds all but about 8 GB of the GPU, then validate and bench
#      ask for N = 32768 (34 GB of float4, 8.6 GB of float): one line, non-zero exit, no crash;
#   2. the same commands once the memory is free again: they work;
#   3. counters as an unprivileged user (nobody): permitted here, or the one-line fix is printed.
#   device tool:  run  command="bash scripts/h200_faults.sh"  carry=[".devdeps"]
source "$(dirname "$0")/h200_common.sh"
h200_build OFF bankscope-gpu
BIN="$BUILD/bin/bankscope-gpu"
{
  echo "# GPU faults on the H200, $(date -u)"
  step "1. out of memory: a second process holds the GPU's memory"
  python3 - <<'PY' &
import time, torch
free, total = torch.cuda.mem_get_info()
hog = torch.empty(free - (8 << 30), dtype=torch.uint8, device="cuda")
print(f"hog: holding {hog.numel() / 2**30:.1f} GiB of {total / 2**30:.1f} GiB", flush=True)
time.sleep(90)
PY
  hog=$!
  sleep 20
  nvidia-smi --query-gpu=memory.used,memory.total --format=csv
  echo "## validate, float4 tile, N = 32768"
  timeout 120 "$BIN" validate --scenario assets/scenarios/tiled_float4_32x33.json --n 32768 --runs 1 --ncu none 2>&1 | tail -n 3
  echo "exit: $?"
  echo "## bench, N = 32768"
  timeout 120 "$BIN" bench --n 32768 --only copy_32x8 --runs 1 --warmup 0 2>&1 | tail -n 3
  echo "exit: $?"
  kill "$hog" 2>/dev/null
  wait "$hog" 2>/dev/null
  step "2. the same with the memory free"
  timeout 120 "$BIN" validate --scenario assets/scenarios/tiled_float4_32x33.json --n 32768 --runs 3 --ncu none 2>&1 | tail -n 4
  echo "exit: $?"
  step "3. counters as user nobody"
  chmod -R a+rX "$BUILD" assets 2>/dev/null
  timeout 120 su -s /bin/bash nobody -c "$BIN validate --scenario assets/scenarios/seed_transpose_32x33.json --n 32 --runs 1 --ncu none" 2>&1 | tail -n 4
  echo "exit: $?"
} 2>&1 | tee "$OUT/faults.txt"
