#!/usr/bin/env bash
# README command 1 or 2 on a fresh Debian, timed, in a new container from
# memrl/debian:bookworm, the debootstrap root filesystem of scripts/setup/rootfs.sh (a
# minimal Debian: no Python, no compiler):
#   1: `bash scripts/setup.sh && node bin/memrl.js run bcb --epochs 3 --limit 50`
#   2: `bash scripts/setup.sh test && npm test` (with CI=true: a missing part fails). The
#      container is privileged and its /var/lib/containers is a directory of this
#      machine, so Podman inside it can build and run the evaluator images.
# The commit at HEAD is what the container gets, as a fresh clone would. Node comes from
# this machine (the README assumes Node >= 20 is installed), and so do ../shared
# (read-only) and, behind a proxy that re-signs TLS, the CA bundle it trusts.
# Prints where the time went (for command 1, next to its goal of 8 minutes). Asserts nothing.
#   npm run bench:fresh [-- 2]      (needs Podman and the image: bash scripts/setup.sh test)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
# shellcheck source=setup/lib.sh
. "$here/setup/lib.sh"

image=memrl/debian:bookworm
which=${1:-1}
case "$which" in 1 | 2) ;; *) die "bench:fresh: give 1 or 2 (README command 1 or 2), not '$which'" ;; esac
command -v podman >/dev/null 2>&1 || die "bench:fresh needs Podman: bash scripts/setup.sh podman"
podman image exists "$image" || die "bench:fresh needs the image $image: bash scripts/setup.sh rootfs images"
[ -d "$repo/../shared/data" ] || die "bench:fresh needs the data in $repo/../shared/data"

work=$(mktemp -d -t memrl-bench-fresh.XXXXXX)
# BENCH_FRESH_KEEP=1 keeps the container's files (logs, the inner Podman's storage) for a look afterwards.
[ -n "${BENCH_FRESH_KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work/main"
git -C "$repo" archive HEAD | tar -x -C "$work/main"

node_bin=$(node -p process.execPath)
node_prefix=$(node -p "require('path').resolve(process.execPath, '..', '..')")
npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
args=(-v "$node_bin:/usr/bin/node:ro" -v "$npm_dir:/usr/lib/node_modules/npm:ro" -v "$work:/work" -v "$(cd "$repo/../shared" && pwd):/work/shared:ro")
# Node's headers, as Debian's and NodeSource's packages install them (better-sqlite3 may compile against them).
[ -f "$node_prefix/include/node/node_api.h" ] && args+=(-v "$node_prefix/include/node:/usr/include/node:ro")
# This machine's pip reads a local wheel mirror (its config and folders), as a machine of
# this kind has it: the tests install their readers (tensorboard, pyarrow) from it.
for f in /etc/pip.conf /etc/xdg/pip /root/.config/pip /opt/wheels /opt/pypi /opt/pypi-more; do
  [ -e "$f" ] && args+=(-v "$f:$f:ro")
done
while IFS= read -r var; do args+=(-e "$var"); done < <(env | grep -o '^PIP_[A-Z_]*' || true)
if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -f "$NODE_EXTRA_CA_CERTS" ]; then
  args+=(-v "$NODE_EXTRA_CA_CERTS:/etc/memrl-host-ca.crt:ro" -e NODE_EXTRA_CA_CERTS=/etc/memrl-host-ca.crt -e npm_config_cafile=/etc/memrl-host-ca.crt)
fi

cat >"$work/prelude.sh" <<'EOF'
set -eo pipefail
ln -sf /usr/lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm
ln -sf /usr/lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx
cd /work/main
dpkg-query -W -f='.' | wc -c >/work/packages-before
start=$(date +%s)
# Each line of setup's output with the second it came at; its own logs (apt, image builds) kept in /work/tmp.
mkdir -p /work/tmp
TMPDIR=/work/tmp bash scripts/setup.sh "$@" 2>&1 | while IFS= read -r line; do echo "$(($(date +%s) - start)) $line"; done >/work/setup.log
setup_end=$(date +%s)
EOF

cat >"$work/command2.sh" <<'EOF'
. /work/prelude.sh test
rc=0
CI=true npm test >/work/test.log 2>&1 || rc=$?
end=$(date +%s)
echo "$((setup_end - start)) $((end - start)) $rc" >/work/times
EOF

cat >"$work/command1.sh" <<'EOF'
. /work/prelude.sh
node bin/memrl.js run bcb --epochs 3 --limit 50 >/work/run.out 2>/work/run.log &
pid=$!
until grep -q 'epoch 1/' /work/run.log 2>/dev/null || ! kill -0 "$pid" 2>/dev/null; do sleep 0.5; done
first=$(date +%s)
rc=0
wait "$pid" || rc=$?
end=$(date +%s)
echo "$((setup_end - start)) $((first - start)) $((end - start)) $rc" >/work/times
EOF

if [ "$which" = 2 ]; then
  # Podman inside: its storage on a plain directory of this machine (overlay cannot stack on the container's own overlay).
  mkdir -p "$work/containers"
  args+=(-v "$work/containers:/var/lib/containers")
fi

log "bench:fresh: README command $which in a new $image container (its log: $work/setup.log, kept until this ends)"
podman run --rm --privileged "${args[@]}" "$image" bash "/work/command$which.sh" || {
  tail -n 30 "$work/setup.log" "$work/run.log" "$work/test.log" 2>/dev/null >&2
  die "bench:fresh: README command $which failed in the container"
}
if [ "$which" = 2 ]; then
  read -r setup total rc <"$work/times"
  printf 'fresh Debian: %s packages before setup; Node %s from this machine; %s cores\n' "$(cat "$work/packages-before")" "$(node --version)" "$(nproc)"
  # Each piece from its "== piece" line to the next one.
  awk -v end="$setup" '$2 == "[setup]" && $3 == "==" { if (name) printf "  setup, %-10s %5d s\n", name, $1 - at; name = $4; at = $1 } END { if (name) printf "  setup, %-10s %5d s\n", name, end - at }' "$work/setup.log"
  printf '  setup test, total    %5d s\n' "$setup"
  printf '  npm test             %5d s\n' "$((total - setup))"
  printf '  README command 2     %5d s\n' "$total"
  # vitest colours its summary even into a file.
  plain() { sed 's/\x1b\[[0-9;]*m//g' "$work/test.log"; }
  plain | grep -E '^ +(Test Files|Tests|Duration) ' | sed 's/^ */  /' || true
  [ "$rc" -eq 0 ] || {
    plain | grep -E '^ FAIL ' | head -n 40 >&2 || true
    die "bench:fresh: npm test exited $rc in the container"
  }
  exit 0
fi
read -r setup first total rc <"$work/times"
node_at=$(awk '$0 ~ /\[setup\] == node$/ { print $1; exit }' "$work/setup.log")
[ "$rc" -eq 0 ] || {
  tail -n 30 "$work/run.log" >&2
  die "bench:fresh: the main job exited $rc"
}
printf 'fresh Debian: %s packages before setup; Node %s from this machine; %s cores\n' "$(cat "$work/packages-before")" "$(node --version)" "$(nproc)"
printf '  setup, compiler; system-bcb (apt), npm install beside  %4d s\n' "$node_at"
printf '  setup, node (rest of npm install, build)                %4d s\n' "$((setup - node_at))"
printf '  main job: first epoch printed at                        %4d s\n' "$first"
printf '  README command 1, total                                 %4d s   goal <= 480 s\n' "$total"
grep '^done:' "$work/run.log" | sed 's/^/  /'
