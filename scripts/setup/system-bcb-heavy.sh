#!/usr/bin/env bash
# Setup piece: the BigCodeBench libraries whose Debian packages are out of proportion to
# the tasks that use them (bcb-heavy-packages.txt says which and why).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

mapfile -t pkgs < <(read_package_list "$here/bcb-heavy-packages.txt")
log "bcb-heavy: ${pkgs[*]}"
APT_NO_RECOMMENDS=1 apt_install_missing "${pkgs[@]}"
