# Helpers shared by the setup pieces (sourced, not run).
# shellcheck shell=bash

log() { printf '[setup] %s\n' "$*"; }
warn() { printf '[setup] warning: %s\n' "$*" >&2; }
die() { printf '[setup] error: %s\n' "$*" >&2; exit 1; }

# Run a command as root: directly when we are root, through sudo otherwise.
as_root() {
  if [ "$(id -u)" -eq 0 ]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo "$@"
  else
    die "need root for: $* (run as root, or install sudo)"
  fi
}

# True when a Debian package is installed (not merely known or half-removed).
deb_installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

# The packages among the arguments that apt knows an installable version of, one per
# line: one apt-cache call for all (one per package took 12 s for the Python libraries).
debs_available() {
  apt-cache policy "$@" 2>/dev/null | awk '
    /^[^ ].*:$/ { name = substr($0, 1, length($0) - 1); sub(/:[a-z0-9]+$/, "", name) }
    /^  Candidate: / && $2 != "(none)" { print name }'
}

# Once per setup.sh run: its pieces are separate processes, so setup.sh hands them a
# file (MEMRL_APT_STAMP) the first update writes to.
_APT_UPDATED=0
apt_update_once() {
  if [ "$_APT_UPDATED" -eq 0 ] && ! [ -s "${MEMRL_APT_STAMP:-}" ]; then
    log "apt-get update"
    as_root apt-get update -qq >/dev/null || die "apt-get update failed"
    [ -z "${MEMRL_APT_STAMP:-}" ] || echo updated >"$MEMRL_APT_STAMP"
  fi
  _APT_UPDATED=1
}

# Install the given packages, skipping installed ones; apt-get update only if
# something is missing. Packages the distribution does not offer are reported and
# skipped, so one renamed package on another release does not block the rest.
# APT_NO_RECOMMENDS=1 apt_install_missing ...: only the packages and their dependencies,
# not what they recommend.
apt_install_missing() {
  local missing=() p
  for p in "$@"; do deb_installed "$p" || missing+=("$p"); done
  if [ "${#missing[@]}" -eq 0 ]; then
    log "all ${#@} packages already installed"
    return 0
  fi
  command -v apt-get >/dev/null 2>&1 || die "apt-get not found: this script supports Debian/Ubuntu; install manually: ${missing[*]}"
  apt_update_once
  local wanted=() unknown=() available
  available=" $(debs_available "${missing[@]}" | tr '\n' ' ') "
  for p in "${missing[@]}"; do
    if [[ "$available" == *" $p "* ]]; then wanted+=("$p"); else unknown+=("$p"); fi
  done
  [ "${#unknown[@]}" -gt 0 ] && warn "not offered by this distribution, skipped: ${unknown[*]}"
  if [ "${#wanted[@]}" -gt 0 ]; then
    # apt/dpkg chatter goes to a log file so the console keeps one line per step.
    local aptlog
    aptlog=$(mktemp -t memrl-setup-apt.XXXXXX.log)
    log "apt-get install ${#wanted[@]} packages (output in $aptlog): ${wanted[*]}"
    # No fsync per unpacked file (as Debian's own container images do): the Python
    # libraries unpack tens of thousands of files, and dpkg would wait for the disk on each.
    local opts=(-y -q -o Dpkg::Options::=--force-unsafe-io)
    [ "${APT_NO_RECOMMENDS:-}" = 1 ] && opts+=(--no-install-recommends)
    if ! as_root env DEBIAN_FRONTEND=noninteractive apt-get install "${opts[@]}" "${wanted[@]}" >"$aptlog" 2>&1; then
      tail -n 20 "$aptlog" >&2
      die "apt-get install failed (full output: $aptlog)"
    fi
  fi
}

# Package names from a list file: first word of each line, '#' comments and
# lines starting with '-' (libraries the distribution lacks) ignored.
read_package_list() {
  sed -e 's/#.*//' "$1" | awk 'NF && $1 !~ /^-/ { print $1 }'
}

# The '-' lines of a list file: libraries with no distribution package.
read_missing_list() {
  sed -e 's/#.*//' "$1" | awk '$1 == "-" { print $2 }'
}
