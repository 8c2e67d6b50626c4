#!/usr/bin/env bash
# Machine setup for memrl. Idempotent: each piece skips what is already there.
#   bash scripts/setup.sh             run every piece in order
#   bash scripts/setup.sh system-bcb  run only the named pieces (files in scripts/setup/)
# Run as root, or as a user with sudo (system packages are installed through it).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=setup/lib.sh
. "$here/setup/lib.sh"

# Order matters: system packages first, the build last.
all_pieces=(system-bcb browser mariadb redis rootfs podman images node)
pieces=("$@")
[ "${#pieces[@]}" -eq 0 ] && pieces=("${all_pieces[@]}")

for piece in "${pieces[@]}"; do
  script="$here/setup/$piece.sh"
  [ -f "$script" ] || die "unknown setup piece '$piece' (known: ${all_pieces[*]})"
  log "== $piece"
  bash "$script"
done
log "done: ${pieces[*]}"
