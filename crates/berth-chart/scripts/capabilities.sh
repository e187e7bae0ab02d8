#!/usr/bin/env bash
# Prints what real Helm puts in .Capabilities when rendering offline (the data of src/render/capabilities.rs).
# Usage: scripts/capabilities.sh [HELM]   (default: the helm the tests fetch, target/peers/helm)
set -euo pipefail
helm="${1:-$(cd "$(dirname "$0")/../../.." && pwd)/target/peers/helm}"
chart="$(mktemp -d)"
trap 'rm -rf "$chart"' EXIT
mkdir -p "$chart/templates"
printf 'apiVersion: v2\nname: capabilities\nversion: 0.1.0\n' > "$chart/Chart.yaml"
cat > "$chart/templates/capabilities.yaml" <<'TEMPLATE'
kubeVersion: {{ .Capabilities.KubeVersion | toJson }}
helmVersion: {{ .Capabilities.HelmVersion | toJson }}
apiVersions: {{ .Capabilities.APIVersions | toJson }}
TEMPLATE
HOME="$(mktemp -d)" "$helm" template capabilities "$chart"
