#!/bin/bash
# Wall time of `crmdash appointments reschedule --plan` for 500 rows over a 100 ms link, and
# under a 20/s rate limit (docs/performance.md, "Reschedule plans").
# Usage: benches/plan_throughput.sh BIN. The sandbox runs in its own process on a free port;
# it holds 60 appointments, so 440 of the 500 rows are answered 404 (one request each, after
# the same latency and under the same limit): the run exits 5, the timing is what counts.
set -eu
BIN=${1:?usage: $0 target/release/crmdash}
BIN=$(realpath "$BIN")
DIR=$(mktemp -d)
trap 'kill $SB 2>/dev/null; rm -rf "$DIR"' EXIT
export CRMDASH_TOKEN=sandbox-token-local-only CRMDASH_CONFIG="$DIR/none.toml"
seq 500 | awk 'BEGIN { print "id,start,end" }
  { printf "apt_%06d,2031-01-%02d %02d:%02d,30m\n", $1, 1 + $1 % 28, 8 + $1 % 10, ($1 * 7) % 60 }' > "$DIR/p.csv"
echo "case seconds summary"
for case in "latency100:--latency-ms 100" "limit20:--latency-ms 100 --rate-limit 20"; do
  name=${case%%:*}
  # shellcheck disable=SC2086
  "$BIN" sandbox --port 0 ${case#*:} > "$DIR/sb.log" 2>&1 &
  SB=$!
  for _ in $(seq 50); do grep -q '^base_url:' "$DIR/sb.log" 2>/dev/null && break; sleep 0.1; done
  URL=$(sed -n 's/^base_url: //p' "$DIR/sb.log")
  s=$(date +%s.%N)
  XDG_DATA_HOME="$DIR/data-$name" timeout 300 "$BIN" --base-url "$URL" appointments reschedule \
    --plan "$DIR/p.csv" --yes --format csv > /dev/null 2> "$DIR/err" || true
  e=$(date +%s.%N)
  awk -v c="$name" -v s="$s" -v e="$e" -v t="$(head -1 "$DIR/err")" \
    'BEGIN { printf "%s %.2f %s\n", c, e - s, t }'
  kill $SB; wait $SB 2>/dev/null || true
done
