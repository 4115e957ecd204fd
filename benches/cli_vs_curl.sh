#!/bin/sh
# CLI wall time: `crmdash deals list --format json` against a local sandbox vs
# `curl -s ... | jq .data` for the same request (hyperfine). Target: within 1.5x.
# Usage: benches/cli_vs_curl.sh [path/to/crmdash]   (default target/release/crmdash)
set -eu
BIN=${1:-target/release/crmdash}
OUT=$(mktemp)
"$BIN" sandbox --port 0 >"$OUT" 2>/dev/null &
SB=$!
trap 'kill $SB 2>/dev/null; rm -f "$OUT"' EXIT
while ! grep -q '^token: ' "$OUT"; do sleep 0.05; done
URL=$(sed -n 's/^base_url: //p' "$OUT")
TOKEN=$(sed -n 's/^token: //p' "$OUT")
HOME_DIR=$(mktemp -d)
export CRMDASH_TOKEN="$TOKEN" CRMDASH_CONFIG="$HOME_DIR/none.toml" HOME="$HOME_DIR"
# Both ask for the first page at the service's default size, without includes.
# The token reaches curl through its config on stdin (printf is a shell builtin), never argv.
hyperfine -N --warmup 5 --runs 60 \
  "$BIN --base-url $URL deals list --format json" \
  "sh -c 'printf \"header = \\\"Authorization: Bearer %s\\\"\\n\" \"\$CRMDASH_TOKEN\" | curl -s -K - -H \"Accept: application/json\" $URL/public/v1/deals | jq .data'"
