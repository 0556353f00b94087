#!/usr/bin/env bash
# tools/monotone-grid: a small grid of tiny3 runs with no rising move (exit 0),
# counting the compile trials it simulated;
# the same points with one planted rise are reported as that move, both points
# and cycles (exit 1); a missing --load file is an error (exit 2).
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

"$tool" --networks tiny3 --cache 64,128 --bus 8,16 --units 1,2 --arrays 16,32 \
  --save "$dir/grid.json" >"$dir/out.txt" 2>&1
check "a grid with no rise" 0 $?
grep -q "tiny3: 0" "$dir/out.txt" || { echo "FAIL: no 'tiny3: 0' summary"; cat "$dir/out.txt"; fails=$((fails + 1)); }
grep -Eq "^compile trials simulated: [1-9][0-9]* over the grid's points" "$dir/out.txt" ||
  { echo "FAIL: no count of the compile trials simulated"; cat "$dir/out.txt"; fails=$((fails + 1)); }

/usr/bin/python3 - "$dir/grid.json" "$dir/planted.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = d["cycles"]
c["tiny3|128|16|2|32"] = c["tiny3|64|16|2|32"] + 1  # more cache, one cycle more
json.dump(d, open(sys.argv[2], "w"))
PY
"$tool" --load "$dir/planted.json" >"$dir/planted.txt" 2>&1
check "a planted rise" 1 $?
grep -q "tiny3 cache: \[64, 16, 2, 32\] -> \[128, 16, 2, 32\]" "$dir/planted.txt" ||
  { echo "FAIL: the planted move is not printed"; cat "$dir/planted.txt"; fails=$((fails + 1)); }
grep -q "tiny3: 1 (cache 1)" "$dir/planted.txt" ||
  { echo "FAIL: the summary does not count it"; cat "$dir/planted.txt"; fails=$((fails + 1)); }

"$tool" --load "$dir/missing.json" >"$dir/missing.txt" 2>&1
check "a missing --load file" 2 $?
grep -q "missing.json: not a --save file" "$dir/missing.txt" ||
  { echo "FAIL: no error naming the file"; cat "$dir/missing.txt"; fails=$((fails + 1)); }

[ "$fails" -eq 0 ] && echo "monotone-grid: all checks passed"
exit $((fails > 0))
