#!/usr/bin/env bash
# Fetches a real OCI registry for the chart-source tests: Debian's `docker-registry` package (the CNCF
# distribution registry 2.8), downloaded with `apt-get download` and unpacked with `dpkg-deb -x` (no root, no
# installation). Idempotent: a cache that already holds the binary is left as it is.
#
# Usage: scripts/fetch-registry.sh [CACHE_DIR]    (default: target/peers; prints the binary's path on stdout)
# Tests look in $BERTH_PEERS_DIR, else target/peers, and skip (with a printed note) when this script fails.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cache="${1:-${BERTH_PEERS_DIR:-$root/target/peers}}"
mkdir -p "$cache"
cache="$(cd "$cache" && pwd)"

if [ -x "$cache/docker-registry" ]; then
  echo "$cache/docker-registry"
  exit 0
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get download docker-registry >/dev/null 2>&1) || {
  echo "apt-get download docker-registry failed (is the package in the APT sources? try apt-get update)" >&2
  exit 1
}
dpkg-deb -x "$work"/docker-registry_*.deb "$work/root"
install -m 0755 "$work/root/usr/bin/docker-registry" "$cache/docker-registry"
"$cache/docker-registry" --version >&2
echo "$cache/docker-registry"
