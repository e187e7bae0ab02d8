#!/usr/bin/env bash
# Regenerates the expected outputs of the crypto probes from real Helm (v4.1.4, Sprig v3.3.0):
#   crypto-*/expected.yaml   `helm template probe crypto-X` of each probe chart
#   crypto-errors/expected.tsv  for each line of crypto-errors/cases.tsv, the error Helm reports for
#                               `v: {{ expression }}` (the text after `error calling NAME: `, or the last line
#                               of Helm's multi-line errors)
# The Helm binary is $HELM, else the one scripts/fetch-peers.sh provides. Each run gets its own HOME.
#
# Usage: crates/berth-template/tests/probes/regen-crypto.sh
set -euo pipefail

probes="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$probes/../../../.." && pwd)"
helm="${HELM:-$(bash "$root/scripts/fetch-peers.sh")/helm}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

run_helm() {
  HOME="$work/home" HELM_CACHE_HOME="$work/home/cache" HELM_CONFIG_HOME="$work/home/config" \
    HELM_DATA_HOME="$work/home/data" "$helm" "$@"
}

for chart in "$probes"/crypto-*/; do
  [ -f "$chart/Chart.yaml" ] || continue
  run_helm template probe "$chart" > "$chart/expected.yaml"
  echo "wrote ${chart#"$probes"/}expected.yaml" >&2
done

cases="$probes/crypto-errors/cases.tsv"
expected="$probes/crypto-errors/expected.tsv"
printf '# name<TAB>the error Helm %s reports for the expression of the same name in cases.tsv\n' \
  "$(run_helm version --template '{{.Version}}')" > "$expected"
while IFS=$'\t' read -r name expression; do
  case "$name" in ''|'#'*) continue ;; esac
  chart="$work/$name"
  mkdir -p "$chart/templates"
  printf 'apiVersion: v2\nname: probe\nversion: 0.1.0\n' > "$chart/Chart.yaml"
  printf 'v: {{ %s }}\n' "$expression" > "$chart/templates/probe.yaml"
  if run_helm template probe "$chart" > "$work/out" 2> "$work/err"; then
    echo "case $name rendered without an error:" >&2
    cat "$work/out" >&2
    exit 1
  fi
  message="$(python3 - "$work/err" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8", errors="surrogateescape").read()
lines = [line for line in text.splitlines() if line.strip() and not line.startswith("Use --debug")]
match = re.search(r"error calling \w+: (.*)", lines[0])
print(match.group(1) if match else lines[-1].strip())
PY
)"
  printf '%s\t%s\n' "$name" "$message" >> "$expected"
done < "$cases"
echo "wrote crypto-errors/expected.tsv" >&2
