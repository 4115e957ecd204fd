#!/bin/sh
# Records layout/hot.order, the functions build.rs asks the linker to lay out first (see its
# header): every function of the release binary that the dashboard runs while it starts against
# a remote service with its mirror open, browses (tabs, moves, sorts, a filter, the detail pane,
# help) and idles. Run from the repository root after a change that moves much code; needs
# valgrind and tmux. Takes a release link with symbols (`-C strip=none`: the same code and
# symbol names as the stripped release build) and a few minutes under callgrind.
#
#   layout/record.sh            # builds, records, writes layout/hot.order
#   CRMDASH_BIN=path layout/record.sh   # records with a binary that has symbols already
set -eu
work=$(mktemp -d)
trap 'tmux -L crmdash-layout kill-server 2>/dev/null || true; kill "$sandbox_pid" 2>/dev/null || true; rm -rf "$work"' EXIT
sandbox_pid=
if [ -z "${CRMDASH_BIN:-}" ]; then
    CRMDASH_NO_LAYOUT=1 cargo rustc --release --locked --bin crmdash -- -C strip=none
    cp target/release/crmdash "$work/crmdash"
    CRMDASH_BIN="$work/crmdash"
fi
bin=$CRMDASH_BIN
nm "$bin" >/dev/null 2>&1 || { echo "$bin has no symbols" >&2; exit 1; }

# The remote service: a sandbox in its own process, 1,000 contacts, a 50 ms link.
"$bin" sandbox --port 0 --contacts 1000 --latency-ms 50 >"$work/sandbox.out" 2>/dev/null &
sandbox_pid=$!
while ! grep -q '^token: ' "$work/sandbox.out"; do sleep 0.2; done
url=$(sed -n 's/^base_url: //p' "$work/sandbox.out")
token=$(sed -n 's/^token: //p' "$work/sandbox.out")
home="$work/home"
mkdir -p "$home"
printf '[ui]\nrefresh_seconds = 0\n' >"$home/config.toml"
cat >"$work/env" <<ENV
export CRMDASH_TOKEN='$token' CRMDASH_CONFIG='$home/config.toml' HOME='$home'
export XDG_CONFIG_HOME='$home/config' XDG_STATE_HOME='$home/state'
export XDG_DATA_HOME='$home/data' XDG_CACHE_HOME='$home/cache' NO_COLOR=1 TERM=xterm-256color
ENV
. "$work/env"
"$bin" --base-url "$url" sync >/dev/null

tmux -L crmdash-layout new-session -d -s crmdash-layout -x 160 -y 45 \
    "valgrind --tool=callgrind --demangle=no --compress-strings=no --dump-instr=no --callgrind-out-file=$work/cg.out $bin --base-url $url"
keys() { for k in "$@"; do tmux -L crmdash-layout send-keys -t crmdash-layout "$k"; sleep 0.5; done; }
sleep 30
keys 1 3 2 j j k s S Down Up 1 j k / a n Enter Escape Enter Escape '?' Escape 3 k j 2
sleep 20
keys q
while tmux -L crmdash-layout has-session -t crmdash-layout 2>/dev/null; do sleep 1; done

# Every function callgrind saw run in the binary, once, in the order it first appears.
sed -n 's/^fn=//p' "$work/cg.out" | awk '!seen[$0]++' >"$work/hot"
nm --defined-only "$bin" | awk '{ print $3 }' | sort -u >"$work/defined"
grep -Fxf "$work/defined" "$work/hot" >layout/hot.order
echo "layout/hot.order: $(wc -l <layout/hot.order) functions" >&2
