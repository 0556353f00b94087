#!/usr/bin/env bash
# Usage: no_scratch_left.sh UNIT_TESTS INTEGRATION_TESTS
# Runs test cases that write scratch files (the per-process test folder, .npy and
# program round trips, reports written by run_report, a policy comparison's
# temporary folder, ONNX Runtime's log files) with TMPDIR pointing at an empty folder, then checks that the
# folder is empty again. ctest starts one process per test case, so anything a
# test process leaves behind multiplies by thousands of runs.
set -u
unit=$1 integration=$2
outer=$(mktemp -d)
trap 'rm -rf "$outer"' EXIT
export TMPDIR=$outer/tmp
mkdir "$TMPDIR"
status=0

run() {  # run LOG BINARY ARGS...: the test cases must pass for the check to mean anything
  local log=$outer/$1
  shift
  if ! "$@" >"$log" 2>&1; then
    echo "FAIL: $* failed; its output:"
    cat "$log"
    status=1
  fi
}

run unit.log "$unit" "[trace],[tensor],[workload],[timeline]"
run report.log "$integration" "ping-pong buffering beats single buffering when load and compute balance"
run compare.log "$integration" "comparing policies prints both and the gain"
# ONNX Runtime (skipped inside the test case where it is not installed).
run ort.log "$integration" "onnx: QDQ models lower to integer operators and equal ONNX Runtime's fused kernels"

left=$(cd "$TMPDIR" && ls -A)
if [ -n "$left" ]; then
  echo "FAIL: test processes left these in TMPDIR:"
  (cd "$TMPDIR" && ls -A)
  status=1
fi
[ "$status" = 0 ] && echo "ok: the test processes left TMPDIR empty"
exit "$status"
