#!/usr/bin/env bash
# Redis for distributed sweeps (`memrl sweep --queue redis://…`, `memrl worker`): the
# BullMQ queue lives there. Idempotent:
#   1. installs Debian's redis-server when missing;
#   2. starts it on 127.0.0.1:6379 when nothing answers there (no systemd needed).
# Tests start their own redis-server on a free port; they only need the binary.
# Workers on other machines point at the coordinator's Redis: bind it to a reachable
# address and set a password there (docs/scale.md), not here.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

apt_install_missing redis-server

answers() { redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null | grep -q PONG; }

if answers; then
  log "redis already running (127.0.0.1:6379)"
else
  if ! as_root service redis-server start >/dev/null 2>&1 || ! { sleep 0.5; answers; }; then
    log "service redis-server start failed; launching redis-server in the background"
    as_root redis-server --bind 127.0.0.1 --port 6379 --daemonize yes --logfile /var/log/memrl-redis.log >/dev/null
  fi
  for _ in $(seq 1 40); do
    answers && break
    sleep 0.25
  done
  answers || die "redis did not answer on 127.0.0.1:6379 (see /var/log/memrl-redis.log)"
  log "redis started (127.0.0.1:6379)"
fi
