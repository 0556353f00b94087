#!/usr/bin/env bash
# Tests of the plotting tools (docs/plots.md): tools/plot_roofline, tools/plot_cycles,
# tools/plot_sweep and tools/plot_memory_presets on a real run and real sweeps.
#
#   tests/plots/run_plot_tests.sh NPUSIM
#
# NPUSIM is the npusim binary. Runs a timing-only ResNet-18 (configs/networks/
# resnet18_full.json) with --out and a 2 x 2 sweep with three objectives in a
# temporary folder, draws every plot, and checks that each PNG exists, is a valid
# PNG and has plausible dimensions. Also checks that the tools exit non-zero with
# a message naming the missing file on a folder that is not a run or a sweep.
# Prints SKIP and exits 77 when /usr/bin/python3 has no matplotlib.
set -uo pipefail

if [ $# -ne 1 ] || [ ! -x "$1" ]; then
  echo "usage: $0 NPUSIM (the npusim binary; got '${1:-}')" >&2
  exit 2
fi
npusim=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
tools=$root/tools

if ! /usr/bin/python3 -c "import matplotlib" 2>/dev/null; then
  echo "SKIP: /usr/bin/python3 has no matplotlib (install Debian's python3-matplotlib:" \
       "tools/install-deps --plots)"
  exit 77
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

pass() { echo "ok:   $*"; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# check_png FILE MIN_W MIN_H: exists, non-empty, PNG signature, IHDR size in range.
check_png() {
  local file=$1 min_w=$2 min_h=$3 size
  if [ ! -s "$file" ]; then
    fail "$(basename "$file"): missing or empty"
    return
  fi
  if size=$(/usr/bin/python3 - "$file" "$min_w" "$min_h" <<'EOF'
import struct, sys
path, min_w, min_h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with open(path, "rb") as f:
    head = f.read(24)
if head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
    sys.exit(f"not a PNG: first bytes {head[:16]!r}")
w, h = struct.unpack(">II", head[16:24])
print(f"{w}x{h}")
if not (min_w <= w <= 8000 and min_h <= h <= 8000):
    sys.exit(f"{w}x{h} pixels, expected at least {min_w}x{min_h} and at most 8000x8000")
EOF
  ); then
    pass "$(basename "$file") is a PNG of $size pixels"
  else
    fail "$(basename "$file"): $size"
  fi
}

# expect_error DESCRIPTION PATTERN COMMAND...: non-zero exit, stderr matches PATTERN.
expect_error() {
  local what=$1 pattern=$2 status
  shift 2
  "$@" >"$tmp/out" 2>"$tmp/err"
  status=$?
  if [ $status -eq 0 ]; then
    fail "$what: exit 0, expected an error"
  elif ! grep -q -- "$pattern" "$tmp/err"; then
    fail "$what: exit $status but stderr lacks '$pattern': $(cat "$tmp/err")"
  else
    pass "$what: exit $status, $(head -n 1 "$tmp/err")"
  fi
}

# A run: ResNet-18 with its vector operators and matmul, timing only.
if ! "$npusim" run "$root/configs/networks/resnet18_full.json" --timing-only -q \
     --out "$tmp/run" >"$tmp/run.log" 2>&1; then
  echo "FAIL: npusim run did not succeed:"; cat "$tmp/run.log"; exit 1
fi
"$tools/plot_roofline" "$tmp/run" --out "$tmp/roofline.png" >/dev/null \
  && pass "plot_roofline ran" || fail "plot_roofline exited non-zero"
check_png "$tmp/roofline.png" 800 600
"$tools/plot_roofline" "$tmp/run" --macs useful >/dev/null \
  && pass "plot_roofline --macs useful ran" || fail "plot_roofline --macs useful exited non-zero"
check_png "$tmp/run/roofline.png" 800 600
"$tools/plot_cycles" "$tmp/run" --out "$tmp/cycles.png" >/dev/null \
  && pass "plot_cycles ran" || fail "plot_cycles exited non-zero"
check_png "$tmp/cycles.png" 800 600
"$tools/plot_cycles" "$tmp/run" --percent >/dev/null \
  && pass "plot_cycles --percent ran" || fail "plot_cycles --percent exited non-zero"
check_png "$tmp/run/cycles.png" 800 600

# A 2 x 2 sweep (array rows x cache size) with three objectives.
cat >"$tmp/sweep.json" <<EOF
{
  "name": "plots_test",
  "base_hw": "$root/configs/hw/default.json",
  "workload": "$root/configs/networks/resnet18.json",
  "parameters": [
    {"pointer": "/compute/array_rows", "values": [16, 32]},
    {"pointer": "/cache/size_kib", "values": [256, 512]}
  ],
  "objectives": ["cycles", "energy_uj", "sram_bytes"]
}
EOF
if ! "$npusim" sweep "$tmp/sweep.json" --out "$tmp/sweep" -j 1 -q >"$tmp/sweep.log" 2>&1; then
  echo "FAIL: npusim sweep did not succeed:"; cat "$tmp/sweep.log"; exit 1
fi
"$tools/plot_sweep" "$tmp/sweep" >/dev/null \
  && pass "plot_sweep ran (3 objectives, default axes)" || fail "plot_sweep exited non-zero"
check_png "$tmp/sweep/plots/pareto.png" 600 500
check_png "$tmp/sweep/plots/sensitivity.png" 600 300
"$tools/plot_sweep" "$tmp/sweep" --out "$tmp/sweep2" --x energy_uj --y cycles \
  --color-by compute.array_rows >/dev/null \
  && pass "plot_sweep --x --y --color-by (numeric) ran" \
  || fail "plot_sweep --x --y --color-by exited non-zero"
check_png "$tmp/sweep2/pareto.png" 600 500
"$tools/plot_sweep" "$tmp/sweep" --out "$tmp/sweep3" --color-by status >/dev/null \
  && pass "plot_sweep --color-by (categorical) ran" \
  || fail "plot_sweep --color-by status exited non-zero"
check_png "$tmp/sweep3/pareto.png" 600 500

# A sweep over memory presets: tools/plot_memory_presets (docs/dram.md#sweeps-over-memory).
mkdir -p "$tmp/empty"
cat >"$tmp/memory.json" <<EOF
{"name": "memory", "base_hw": {"name": "m"}, "workload": "$root/configs/networks/tiny3.json",
 "parameters": [{"pointer": "/dram/preset", "values": ["ddr4_3200", "hbm3"]},
                {"pointer": "/compute/units", "values": [1, 2]}],
 "objectives": ["cycles", "energy_uj"], "timing_only": true}
EOF
if ! "$npusim" sweep "$tmp/memory.json" --out "$tmp/memory" -j 1 -q >"$tmp/memory.log" 2>&1; then
  echo "FAIL: npusim sweep over presets did not succeed:"; cat "$tmp/memory.log"; exit 1
fi
"$tools/plot_memory_presets" "$tmp/memory" cycles --out "$tmp/memory.png" >/dev/null \
  && pass "plot_memory_presets ran (2 presets x 2 unit counts)" \
  || fail "plot_memory_presets exited non-zero"
check_png "$tmp/memory.png" 600 300
expect_error "plot_memory_presets on a folder without results.csv" "results.csv" \
  "$tools/plot_memory_presets" "$tmp/empty" cycles --out "$tmp/x.png"
expect_error "plot_memory_presets of an unknown column" "no_such_column" \
  "$tools/plot_memory_presets" "$tmp/memory" no_such_column --out "$tmp/x.png"

# Bad input: a folder that is neither a run nor a sweep; a column that does not exist.
mkdir -p "$tmp/empty"
expect_error "plot_roofline on a folder without layers.csv" "layers.csv" \
  "$tools/plot_roofline" "$tmp/empty" --out "$tmp/x.png"
expect_error "plot_cycles on a folder without layers.csv" "layers.csv" \
  "$tools/plot_cycles" "$tmp/empty" --out "$tmp/x.png"
expect_error "plot_sweep on a folder without results.csv" "results.csv" \
  "$tools/plot_sweep" "$tmp/empty"
expect_error "plot_sweep --color-by an unknown column" "no_such_column" \
  "$tools/plot_sweep" "$tmp/sweep" --out "$tmp/sweep4" --color-by no_such_column
head -n 2 "$tmp/run/layers.csv" | cut -d, -f1-3 >"$tmp/broken.csv"
mkdir -p "$tmp/broken" && cp "$tmp/broken.csv" "$tmp/broken/layers.csv"
expect_error "plot_roofline on a layers.csv without counters" "missing" \
  "$tools/plot_roofline" "$tmp/broken"
for f in x.png broken/roofline.png; do
  [ -e "$tmp/$f" ] && fail "a failed tool left $f behind"
done

if [ $failures -ne 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all plot checks passed"
