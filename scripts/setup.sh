#!/usr/bin/env bash
# Machine setup for memrl. Idempotent: each piece skips what is already there.
#   bash scripts/setup.sh             what the main job needs (`memrl run bcb`, local sandbox): system-bcb node
#   bash scripts/setup.sh test        everything the test suite needs (every piece)
#   bash scripts/setup.sh mariadb …   only the named pieces (files in scripts/setup/)
# Run as root, or as a user with sudo (system packages are installed through it).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=setup/lib.sh
. "$here/setup/lib.sh"

# Order matters: system packages first, the build last.
all_pieces=(system-bcb system-bcb-heavy browser mariadb redis rootfs podman images node)
main_pieces=(system-bcb node)

pieces=()
if [ "$#" -eq 0 ]; then
  pieces=("${main_pieces[@]}")
else
  for arg in "$@"; do
    case "$arg" in
      main) pieces+=("${main_pieces[@]}") ;;
      test | all) pieces+=("${all_pieces[@]}") ;;
      *) pieces+=("$arg") ;;
    esac
  done
fi

for piece in "${pieces[@]}"; do
  [ -f "$here/setup/$piece.sh" ] || die "unknown setup piece '$piece' (groups: main, test; pieces: ${all_pieces[*]})"
done

# One apt-get update for all the pieces (lib.sh, apt_update_once).
MEMRL_APT_STAMP=$(mktemp -t memrl-setup-apt-updated.XXXXXX)
export MEMRL_APT_STAMP
npm_pid=
npm_log=
# A piece that fails stops the npm install too (npm first: it would outlive its shell).
trap 'rm -f "$MEMRL_APT_STAMP"; [ -z "$npm_pid" ] || { pkill -TERM -P "$npm_pid"; kill "$npm_pid"; rm -f "$npm_log"; } 2>/dev/null || true' EXIT

# npm install needs nothing of the system pieces but a compiler and git, and takes minutes
# on a fresh machine (better-sqlite3 compiles there): with those installed first, it runs
# beside the other pieces' apt installs, and the node piece's build waits for it.
if [ "${#pieces[@]}" -gt 1 ] && [[ " ${pieces[*]} " == *" node "* ]]; then
  log "== node (tools, then npm install beside the other pieces)"
  bash "$here/setup/node.sh" tools
  npm_log=$(mktemp -t memrl-setup-npm.XXXXXX.log)
  log "node: npm install runs in the background (output in $npm_log)"
  bash "$here/setup/node.sh" deps >"$npm_log" 2>&1 &
  npm_pid=$!
fi

for piece in "${pieces[@]}"; do
  log "== $piece"
  if [ "$piece" = node ] && [ -n "$npm_pid" ]; then
    pid=$npm_pid
    npm_pid=
    if ! wait "$pid"; then
      tail -n 20 "$npm_log" >&2
      die "npm install failed (full output: $npm_log)"
    fi
    grep '^\[setup\]' "$npm_log" || true
    rm -f "$npm_log"
    bash "$here/setup/node.sh" build
  else
    bash "$here/setup/$piece.sh"
  fi
done
log "done: ${pieces[*]}"
if [ "$#" -eq 0 ]; then
  log "the other pieces (BigCodeBench's heavy libraries, LLB's MariaDB and root filesystem, Redis, Podman and images, Chromium) come with: bash scripts/setup.sh <piece>, or all of them with: bash scripts/setup.sh test"
fi
