#!/bin/sh
# Records layout/hot.order, the functions build.rs asks the linker to lay out first (see its
# header): every function of the release binary that the dashboard runs while it starts against
# a remote service with its mirror open, browses (tabs, moves, sorts, a filter, the detail pane,
# help) and idles. Run from the repository root after a change that moves much code; needs
# valgrind, tmux and python3.
#
# The binary is the release build itself (stripped): the linker's map (CRMDASH_LINK_MAP, see
# build.rs) says which function each address callgrind saw run belongs to, by its mangled name,
# the name the ordering file takes. So no second, symbol-keeping link is needed, and the names
# are those of the very build (the crate hashes in them depend on the profile).
#
#   layout/record.sh                                # builds (relinks), records, writes the list
#   CRMDASH_BIN=path CRMDASH_LINK_MAP=map layout/record.sh   # a release binary and its map
#
# Functions the last list had that did not run this time are kept after the new ones (other
# paths: a first sync, a dialog), so a recording only adds to what is laid out together.
set -eu
work=$(mktemp -d)
trap 'tmux -L crmdash-layout kill-server 2>/dev/null || true; kill "$sandbox_pid" 2>/dev/null || true; rm -rf "$work"' EXIT
sandbox_pid=
if [ -z "${CRMDASH_BIN:-}" ]; then
    # The map is written only when the binary is linked: touching the list relinks it.
    touch layout/hot.order
    CRMDASH_LINK_MAP="$work/link.map" cargo build --release --locked --bin crmdash
    cp target/release/crmdash "$work/crmdash"
    CRMDASH_BIN="$work/crmdash"
    CRMDASH_LINK_MAP="$work/link.map"
fi
bin=$(realpath "$CRMDASH_BIN")
map=${CRMDASH_LINK_MAP:?the linker map of $bin (CRMDASH_LINK_MAP=path when it was built)}

# The remote service: a sandbox in its own process, 20,000 contacts, a 50 ms link.
"$bin" sandbox --port 0 --contacts 20000 --latency-ms 50 >"$work/sandbox.out" 2>/dev/null &
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
    "valgrind --tool=callgrind --dump-instr=yes --compress-strings=no --compress-pos=no --callgrind-out-file=$work/cg.out $bin --base-url $url"
keys() { for k in "$@"; do tmux -L crmdash-layout send-keys -t crmdash-layout "$k"; sleep 0.5; done; }
sleep 25
keys 1 3 2 j j k s S Down Up 1 j k 3 k j 2 s j k 2
keys 1 3 2 j j k s S Down Up 1 j k / a n Enter Escape Enter Escape '?' Escape 3 k j 2
sleep 20
keys q
while tmux -L crmdash-layout has-session -t crmdash-layout 2>/dev/null; do sleep 1; done

# Every address callgrind saw run in the binary (its costs are written per instruction, at the
# binary's own addresses), to the function whose section holds it, once, in the order seen.
python3 - "$work/cg.out" "$map" "$bin" <<'PY'
import bisect, re, sys
cg, link_map, binary = sys.argv[1:4]
sections = []
for line in open(link_map):
    # `.text.unlikely.NAME` (cold code LLVM split off) is ordered by its symbol, NAME.
    m = re.match(r"^\s*([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+\s+.*:\(\.text\.(?:unlikely\.|hot\.|startup\.|exit\.)?(\S+)\)$", line)
    if m:
        sections.append((int(m[1], 16), int(m[2], 16), m[3]))
sections.sort()
starts = [s[0] for s in sections]
seen, order, ob = set(), [], None
for line in open(cg):
    if line.startswith("ob="):
        ob = line[3:].strip()
    elif line.startswith("0x") and ob == binary:
        addr = int(line.split()[0], 16)
        i = bisect.bisect_right(starts, addr) - 1
        if i >= 0 and addr < sections[i][0] + sections[i][1] and sections[i][2] not in seen:
            seen.add(sections[i][2])
            order.append(sections[i][2])
try:
    old = [l.strip() for l in open("layout/hot.order") if l.strip()]
except OSError:
    old = []
order += [n for n in old if n not in seen]
open("layout/hot.order", "w").write("".join(n + "\n" for n in order))
print(f"layout/hot.order: {len(seen)} functions run, {len(order)} listed", file=sys.stderr)
PY
