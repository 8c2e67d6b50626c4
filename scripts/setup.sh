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
all_pieces=(system-bcb browser mariadb redis rootfs podman images node)
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
  script="$here/setup/$piece.sh"
  [ -f "$script" ] || die "unknown setup piece '$piece' (groups: main, test; pieces: ${all_pieces[*]})"
  log "== $piece"
  bash "$script"
done
log "done: ${pieces[*]}"
if [ "$#" -eq 0 ]; then
  log "the other pieces (LLB's MariaDB and root filesystem, Redis, Podman and images, Chromium) come with: bash scripts/setup.sh <piece>, or all of them with: bash scripts/setup.sh test"
fi
