#!/usr/bin/env bash
# Measures the hostile-input figures of docs/BENCHMARKS.md ("Hostile input"): parse time of nested JSONPath
# filters, CEL bombs, and how long an unreachable (refused) cluster takes to report, for one or two berth
# binaries side by side (before and after a change).
#
#   scripts/measure-hardening.sh BERTH [BERTH_BEFORE]
#
# Each figure is one run of the binary (wall time, peak memory and exit status from GNU time; 124 is the
# 60 s cap, 134/139 an abort or a crash), with at most 8 GB of address space.
set -euo pipefail

binaries=("$@")
if [[ ${#binaries[@]} -eq 0 ]]; then
  echo "usage: $0 BERTH [BERTH_BEFORE]" >&2
  exit 2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$work" <<'EOF'
import json, sys
work = sys.argv[1]
def widget(annotations, status=None):
    return {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "annotations": annotations},
            "status": status or {"a": 1}}
for levels in (12, 14, 16, 18, 20, 2000):
    path = ".a[?(" + "@.a[?(" * (levels - 1) + "@.x" + ")]" * (levels - 1) + ")]"
    annotations = {"helm.sh/readiness-success": json.dumps(["{" + path + "} == 1"]),
                   "helm.sh/readiness-failure": json.dumps(["{.failed} == 1"])}
    json.dump(widget(annotations), open(f"{work}/jsonpath-{levels}.json", "w"))
ten = "[0,1,2,3,4,5,6,7,8,9]"
for levels in (4, 5, 6, 7):
    expression = "1"
    for i in range(levels):
        expression = f"{ten}.map(x{i}, {expression})"
    json.dump(widget({"berth.dev/health": f"current: 'size({expression}) > 0'"}), open(f"{work}/cel-map-{levels}.json", "w"))
plus = " + ".join(["1"] * 7000)
json.dump(widget({"berth.dev/health": f"current: '{plus} > 0'"}), open(f"{work}/cel-plus-7000.json", "w"))
open(f"{work}/kubeconfig", "w").write(
    "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: \"https://127.0.0.1:1\"}\n"
    "contexts:\n- name: c\n  context: {cluster: c, user: u}\ncurrent-context: c\nusers:\n- name: u\n  user: {}\n")
open(f"{work}/cm.yaml", "w").write("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
EOF

measure() {
  local binary=$1 label=$2
  shift 2
  # GNU time notes a signal or a non-zero exit on a line of its own, before the figures: the signal is kept.
  (ulimit -v 8000000; /usr/bin/time -o "$work/time" -f "%e s, %M KB, exit %x" timeout 60 "$binary" "$@" \
    >/dev/null 2>&1) || true
  printf '  %-30s %s\n' "$label" "$(grep -v '^Command exited' "$work/time" | tr '\n' ' ')"
}

for binary in "${binaries[@]}"; do
  echo "$binary"
  for levels in 12 14 16 18 20 2000; do
    measure "$binary" "JSONPath, $levels nested filters" health --local -f "$work/jsonpath-$levels.json"
  done
  for levels in 4 5 6 7; do
    measure "$binary" "CEL map, $levels levels" health --local -f "$work/cel-map-$levels.json"
  done
  measure "$binary" "CEL, 7000 + 1 terms" health --local -f "$work/cel-plus-7000.json"
  measure "$binary" "refused connection" apply --kubeconfig "$work/kubeconfig" -f "$work/cm.yaml"
done
