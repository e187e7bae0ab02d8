#!/usr/bin/env bash
# Regenerates the golden outputs of the probe charts by running real Helm (v4.1.4): never write them by hand.
#
#   templates/X.yaml  -> golden/X.out          (stdout of `helm template probe . --show-only templates/X.yaml`)
#   errors/X.yaml     -> golden/errors/X.txt   (exit code and stderr of `helm template` on a chart holding
#                                               values.yaml, files/, templates/_helpers.tpl and X.yaml only)
#
# Usage: tests/probes/regen.sh [HELM]   (default: $HELM, else the binary scripts/fetch-peers.sh provides)
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../../.." && pwd)"
helm="${1:-${HELM:-}}"
if [ -z "$helm" ]; then
  helm="$("$root/scripts/fetch-peers.sh")/helm"
fi
"$helm" version --short | grep -q '^v4.1.4' || { echo "need Helm v4.1.4, got $("$helm" version --short)" >&2; exit 1; }

run_helm() {
  # Every run gets its own HOME, as Helm keeps caches there.
  local home
  home="$(mktemp -d)"
  HOME="$home" "$helm" template probe "$@"
  local status=$?
  rm -rf "$home"
  return $status
}

rm -f "$here"/golden/*.out "$here"/golden/errors/*.txt
mkdir -p "$here/golden/errors"

for file in "$here"/templates/*.yaml; do
  name="$(basename "$file" .yaml)"
  run_helm "$here" --show-only "templates/$name.yaml" > "$here/golden/$name.out"
done

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for file in "$here"/errors/*.yaml; do
  name="$(basename "$file" .yaml)"
  chart="$work/$name"
  mkdir -p "$chart/templates"
  cp "$here/Chart.yaml" "$here/values.yaml" "$chart/"
  cp "$here/templates/_helpers.tpl" "$chart/templates/"
  cp -r "$here/files" "$chart/"
  cp "$file" "$chart/templates/$name.yaml"
  set +e
  run_helm "$chart" > /dev/null 2> "$work/stderr"
  status=$?
  set -e
  { echo "exit=$status"; cat "$work/stderr"; } > "$here/golden/errors/$name.txt"
done
echo "regenerated $(ls "$here"/golden/*.out | wc -l) outputs and $(ls "$here"/golden/errors/*.txt | wc -l) errors" >&2
