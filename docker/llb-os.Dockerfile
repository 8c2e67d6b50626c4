# LifelongAgentBench os_interaction image for `--evaluator docker`: a plain
# distribution with the tools the tasks use (the same list as the local root
# filesystem in scripts/setup/rootfs.sh). Tasks run as root inside, with no network.
# LLB itself uses ubuntu; BASE=ubuntu:22.04 works with the same list.
ARG BASE=debian:bookworm
FROM ${BASE}
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    procps adduser passwd acl zsh bc gawk vim less file tar gzip bzip2 xz-utils diffutils \
    hostname sudo psmisc cron zip unzip tree \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /root
CMD ["sleep", "infinity"]
