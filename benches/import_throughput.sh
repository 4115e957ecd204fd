#!/bin/bash
# Rows/s of `crmdash contacts import` at 0, 30 and 100 ms of sandbox latency for 1, 4, 8 and 16
# jobs (docs/performance.md, "Importing contacts"). Usage: benches/import_throughput.sh BIN
# Each run imports a file of new people; the sandbox runs in its own process on a free port.
set -eu
BIN=${1:?usage: $0 target/release/crmdash}
BIN=$(realpath "$BIN")
DIR=$(mktemp -d)
trap 'kill $SB 2>/dev/null; rm -rf "$DIR"' EXIT
export CRMDASH_TOKEN=sandbox-token-local-only
rows_for() { # latency jobs
  if [ "$1" = 0 ]; then echo 2000; elif [ "$2" = 1 ] && [ "$1" = 100 ]; then echo 150;
  elif [ "$2" = 1 ]; then echo 300; else echo 600; fi
}
echo "latency_ms jobs rows seconds rows_per_s"
for lat in 0 30 100; do
  "$BIN" sandbox --port 0 --latency-ms "$lat" > "$DIR/sb.log" 2>&1 &
  SB=$!
  for _ in $(seq 50); do grep -q '^base_url:' "$DIR/sb.log" 2>/dev/null && break; sleep 0.1; done
  URL=$(sed -n 's/^base_url: //p' "$DIR/sb.log")
  for jobs in 1 4 8 16; do
    n=$(rows_for "$lat" "$jobs")
    f="$DIR/l${lat}j${jobs}.csv"
    { echo "First Name,last_name,EMAIL,phone,source"
      seq "$n" | awk -v t="l${lat}j${jobs}" '{print "P"$1",Import,p"$1"."t"@import.example,,mig"}'; } > "$f"
    s=$(date +%s.%N)
    timeout 300 "$BIN" --base-url "$URL" contacts import "$f" --jobs "$jobs" > /dev/null 2>&1
    e=$(date +%s.%N)
    awk -v l="$lat" -v j="$jobs" -v n="$n" -v s="$s" -v e="$e" \
      'BEGIN { printf "%s %s %s %.2f %.0f\n", l, j, n, e - s, n / (e - s) }'
  done
  kill $SB; wait $SB 2>/dev/null || true
done
