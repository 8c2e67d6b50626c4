#!/usr/bin/env bash
# README command 1 on a fresh Debian, timed: `bash scripts/setup.sh && node bin/memrl.js
# run bcb --epochs 3 --limit 50` in a new container from memrl/debian:bookworm, the
# debootstrap root filesystem of scripts/setup/rootfs.sh (a minimal Debian: no Python,
# no compiler). The commit at HEAD is what the container gets, as a fresh clone would.
# Node comes from this machine (the README assumes Node >= 20 is installed), and so do
# ../shared (read-only) and, behind a proxy that re-signs TLS, the CA bundle it trusts.
# Prints where the time went next to the goal (8 minutes). Asserts nothing.
#   npm run bench:fresh      (needs Podman and the image: bash scripts/setup.sh test)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
# shellcheck source=setup/lib.sh
. "$here/setup/lib.sh"

image=memrl/debian:bookworm
command -v podman >/dev/null 2>&1 || die "bench:fresh needs Podman: bash scripts/setup.sh podman"
podman image exists "$image" || die "bench:fresh needs the image $image: bash scripts/setup.sh rootfs images"
[ -d "$repo/../shared/data" ] || die "bench:fresh needs the data in $repo/../shared/data"

work=$(mktemp -d -t memrl-bench-fresh.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/main"
git -C "$repo" archive HEAD | tar -x -C "$work/main"

node_bin=$(node -p process.execPath)
node_prefix=$(node -p "require('path').resolve(process.execPath, '..', '..')")
npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
args=(-v "$node_bin:/usr/bin/node:ro" -v "$npm_dir:/usr/lib/node_modules/npm:ro" -v "$work:/work" -v "$(cd "$repo/../shared" && pwd):/work/shared:ro")
# Node's headers, as Debian's and NodeSource's packages install them (better-sqlite3 may compile against them).
[ -f "$node_prefix/include/node/node_api.h" ] && args+=(-v "$node_prefix/include/node:/usr/include/node:ro")
if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -f "$NODE_EXTRA_CA_CERTS" ]; then
  args+=(-v "$NODE_EXTRA_CA_CERTS:/etc/memrl-host-ca.crt:ro" -e NODE_EXTRA_CA_CERTS=/etc/memrl-host-ca.crt -e npm_config_cafile=/etc/memrl-host-ca.crt)
fi

cat >"$work/command1.sh" <<'EOF'
set -eo pipefail
ln -sf /usr/lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm
ln -sf /usr/lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx
cd /work/main
dpkg-query -W -f='.' | wc -c >/work/packages-before
start=$(date +%s)
bash scripts/setup.sh 2>&1 | while IFS= read -r line; do echo "$(($(date +%s) - start)) $line"; done >/work/setup.log
setup_end=$(date +%s)
node bin/memrl.js run bcb --epochs 3 --limit 50 >/work/run.out 2>/work/run.log &
pid=$!
until grep -q 'epoch 1/' /work/run.log 2>/dev/null || ! kill -0 "$pid" 2>/dev/null; do sleep 0.5; done
first=$(date +%s)
rc=0
wait "$pid" || rc=$?
end=$(date +%s)
echo "$((setup_end - start)) $((first - start)) $((end - start)) $rc" >/work/times
EOF

log "bench:fresh: README command 1 in a new $image container (its log: $work/setup.log, kept until this ends)"
podman run --rm --privileged "${args[@]}" "$image" bash /work/command1.sh || {
  tail -n 30 "$work/setup.log" "$work/run.log" 2>/dev/null >&2
  die "bench:fresh: README command 1 failed in the container"
}
read -r setup first total rc <"$work/times"
node_at=$(awk '$0 ~ /\[setup\] == node$/ { print $1; exit }' "$work/setup.log")
[ "$rc" -eq 0 ] || {
  tail -n 30 "$work/run.log" >&2
  die "bench:fresh: the main job exited $rc"
}
printf 'fresh Debian: %s packages before setup; Node %s from this machine; %s cores\n' "$(cat "$work/packages-before")" "$(node --version)" "$(nproc)"
printf '  setup, system-bcb (apt: bubblewrap, Python libraries)  %4d s\n' "$node_at"
printf '  setup, node (npm install, build)                        %4d s\n' "$((setup - node_at))"
printf '  main job: first epoch printed at                        %4d s\n' "$first"
printf '  README command 1, total                                 %4d s   goal <= 480 s\n' "$total"
grep '^done:' "$work/run.log" | sed 's/^/  /'
