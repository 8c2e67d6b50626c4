#!/usr/bin/env bash
# Setup piece: bubblewrap and Debian's python3 with the libraries BigCodeBench tests import.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

list="$here/bcb-packages.txt"
heavy="$here/bcb-heavy-packages.txt"
# The full list (the image installs all of it), less the heavy ones: a piece of their own.
mapfile -t heavy_pkgs < <(read_package_list "$heavy")
mapfile -t pkgs < <(read_package_list "$list" | grep -vxF -f <(printf '%s\n' "${heavy_pkgs[@]}"))
log "bcb: ${#pkgs[@]} packages from ${list#"$PWD"/} (not the ${#heavy_pkgs[@]} of ${heavy#"$PWD"/})"
# Without recommended packages: 698 packages instead of 1113 in the image, the same
# verdicts on all 1140 gold solutions (src/bench/bcb/README.md).
APT_NO_RECOMMENDS=1 apt_install_missing "${pkgs[@]}"

# Report what the sandbox will lack, so a lower gold pass rate is no surprise.
mapfile -t lacking < <(read_missing_list "$list")
[ "${#lacking[@]}" -gt 0 ] && log "bcb: not packaged by Debian (tasks using them fail): ${lacking[*]}"
left=()
for p in "${heavy_pkgs[@]}"; do deb_installed "$p" || left+=("$p"); done
[ "${#left[@]}" -gt 0 ] && log "bcb: left out, for a few tasks each (bash scripts/setup.sh system-bcb-heavy installs them): ${left[*]}"

command -v bwrap >/dev/null 2>&1 || die "bwrap still missing after install"
[ -x /usr/bin/python3 ] || die "/usr/bin/python3 still missing after install"
# memrl runs bwrap as an unprivileged user (as root it switches to nobody first),
# which needs unprivileged user namespaces: some kernels and containers disable them.
probe=(bwrap --unshare-all --unshare-user --ro-bind / / /bin/true)
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1; then
  probe=(setpriv --reuid=65534 --regid=65534 --clear-groups -- "${probe[@]}")
fi
if "${probe[@]}" 2>/dev/null; then
  log "bcb: bwrap works ($(bwrap --version))"
else
  warn "bwrap is installed but cannot create namespaces here; enable unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1) or use the container backend"
fi
