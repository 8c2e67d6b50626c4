#!/usr/bin/env bash
# Builds the evaluator images of `--evaluator docker` from docker/*.Dockerfile.
#   bash scripts/build-images.sh            bcb, llb-os, llb-db-mariadb, alfworld-standin
#   bash scripts/build-images.sh bcb llb-os  only these
#   bash scripts/build-images.sh alfworld    the real ALFWorld image (needs PyPI and GitHub)
# Idempotent: an image whose recipe (Dockerfile, its inputs, base image) is unchanged
# is skipped. The engine CLI is podman when present, else docker (MEMRL_ENGINE_CLI).
#
# Base image: MEMRL_IMAGE_BASE when set (e.g. debian:bookworm from a registry);
# otherwise, when the local Debian root filesystem of scripts/setup/rootfs.sh exists,
# it is imported as memrl/debian:bookworm, so no registry is needed; otherwise
# debian:bookworm is pulled.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
# shellcheck source=setup/lib.sh
. "$here/setup/lib.sh"

cli=${MEMRL_ENGINE_CLI:-}
if [ -z "$cli" ]; then
  if command -v podman >/dev/null 2>&1; then cli=podman; elif command -v docker >/dev/null 2>&1; then cli=docker; fi
fi
[ -n "$cli" ] || die "images: neither podman nor docker found; install Podman with: bash scripts/setup.sh podman"

all=(bcb llb-os llb-db-mariadb alfworld-standin)
targets=("$@")
[ "${#targets[@]}" -eq 0 ] && targets=("${all[@]}")

image_label() { "$cli" image inspect --format "{{ index .Config.Labels \"$2\" }}" "$1" 2>/dev/null || true; }
image_id() { "$cli" image inspect --format '{{.Id}}' "$1" 2>/dev/null || true; }

# The base: a registry image, or the local rootfs imported with its uids unshifted.
base=${MEMRL_IMAGE_BASE:-}
if [ -z "$base" ]; then
  rootfs=${MEMRL_ROOTFS:-/var/lib/memrl/rootfs-bookworm}
  uid_base=${MEMRL_ROOTFS_UID_BASE:-100000}
  if [ -f "$rootfs.stamp" ]; then
    base=memrl/debian:bookworm
    stamp=$(sha256sum "$rootfs.stamp" | cut -c1-16)
    if [ "$(image_label "$base" dev.memrl.recipe)" = "$stamp" ]; then
      log "images: $base is current (from $rootfs)"
    else
      log "images: importing $rootfs as $base"
      # The tree is stored shifted by uid_base for the local user-namespace sandbox;
      # an image wants real ids (root = 0).
      python3 - "$rootfs" "$uid_base" <<'PY' | "$cli" import --change 'CMD ["sleep", "infinity"]' --change "LABEL dev.memrl.recipe=$stamp" - "$base" >/dev/null
import sys, tarfile
root, shift = sys.argv[1], int(sys.argv[2])
def unshift(ti):
    ti.uid = ti.uid - shift if ti.uid >= shift else ti.uid
    ti.gid = ti.gid - shift if ti.gid >= shift else ti.gid
    ti.uname = ti.gname = ''
    return ti
with tarfile.open(fileobj=sys.stdout.buffer, mode='w|') as tar:
    tar.add(root, arcname='.', filter=unshift)
PY
    fi
  else
    base=debian:bookworm
  fi
fi
base_id=$(image_id "$base")
[ -n "$base_id" ] || base_id=$base

build() {
  local name=$1 file=$2 tag=$3
  shift 3
  local recipe
  recipe=$( { cat "$repo/docker/$file"; for input in "$@"; do cat "$repo/$input"; done; echo "$base_id"; } | sha256sum | cut -c1-16)
  if [ "$(image_label "$tag" dev.memrl.recipe)" = "$recipe" ]; then
    log "images: $tag is current"
    return 0
  fi
  local blog
  blog=$(mktemp -t "memrl-image-$name.XXXXXX.log")
  log "images: building $tag from docker/$file on $base (output in $blog)"
  local started=$SECONDS
  # The host's network for the build steps (apt): a container network's DNS does not work
  # everywhere (inside another container, for one), and the recipes are ours.
  if ! "$cli" build --network host -f "$repo/docker/$file" --build-arg "BASE=$base" --label "dev.memrl.recipe=$recipe" -t "$tag" "$repo" >"$blog" 2>&1; then
    tail -n 20 "$blog" >&2
    die "images: building $tag failed (full output: $blog)"
  fi
  log "images: built $tag in $((SECONDS - started)) s"
}

for t in "${targets[@]}"; do
  case "$t" in
    bcb) build bcb bcb.Dockerfile memrl/bcb:latest scripts/setup/bcb-packages.txt ;;
    llb-os) build llb-os llb-os.Dockerfile memrl/llb-os:latest ;;
    llb-db-mariadb) build llb-db-mariadb llb-db-mariadb.Dockerfile memrl/llb-db-mariadb:latest ;;
    alfworld-standin) build alfworld-standin alfworld-standin.Dockerfile memrl/alfworld-standin:latest ;;
    alfworld) MEMRL_IMAGE_BASE=${MEMRL_IMAGE_BASE:-python:3.10-slim} build alfworld alfworld.Dockerfile memrl/alfworld:latest ;;
    *) die "images: unknown image '$t' (known: ${all[*]} alfworld)" ;;
  esac
done
