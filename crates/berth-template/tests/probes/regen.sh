#!/usr/bin/env bash
# Regenerates the golden files of the probe charts with real Helm (the reference for berth's template functions).
#
#   crates/berth-template/tests/probes/regen.sh [AREA...]     (default: every area directory)
#
# Each AREA is a chart (Chart.yaml, values.yaml, templates/). Every template templates/X.yaml is rendered on its
# own -- the chart is copied to a scratch directory with that template alone (plus templates/_*.tpl helpers), so
# a probe that errors cannot hide the others -- by `helm template probe DIR --show-only templates/X.yaml` with its
# own HOME. Helm's stdout goes to AREA/golden/X.yaml.out; when Helm fails, its stderr goes to
# AREA/golden/X.yaml.err and its exit code to AREA/golden/X.yaml.code.
#
# HELM overrides the Helm binary (default: /work/peers/helm, else `helm` on PATH). JOBS sets parallel renders.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
helm="${HELM:-/work/peers/helm}"
[ -x "$helm" ] || helm="$(command -v helm)"
jobs="${JOBS:-2}"

if [ "$#" -eq 0 ]; then
  set -- $(cd "$here" && for d in */; do [ -f "$d/Chart.yaml" ] && echo "${d%/}"; done)
fi

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

render_one() {
  local area_dir="$1" template="$2" helm="$3" scratch="$4"
  local name chart out
  name="$(basename "$template")"
  chart="$(mktemp -d "$scratch/chart.XXXXXX")"
  mkdir -p "$chart/templates"
  cp "$area_dir/Chart.yaml" "$area_dir/values.yaml" "$chart/"
  cp "$area_dir"/templates/_*.tpl "$chart/templates/" 2>/dev/null || true
  cp "$template" "$chart/templates/$name"
  out="$area_dir/golden/$name"
  rm -f "$out.out" "$out.err" "$out.code"
  local code=0
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
