#!/usr/bin/env bash
# Regenerates the golden files of the probe charts by running real Helm v4.1.4, the reference for berth's template
# engine and functions. Never write goldens by hand.
#
#   tests/probes/regen.sh              every area chart below, then the engine's root chart (regen-root.sh)
#   tests/probes/regen.sh AREA...      only these area charts (directories of tests/probes holding a Chart.yaml)
#   tests/probes/regen.sh HELM         the root chart only, with that Helm binary (regen-root.sh's interface)
#
# Helm: $HELM, else the binary scripts/fetch-peers.sh provides. Parallel renders: $JOBS (default 2).
#
# An area is a chart (Chart.yaml, values.yaml, templates/). Every template templates/X.yaml is rendered on its own:
# the chart is copied to a scratch directory with that template alone (plus templates/_*.tpl helpers), so a probe
# that errors cannot hide the others, and `helm template probe DIR --show-only templates/X.yaml` runs with its own
# HOME. Helm's stdout goes to AREA/golden/X.yaml.out; when Helm fails, its stderr goes to AREA/golden/X.yaml.err
# and its exit code to AREA/golden/X.yaml.code.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../../.." && pwd)"

if [ "$#" -eq 1 ] && [ -f "$1" ] && [ -x "$1" ]; then
  exec "$here/regen-root.sh" "$1"
fi

helm="${HELM:-}"
if [ -z "$helm" ]; then
  helm="$("$root/scripts/fetch-peers.sh")/helm"
fi
"$helm" version --short | grep -q '^v4.1.4' || { echo "need Helm v4.1.4, got $("$helm" version --short)" >&2; exit 1; }
jobs="${JOBS:-2}"

with_root=0
if [ "$#" -eq 0 ]; then
  with_root=1
  set -- $(cd "$here" && for d in */; do [ -f "$d/Chart.yaml" ] && echo "${d%/}"; done)
fi

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

render_one() {
  local area_dir="$1" template="$2" helm="$3" scratch="$4"
  local name chart out code=0
  name="$(basename "$template")"
  chart="$(mktemp -d "$scratch/chart.XXXXXX")"
  mkdir -p "$chart/templates"
  cp "$area_dir/Chart.yaml" "$area_dir/values.yaml" "$chart/"
  cp "$area_dir"/templates/_*.tpl "$chart/templates/" 2>/dev/null || true
  cp "$template" "$chart/templates/$name"
  out="$area_dir/golden/$name"
  rm -f "$out.out" "$out.err" "$out.code"
  HOME="$(mktemp -d "$scratch/home.XXXXXX")" "$helm" template probe "$chart" --show-only "templates/$name" \
    >"$out.out" 2>"$chart/stderr" || code=$?
  if [ "$code" -ne 0 ]; then
    cp "$chart/stderr" "$out.err"
    echo "$code" >"$out.code"
  fi
}
export -f render_one

for area in "$@"; do
  area_dir="$here/$area"
  [ -f "$area_dir/Chart.yaml" ] || { echo "regen.sh: $area_dir has no Chart.yaml" >&2; exit 2; }
  mkdir -p "$area_dir/golden"
  rm -f "$area_dir"/golden/*
  find "$area_dir/templates" -maxdepth 1 -type f -name '*.yaml' ! -name '_*' -print0 |
    xargs -0 -P "$jobs" -I{} bash -c 'render_one "$@"' _ "$area_dir" {} "$helm" "$scratch"
  echo "regen.sh: $area: $(ls "$area_dir/templates" | grep -c '\.yaml$') templates rendered"
done

if [ "$with_root" -eq 1 ]; then
  "$here/regen-root.sh" "$helm"
fi
