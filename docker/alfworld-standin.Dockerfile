# The offline household stand-in behind the same bridge, in a container: python3 only
# (memrl copies the bridge and the stand-in in at start). What tests and machines
# without ALFWorld use with `--evaluator docker`.
ARG BASE=debian:bookworm
FROM ${BASE}
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends python3 \
 && rm -rf /var/lib/apt/lists/*
CMD ["sleep", "infinity"]
