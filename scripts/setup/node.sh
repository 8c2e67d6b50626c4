#!/usr/bin/env bash
# Setup piece: Node dependencies (npm install when node_modules is missing or stale) and the build.
#   node.sh            all three steps in order
#   node.sh tools      git, and what a native module needs to compile (apt, only where missing)
#   node.sh deps       npm install from the lock, when node_modules is missing or stale
#   node.sh build      npm run build
# setup.sh runs `deps` in the background while the system packages install (setup.sh).
set -euo pipefail
step=${1:-all}
case "$step" in all | tools | deps | build) ;; *) printf '[setup] error: node.sh: unknown step %s (tools, deps, build)\n' "$step" >&2; exit 1 ;; esac
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
if [ "$step" = all ] || [ "$step" = tools ]; then
  tools=()
  command -v git >/dev/null 2>&1 || tools+=(git)
  # better-sqlite3 (ours, and mem0ai's) downloads a prebuilt binary from GitHub, and
  # compiles itself where GitHub is out of reach: that needs a C++ compiler, make and
  # Node's headers (those of the installed Node, so node-gyp need not download them).
  # A machine that reaches only the npm registry and Debian's archive gets them here.
  command -v g++ >/dev/null 2>&1 && command -v make >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 ||
    tools+=(g++ make python3)
  [ "${#tools[@]}" -eq 0 ] || APT_NO_RECOMMENDS=1 apt_install_missing "${tools[@]}"
fi

# When run through sudo, build as the invoking user so the checkout stays theirs.
as_owner() {
  if [ "$(id -u)" -eq 0 ] && [ -n "${SUDO_USER:-}" ] && [ "$SUDO_USER" != root ]; then
    sudo -u "$SUDO_USER" -- "$@"
  else
    "$@"
  fi
}

stamp=node_modules/.package-lock.json   # written by npm after every install
if [ "$step" = all ] || [ "$step" = deps ]; then
  if [ ! -f "$stamp" ] || [ package-lock.json -nt "$stamp" ] || [ package.json -nt "$stamp" ]; then
    # `npm install` with the committed lock installs exactly the locked versions. Not
    # `npm ci`: npm 11 rejects a lock that lacks other platforms' optional packages
    # (rollup's), which npm itself omits on some configurations.
    npm_args=(--no-audit --no-fund)
    nodedir=$(node -p "require('path').resolve(process.execPath, '..', '..')")
    [ -f "$nodedir/include/node/node_api.h" ] && npm_args+=(--nodedir="$nodedir")
    log "node: npm install from package-lock.json (node_modules missing or older than the lock)"
    as_owner npm install "${npm_args[@]}"
  else
    log "node: node_modules up to date"
  fi
fi

if [ "$step" = all ] || [ "$step" = build ]; then
  log "node: npm run build"
  as_owner npm run --silent build
fi
