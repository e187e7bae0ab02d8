#!/usr/bin/env bash
# Regenerates the golden files of berth-chart's probe charts by running real Helm 4.1.4: the reference for how
# charts load and how their values are computed. Nothing in golden/ is written by hand or by berth.
#
#   crates/berth-chart/tests/regen.sh [CASE...]      (default: every directory under tests/charts)
#
# A CASE directory holds:
#   chart/ or chart.tgz   the chart given to `helm template` (a path relative to the case directory)
#   packages              optional: lines `SOURCE_DIR DEST_DIR`; `helm package SOURCE_DIR -d DEST_DIR` runs
#                         first (subcharts as archives in charts/, packaged top charts) when DEST_DIR holds no
#                         archive of that chart yet; the archives are committed (delete one to rebuild it: Helm
#                         stamps archives with the time they were made, so rebuilding always changes them)
#   runs                  one run per line: NAME<TAB>ARG<TAB>ARG...; `#` starts a comment line. ARGs are passed to
#                         `helm template r CHART` as they are (-f, --set..., --skip-schema-validation), except
#                         `stdin=FILE`, which feeds FILE to Helm's standard input, and `chart=PATH`, which gives
#                         another chart than chart/ (cases with many small charts)
#   values files          whatever the runs name, relative to the case directory
#
# Each run writes golden/NAME.txt: the exit code, Helm's stdout and its stderr, with the case directory's absolute
# path replaced by <case>. Every Helm run gets its own HOME.
#
# HELM overrides the Helm binary (default: /work/peers/helm, else target/peers/helm, else `helm` on PATH).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
helm="${HELM:-/work/peers/helm}"
[ -x "$helm" ] || helm="$root/target/peers/helm"
[ -x "$helm" ] || helm="$(command -v helm)"
"$helm" version --short | grep -q '^v4.1.4' || { echo "regen.sh: $helm is not Helm v4.1.4" >&2; exit 2; }

if [ "$#" -eq 0 ]; then
  set -- $(cd "$here/charts" && for d in */; do echo "${d%/}"; done)
fi

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

for name in "$@"; do
  case_dir="$here/charts/$name"
  [ -f "$case_dir/runs" ] || { echo "regen.sh: $case_dir has no runs file" >&2; exit 2; }
  cd "$case_dir"
  if [ -f packages ]; then
    while read -r source dest; do
      [ -z "$source" ] || [ "${source#\#}" != "$source" ] && continue
      mkdir -p "$dest"
      chart_name="$(sed -n 's/^name: *//p' "$source/Chart.yaml")"
      chart_version="$(sed -n 's/^version: *//p' "$source/Chart.yaml")"
      [ -f "$dest/$chart_name-$chart_version.tgz" ] && continue
      HOME="$(mktemp -d "$scratch/home.XXXXXX")" "$helm" package "$source" -d "$dest" >/dev/null
    done <packages
  fi
  chart=chart
  [ -e chart ] || [ ! -e chart.tgz ] || chart=chart.tgz
  rm -rf golden
  mkdir golden
  count=0
  while IFS= read -r line; do
    [ -z "$line" ] && continue
    [ "${line#\#}" != "$line" ] && continue
    IFS=$'\t' read -r -a fields <<<"$line"
    run="${fields[0]}"
    args=()
    input=/dev/null
    run_chart="$chart"
    for arg in "${fields[@]:1}"; do
      case "$arg" in
        stdin=*) input="${arg#stdin=}" ;;
        chart=*) run_chart="${arg#chart=}" ;;
        *) args+=("$arg") ;;
      esac
    done
    code=0
    HOME="$(mktemp -d "$scratch/home.XXXXXX")" "$helm" template r "$run_chart" "${args[@]}" \
      <"$input" >"$scratch/stdout" 2>"$scratch/stderr" || code=$?
    {
      echo "exit: $code"
      echo "--- stdout"
      sed "s#$case_dir#<case>#g" "$scratch/stdout"
      echo "--- stderr"
      sed "s#$case_dir#<case>#g" "$scratch/stderr"
    } >"golden/$run.txt"
    count=$((count + 1))
  done <runs
  echo "regen.sh: $name: $count runs"
done
