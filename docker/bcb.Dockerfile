# BigCodeBench test image for `--evaluator docker`: Debian's python3 with the
# libraries BigCodeBench tests import, from the same list the local sandbox uses
# (scripts/setup/bcb-packages.txt), so both backends give the same verdicts.
# Without recommended packages, as on the host: 6.4 GB instead of 9.1, the same verdicts.
# Build from the repository root: docker build -f docker/bcb.Dockerfile -t memrl/bcb:latest .
# scripts/build-images.sh builds it with BASE = a local Debian root filesystem.
ARG BASE=debian:bookworm
FROM ${BASE}
COPY scripts/setup/bcb-packages.txt /tmp/bcb-packages.txt
RUN apt-get update \
 && sed -e 's/#.*//' /tmp/bcb-packages.txt | awk 'NF && $1 !~ /^-/ { print $1 }' \
    | xargs env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
 && rm -rf /var/lib/apt/lists/* /tmp/bcb-packages.txt
# The harness is sent with every test run; the container only needs python3.
USER 65534:65534
WORKDIR /tmp
CMD ["sleep", "infinity"]
