#!/usr/bin/env bash
# MariaDB for LifelongAgentBench db (`memrl run llb --task db`, `memrl check-gold llb --task db`).
# Idempotent:
#   1. installs mariadb-server + mariadb-client when missing (apt-get update only then);
#   2. starts the server when it is not answering (no systemd needed: `service mariadb start`,
#      else mysqld_safe in the background with the Debian defaults), waits for the socket;
#   3. nothing else: memrl connects as the OS user root through the unix_socket plugin
#      (Debian's default for root@localhost), at MEMRL_MYSQL_SOCKET or /run/mysqld/mysqld.sock.
#      Each task then gets its own database and a user limited to it (src/env/sql/).
# CI machines lose running processes between sessions: rerun this piece to restart the server.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

sock=${MEMRL_MYSQL_SOCKET:-/run/mysqld/mysqld.sock}

apt_install_missing mariadb-server mariadb-client

client=$(command -v mariadb || command -v mysql || true)
[ -n "$client" ] || die "mariadb client not found after install"

answers() { as_root "$client" --protocol=socket -S "$sock" -u root -N -e 'SELECT 1' >/dev/null 2>&1; }

if answers; then
  log "mariadb already running ($sock)"
else
  as_root mkdir -p "$(dirname "$sock")"
  as_root chown mysql:mysql "$(dirname "$sock")" 2>/dev/null || true
  if ! as_root service mariadb start >/dev/null 2>&1; then
    log "service mariadb start failed; launching mysqld_safe in the background"
    as_root sh -c 'nohup mysqld_safe >/var/log/memrl-mysqld_safe.log 2>&1 &'
  fi
  for _ in $(seq 1 60); do
    answers && break
    sleep 0.5
  done
  answers || die "mariadb did not answer on $sock (see /var/log/mysql/error.log, /var/log/memrl-mysqld_safe.log)"
  log "mariadb started ($sock)"
fi
as_root "$client" --protocol=socket -S "$sock" -u root -N -e 'SELECT VERSION()' | sed 's/^/[setup] server version: /'
