#!/usr/bin/env bash
# Setup piece: a container engine for `--evaluator docker`, without Docker: Podman
# serving the Docker-compatible API on a unix socket, which dockerode talks to.
#   1. installs podman and runc (Debian packages);
#   2. sets the two engine options these machines need in /etc/containers/containers.conf
#      (no default ulimits: the outer sandbox forbids raising them; runtime runc);
#   3. starts `podman system service` on MEMRL_PODMAN_SOCKET (default /run/podman/podman.sock,
#      where memrl looks by default) unless something already answers there.
# Machines with a Docker daemon do not need this piece: memrl uses DOCKER_HOST or
# /var/run/docker.sock first.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

sock=${MEMRL_PODMAN_SOCKET:-/run/podman/podman.sock}
apt_install_missing podman runc

conf=/etc/containers/containers.conf
if [ -f "$conf" ] && grep -q '^default_ulimits *= *\[\]' "$conf" && grep -q '^runtime *= *"runc"' "$conf"; then
  log "podman: $conf already set"
else
  # Keep whatever else is in the file; our two keys go in their own tables at the end
  # unless the tables exist already (then we only refuse to guess and say so).
  if [ -f "$conf" ] && grep -qE '^\[(containers|engine)\]' "$conf"; then
    die "podman: $conf has [containers]/[engine] tables; add 'default_ulimits = []' under [containers] and 'runtime = \"runc\"' under [engine] by hand"
  fi
  as_root mkdir -p /etc/containers
  printf '\n# memrl (scripts/setup/podman.sh)\n[containers]\ndefault_ulimits = []\n\n[engine]\nruntime = "runc"\n' | as_root tee -a "$conf" >/dev/null
  log "podman: wrote default_ulimits and runtime to $conf"
fi

answers() { curl -fsS --max-time 5 --unix-socket "$sock" http://d/_ping >/dev/null 2>&1; }
command -v curl >/dev/null 2>&1 || apt_install_missing curl
if answers; then
  log "podman: API already answering at $sock"
  exit 0
fi
as_root mkdir -p "$(dirname "$sock")"
as_root rm -f "$sock"
# From /: conmon writes marker files (e.g. "oom" after a container's OOM kill) into the
# working directory it inherits, which must not be the caller's checkout.
as_root sh -c "cd / && setsid nohup podman system service --time=0 unix://$sock >/var/log/memrl-podman-service.log 2>&1 < /dev/null &"
for _ in $(seq 1 50); do
  answers && { log "podman: API started at $sock (log /var/log/memrl-podman-service.log)"; exit 0; }
  sleep 0.2
done
tail -n 20 /var/log/memrl-podman-service.log >&2 || true
die "podman: the API service did not answer at $sock within 10 s"
