#!/usr/bin/env bash
# Setup piece: Node dependencies (npm ci when node_modules is missing or stale) and the build.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
root=$(cd "$here/../.." && pwd)
cd "$root"

command -v node >/dev/null 2>&1 || die "node not found: install Node >= 20 first"
major=$(node -p 'process.versions.node.split(".")[0]')
[ "$major" -ge 20 ] || die "Node $(node --version) is too old: need >= 20"

# git: run.json records the checkout's commit, and `memrl prompts import` the reference
# checkout's. A tarball of the repository on a minimal Debian comes without it.
command -v git >/dev/null 2>&1 || APT_NO_RECOMMENDS=1 apt_install_missing git

# When run through sudo, build as the invoking user so the checkout stays theirs.
as_owner() {
  if [ "$(id -u)" -eq 0 ] && [ -n "${SUDO_USER:-}" ] && [ "$SUDO_USER" != root ]; then
    sudo -u "$SUDO_USER" -- "$@"
  else
    "$@"
  fi
}

stamp=node_modules/.package-lock.json   # written by npm after every install
if [ ! -f "$stamp" ] || [ package-lock.json -nt "$stamp" ] || [ package.json -nt "$stamp" ]; then
  # `npm install` with the committed lock installs exactly the locked versions. Not
  # `npm ci`: npm 11 rejects a lock that lacks other platforms' optional packages
  # (rollup's), which npm itself omits on some configurations.
  # better-sqlite3 (ours, and mem0ai's) downloads a prebuilt binary from GitHub, and
  # compiles itself where GitHub is out of reach: that needs a C++ compiler, make and
  # Node's headers (those of the installed Node, so node-gyp need not download them).
  # A machine that reaches only the npm registry and Debian's archive gets them here.
  command -v g++ >/dev/null 2>&1 && command -v make >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 ||
    APT_NO_RECOMMENDS=1 apt_install_missing g++ make python3
  npm_args=(--no-audit --no-fund)
  nodedir=$(node -p "require('path').resolve(process.execPath, '..', '..')")
  [ -f "$nodedir/include/node/node_api.h" ] && npm_args+=(--nodedir="$nodedir")
  log "node: npm install from package-lock.json (node_modules missing or older than the lock)"
  as_owner npm install "${npm_args[@]}"
else
  log "node: node_modules up to date"
fi

log "node: npm run build"
as_owner npm run --silent build
