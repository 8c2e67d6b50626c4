#!/usr/bin/env bash
# Setup piece: a small Debian 12 (bookworm) root filesystem for the LifelongAgentBench
# os tasks (src/env/shell/). Built once with debootstrap; reruns skip it.
#   MEMRL_ROOTFS      where to build it (default /var/lib/memrl/rootfs-bookworm)
#   MEMRL_ROOTFS_MIRROR  Debian mirror (default: the one apt uses here)
#
# The sandbox runs each task as root inside a user namespace whose uids 0..65535
# map to host uids MEMRL_ROOTFS_UID_BASE..+65535 (default 100000..165535), so the
# files are stored shifted by that base: "root" inside owns the tree, and nothing
# in it belongs to the host's real root.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

dest=${MEMRL_ROOTFS:-/var/lib/memrl/rootfs-bookworm}
base=${MEMRL_ROOTFS_UID_BASE:-100000}
stamp="$dest.stamp"
# Tools the os tasks use beyond minbase (coreutils, findutils, grep, sed, util-linux,
# passwd, ... are already in it). vim, not vim-tiny: tasks script it with `vi -c 'call ...'`.
# Changing this list rebuilds the tree on the next run (the stamp records it).
include=procps,adduser,passwd,acl,zsh,bc,gawk,vim,less,file,tar,gzip,bzip2,xz-utils,diffutils,hostname,sudo,psmisc,cron,zip,unzip,tree

if [ -f "$stamp" ] && [ -x "$dest/bin/bash" ] && grep -qxF "include=$include" "$stamp"; then
  log "rootfs: already built at $dest ($(head -n 1 "$stamp"))"
  exit 0
fi
if [ -f "$stamp" ]; then log "rootfs: package list changed since the last build: rebuilding"; fi

command -v debootstrap >/dev/null 2>&1 || apt_install_missing debootstrap
command -v python3 >/dev/null 2>&1 || apt_install_missing python3

# The mirror apt uses: first bookworm "deb" source in sources.list(.d), deb822 or one-line.
mirror=${MEMRL_ROOTFS_MIRROR:-}
if [ -z "$mirror" ]; then
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    mirror=$(awk 'BEGIN{RS=""} /Suites:[^\n]*bookworm( |$|\n)/ && !/security/ { if (match($0, /URIs:[ \t]*[^ \t\n]+/)) { u=substr($0, RSTART, RLENGTH); sub(/URIs:[ \t]*/, "", u); print u; exit } }' "$f")
    [ -n "$mirror" ] && break
  done
fi
if [ -z "$mirror" ]; then
  mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null \
    | awk '$1=="deb" && $0 !~ /security/ { for (i=2;i<=NF;i++) if ($i ~ /^https?:/) { print $i; exit } }' || true)
fi
mirror=${mirror:-http://deb.debian.org/debian}
log "rootfs: building Debian bookworm in $dest from $mirror (uid base $base)"

started=$(date +%s)
tmp="$dest.partial"
as_root rm -rf "$tmp"
as_root mkdir -p "$(dirname "$dest")"
as_root chmod 755 "$(dirname "$dest")"
dblog=$(mktemp -t memrl-setup-debootstrap.XXXXXX.log)
log "rootfs: debootstrap (output in $dblog)"
if ! as_root debootstrap --variant=minbase --include="$include" bookworm "$tmp" "$mirror" >"$dblog" 2>&1; then
  tail -n 20 "$dblog" >&2
  die "debootstrap failed (full output: $dblog)"
fi

# Trim: package caches and lists are not needed (the sandbox has no network).
as_root rm -rf "$tmp"/var/cache/apt/archives/*.deb "$tmp"/var/lib/apt/lists/* "$tmp"/var/log/*.log
# A plain shell environment for root, like a fresh container.
printf 'sandbox\n' | as_root tee "$tmp/etc/hostname" >/dev/null
printf '127.0.0.1 localhost sandbox\n::1 localhost\n' | as_root tee "$tmp/etc/hosts" >/dev/null
as_root mkdir -p "$tmp/root" "$tmp/home"

# Shift every owner by the uid base, keeping setuid/setgid bits (chown clears them).
log "rootfs: shifting owners by $base"
as_root python3 - "$tmp" "$base" <<'PY'
import os, stat, sys
root, base = sys.argv[1], int(sys.argv[2])
def shift(p):
    st = os.lstat(p)
    if st.st_uid >= base:  # already shifted
        return
    os.lchown(p, st.st_uid + base, st.st_gid + base)
    if not stat.S_ISLNK(st.st_mode):
        os.chmod(p, stat.S_IMODE(st.st_mode))
shift(root)
for d, dirs, files in os.walk(root):
    for n in dirs + files:
        shift(os.path.join(d, n))
PY

# Swap in the new tree (sandboxes still running on the old one keep their files open).
as_root rm -rf "$dest.old"
if [ -e "$dest" ]; then as_root mv "$dest" "$dest.old"; fi
as_root mv "$tmp" "$dest"
as_root rm -rf "$dest.old"
size=$(du -sh "$dest" | cut -f1)
secs=$(( $(date +%s) - started ))
printf 'bookworm minbase, uid base %s, built %s in %ss, %s\ninclude=%s\n' "$base" "$(date -u +%FT%TZ)" "$secs" "$size" "$include" | as_root tee "$stamp" >/dev/null
log "rootfs: built $dest in ${secs}s ($size)"
