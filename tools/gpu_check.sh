#!/usr/bin/env bash
# Every GPU check in one go, for a machine with an NVIDIA GPU:
#
#     tools/gpu_check.sh [OUT_DIR]        (default: $TMPDIR/minitorch-gpu-check)
#     FULL_SUITE=1 tools/gpu_check.sh     (also step 4: minutes more, CuPy compiles many kernels)
#
# 1. what minitorch sees: minitorch.cuda.is_available() (and why not), the GPU, CuPy's version
# 2. tests/gpu: CUDA basics, every gradcheck case and every nn layer on the GPU against the
#    CPU (values, gradients, placement), training steps
# 3. the GPU benchmarks (bench/gpu.py): minitorch on CuPy vs raw CuPy, and vs minitorch on the
#    CPU; BENCH_ARGS=--quick for rough numbers sooner
# 4. with FULL_SUITE=1: the library's tests with every tensor on the GPU (pytest
#    --default-device=cuda). Tests that assume the CPU (a printed device, memory shared with
#    NumPy) fail there as they do on the recording device, so the same modules also run there
#    (no GPU needed) and only the tests that fail on the GPU alone are listed: GPU problems
#
# Each step's full output is written to OUT_DIR; a summary ends the run. Exit status: 0 when
# the tests found nothing, 1 when they did, 2 when there is no usable GPU.
set -uo pipefail
cd "$(dirname "$0")/.."
if [ -z "${PYTHON:-}" ]; then
  if [ -x .venv/bin/python ]; then PYTHON=.venv/bin/python; else PYTHON=python3; fi
fi
OUT=${1:-${TMPDIR:-/tmp}/minitorch-gpu-check}
mkdir -p "$OUT"
STEP_TIMEOUT=${STEP_TIMEOUT:-420}
PYTEST=("$PYTHON" -m pytest -q -p no:cacheprovider --tb=short -rfEs)

echo "== 1. the device (python: $PYTHON, output: $OUT)"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
"$PYTHON" - <<'PY' 2>&1 | tee "$OUT/device.txt"
import importlib
for name in ("numpy", "cupy", "pytest", "hypothesis"):
    try:
        print(f"{name} {importlib.import_module(name).__version__}")
    except Exception as e:
        print(f"{name} MISSING ({type(e).__name__}: {e})")
import minitorch
ok = minitorch.cuda.is_available()
print("minitorch.cuda.is_available():", ok, "" if ok else f"({minitorch.cuda.unavailable_reason()})")
if ok:
    print("device:", minitorch.cuda.get_device_name(), "| count:", minitorch.cuda.device_count())
PY
if ! grep -q "is_available(): True" "$OUT/device.txt"; then
  echo "no usable GPU: nothing else to check"; exit 2
fi

echo "== 2. tests/gpu"
timeout "$STEP_TIMEOUT" "${PYTEST[@]}" tests/gpu > "$OUT/tests_gpu.txt" 2>&1
gpu_rc=$?
tail -n 15 "$OUT/tests_gpu.txt"

echo "== 3. GPU benchmarks"
timeout "$STEP_TIMEOUT" "$PYTHON" -m bench --only gpu ${BENCH_ARGS:-} --json "$OUT/bench_gpu.json" \
  > "$OUT/bench_gpu.txt" 2>&1
bench_rc=$?
cat "$OUT/bench_gpu.txt"

suite_rc=0
if [ -n "${FULL_SUITE:-}" ]; then
echo "== 4. the library's tests with every tensor on the GPU, against the same on the recording device"
MODULES=$("$PYTHON" -c "import sys; sys.path.insert(0, 'tests'); import test_cupy_api as t; \
print(' '.join(str(p.relative_to(t.ROOT)) for p in t.library_test_modules()))")
timeout "$STEP_TIMEOUT" "${PYTEST[@]}" --tb=line --default-device=cuda $MODULES > "$OUT/suite_cuda.txt" 2>&1
timeout "$STEP_TIMEOUT" "${PYTEST[@]}" --tb=line --record-cupy-usage="$OUT/usage.json" $MODULES \
  > "$OUT/suite_recording.txt" 2>&1
"$PYTHON" - "$OUT" <<'PY' | tee "$OUT/suite_diff.txt"
import re, sys
out = sys.argv[1]
def failed(name):
    lines = open(f"{out}/{name}").read().splitlines()
    ids = {m.group(2): ln for ln in lines for m in [re.match(r"(FAILED|ERROR) (\S+)", ln)] if m}
    last = next((ln.strip("= ") for ln in reversed(lines) if re.search(r"\d+ (passed|failed)", ln)), "did not finish")
    return ids, last
cuda, cuda_sum = failed("suite_cuda.txt")
rec, rec_sum = failed("suite_recording.txt")
print("on the GPU:", cuda_sum)
print("on the recording device:", rec_sum)
only = sorted(set(cuda) - set(rec))
print(f"{len(only)} tests fail on the GPU only" + (":" if only else ""))
for k in only:
    print(" ", cuda[k][:300])
sys.exit(1 if only or "did not finish" in cuda_sum else 0)
PY
suite_rc=$?
fi

echo "== summary"
echo "tests/gpu: $(tail -n 1 "$OUT/tests_gpu.txt")"
if [ -n "${FULL_SUITE:-}" ]; then head -n 3 "$OUT/suite_diff.txt" | sed 's/^/suite: /'; fi
echo "bench: exit $bench_rc (table above, numbers in $OUT/bench_gpu.json)"
[ "$gpu_rc" -eq 0 ] && [ "$suite_rc" -eq 0 ]
