# A MySQL-compatible server image for LifelongAgentBench db, for machines without a
# registry (the default image is the official mysql:8). MariaDB with the data
# directory initialised at build time so a container answers within seconds.
# Root logs in over the unix socket (unix_socket auth), as with the local backend.
ARG BASE=debian:bookworm
FROM ${BASE}
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends mariadb-server mariadb-client \
 && rm -rf /var/lib/apt/lists/* /var/lib/mysql/* \
 && mariadb-install-db --user=mysql --datadir=/var/lib/mysql --skip-test-db >/dev/null \
 && mkdir -p /run/mysqld && chown mysql:mysql /run/mysqld
CMD ["mariadbd", "--user=mysql", "--bind-address=127.0.0.1", "--socket=/run/mysqld/mysqld.sock"]
