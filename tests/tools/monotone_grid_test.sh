#!/usr/bin/env bash
# tools/monotone-grid: a small grid of tiny3 runs with no rising move (exit 0),
# counting the compile trials it simulated;
# the same points with one planted rise are reported as that move, both points
# and cycles (exit 1); so is a planted rise of DRAM bytes on a step to more
# cache (exit 1), and one on a step to a faster bus is not checked (exit 0);
# a missing --load file is an error (exit 2).
set -u
tool="$(dirname "$0")/../../tools/monotone-grid"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fails=0
check() {  # check DESCRIPTION EXPECTED_STATUS ACTUAL_STATUS
  if [ "$2" != "$3" ]; then
    echo "FAIL: $1: exit $3, expected $2"
    fails=$((fails + 1))
  fi
}
expect() {  # expect FILE GREP_PATTERN WHAT_IS_MISSING: the file holds a line matching it
  grep -Eq "$2" "$1" || { echo "FAIL: $3"; cat "$1"; fails=$((fails + 1)); }
}

"$tool" --networks tiny3 --cache 64,128 --bus 8,16 --units 1,2 --arrays 16,32 \
  --save "$dir/grid.json" >"$dir/out.txt" 2>&1
check "a grid with no rise" 0 $?
expect "$dir/out.txt" "tiny3: 0" "no 'tiny3: 0' summary"
expect "$dir/out.txt" "^compile trials simulated: [1-9][0-9]* over the grid's points" "no count of the compile trials simulated"

/usr/bin/python3 - "$dir/grid.json" "$dir/planted.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = d["cycles"]
c["tiny3|128|16|2|32"] = c["tiny3|64|16|2|32"] + 1  # more cache, one cycle more
json.dump(d, open(sys.argv[2], "w"))
PY
"$tool" --load "$dir/planted.json" >"$dir/planted.txt" 2>&1
check "a planted rise" 1 $?
expect "$dir/planted.txt" "tiny3 cache: \[64, 16, 2, 32\] -> \[128, 16, 2, 32\]" "the planted move is not printed"
expect "$dir/planted.txt" "tiny3: 1 \(cache 1\)" "the summary does not count it"

/usr/bin/python3 - "$dir/grid.json" "$dir/dram_cache.json" "$dir/dram_bus.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
b = d["dram_bytes"]
assert len(b) == 16 and all(v > 0 for v in b.values()), b
cache = json.loads(json.dumps(d))
cache["dram_bytes"]["tiny3|128|8|1|16"] = b["tiny3|64|8|1|16"] + 64  # more cache, more traffic
json.dump(cache, open(sys.argv[2], "w"))
bus = json.loads(json.dumps(d))
for cache_kib in (64, 128):  # a faster bus, more traffic: the same at both cache sizes
    bus["dram_bytes"][f"tiny3|{cache_kib}|16|1|16"] = max(b.values()) + 64
json.dump(bus, open(sys.argv[3], "w"))
PY
"$tool" --load "$dir/dram_cache.json" >"$dir/dram_cache.txt" 2>&1
check "a planted rise of DRAM bytes with more cache" 1 $?
expect "$dir/dram_cache.txt" "tiny3 cache, DRAM bytes: \[64, 8, 1, 16\] -> \[128, 8, 1, 16\]" "the planted DRAM move is not printed"
expect "$dir/dram_cache.txt" "^  tiny3: 1, \+" "the DRAM summary does not count it"
"$tool" --load "$dir/dram_bus.json" >"$dir/dram_bus.txt" 2>&1
check "more DRAM bytes with a faster bus (not checked)" 0 $?

"$tool" --load "$dir/missing.json" >"$dir/missing.txt" 2>&1
check "a missing --load file" 2 $?
expect "$dir/missing.txt" "missing.json: not a --save file" "no error naming the file"

[ "$fails" -eq 0 ] && echo "monotone-grid: all checks passed"
exit $((fails > 0))
