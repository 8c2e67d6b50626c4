#!/usr/bin/env bash
# Setup piece: the evaluator images of `--evaluator docker`, built locally (no registry
# needed) by scripts/build-images.sh; unchanged images are skipped.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
exec bash "$here/../build-images.sh"
