#!/usr/bin/env bash
# `helm template` against `berth template` on charts outside the repository (the public corpus that
# scripts/public-charts.sh prepares), printing a table; exit 1 when any run differs.
#
#   scripts/compare-charts.sh CHART_DIR...
#
# Runs per chart: its default values, then each values file of its own (`ci/*.yaml`, `values*.yaml` beside
# values.yaml) and each `$EXTRA_VALUES/NAME/*.yaml` (values files kept outside the repository), one `-f` each.
# Each run is `template r CHART_DIR -n parity [-f FILE]`, stdout compared byte for byte, exit codes compared as
# success or failure (Helm fails with 1, berth with 2), and for failures Helm's `Error: MSG` against berth's
# `Caused by: MSG`.
#
# Only what random functions write is masked, and only where Helm itself is not reproducible: Helm renders each
# run twice; where its two outputs differ (a password, a certificate, a checksum of one, a random name suffix),
# the words that differ between Helm's two lines are masked, and berth's line must have every other word and
# every separator as Helm wrote them. Any other difference is a difference. Both outputs of every run stay in $COMPARE_OUT (default: a temporary directory).
#
# HELM (default: /work/peers/helm, else the binary scripts/fetch-peers.sh provides), BERTH (default:
# target/release/berth, else target/debug/berth).
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
helm="${HELM:-/work/peers/helm}"
[ -x "$helm" ] || helm="$("$root/scripts/fetch-peers.sh")/helm"
berth="${BERTH:-$root/target/release/berth}"
[ -x "$berth" ] || berth="$root/target/debug/berth"
[ -x "$berth" ] || { echo "compare-charts.sh: no berth binary (cargo build --release)" >&2; exit 2; }
out="${COMPARE_OUT:-$(mktemp -d)}"
mkdir -p "$out"

# Compares one run: helm1 helm2 berth (stdout files), the exit codes and stderr files; prints the verdict.
compare() {
  python3 - "$@" <<'EOF'
import re, sys
h1, h2, b, hcode, bcode, herr, berr = sys.argv[1:8]
read = lambda p: open(p, encoding="utf-8", errors="surrogateescape").read()
hcode, bcode = int(hcode), int(bcode)
if (hcode == 0) != (bcode == 0):
    print(f"DIFF exit helm {hcode} berth {bcode}"); sys.exit(1)
if hcode != 0:
    # Helm: `Error: MSG` (MSG may span lines); berth: `Caused by: MSG`, continuation lines indented under it.
    helm_err = read(herr)
    helm_message = helm_err[helm_err.find("Error: ") + 7:].rstrip("\n") if "Error: " in helm_err else helm_err
    # Helm's template command adds a hint naming its --debug flag, which berth does not have.
    helm_message = helm_message.removesuffix("\n\nUse --debug flag to render out invalid YAML")
    lines, taking = [], False
    for line in read(berr).splitlines():
        if line.startswith("  Caused by: "):
            lines, taking = [line[13:]], True
        elif taking and line.startswith("             "):
            lines.append(line[13:])
        else:
            taking = False
    berth_message = "\n".join(lines)
    if helm_message == berth_message:
        print("identical (error)"); sys.exit(0)
    print(f"DIFF error\n  helm:  {helm_message}\n  berth: {berth_message}"); sys.exit(1)
one, two, ours = read(h1).split("\n"), read(h2).split("\n"), read(b).split("\n")
if len(one) != len(two):
    print("helm not reproducible (line counts differ between two runs); run again"); sys.exit(1)
if len(one) != len(ours):
    first = next((i for i, (x, y) in enumerate(zip(one, ours)) if x != y), min(len(one), len(ours)))
    print(f"DIFF {len(ours)} lines, helm {len(one)}; first at line {first + 1}")
    print(f"  helm:  {one[first][:200] if first < len(one) else ''}")
    print(f"  berth: {ours[first][:200] if first < len(ours) else ''}")
    sys.exit(1)
# A line is words (runs of [A-Za-z0-9+/=_.-]) and what lies between them. Where Helm's two lines differ, the
# words that differ are random; berth's line must have the same words elsewhere and a word in each random place.
word = re.compile(r"[A-Za-z0-9+/=_.-]+")
def split(line):
    return word.split(line), word.findall(line)
masked, diffs = 0, []
for i, (x, y, z) in enumerate(zip(one, two, ours)):
    if x == z:
        continue
    if x != y:
        (gx, wx), (gy, wy), (gz, wz) = split(x), split(y), split(z)
        if gx == gy == gz and len(wx) == len(wy) == len(wz):
            if all(a == c or a != b for a, b, c in zip(wx, wy, wz)):
                masked += 1
                continue
    diffs.append(i)
if diffs:
    print(f"DIFF {len(diffs)} lines; first at line {diffs[0] + 1}")
    for i in diffs[:3]:
        print(f"  helm:  {one[i][:200]}\n  berth: {ours[i][:200]}")
    sys.exit(1)
print(f"identical ({masked} random lines masked)" if masked else "identical")
EOF
}

printf '%-30s %-40s %s\n' CHART VALUES RESULT
status=0
runs=0
identical=0
for chart in "$@"; do
  chart="${chart%/}"
  name="$(basename "$chart")"
  values=("")
  for file in "$chart"/ci/*.yaml "$chart"/values*.yaml "${EXTRA_VALUES:-/nonexistent}/$name"/*.yaml; do
    [ -f "$file" ] && [ "$(basename "$file")" != values.yaml ] && values+=("$file")
  done
  for file in "${values[@]}"; do
    label="${file:-(defaults)}"
    label="${label#"$chart"/}"
    tag="$name.$(basename "${file:-defaults}" .yaml)"
    args=(template r "$chart" -n parity)
    [ -z "$file" ] || args+=(-f "$file")
    for side in helm1 helm2; do
      HOME="$(mktemp -d)" "$helm" "${args[@]}" >"$out/$tag.$side" 2>"$out/$tag.$side.err"
      echo $? >"$out/$tag.$side.code"
    done
    "$berth" "${args[@]}" >"$out/$tag.berth" 2>"$out/$tag.berth.err"
    echo $? >"$out/$tag.berth.code"
    verdict="$(compare "$out/$tag.helm1" "$out/$tag.helm2" "$out/$tag.berth" "$(cat "$out/$tag.helm1.code")" \
      "$(cat "$out/$tag.berth.code")" "$out/$tag.helm1.err" "$out/$tag.berth.err")"
    code=$?
    runs=$((runs + 1))
    if [ "$code" -eq 0 ]; then identical=$((identical + 1)); else status=1; fi
    printf '%-30s %-40s %s\n' "$name" "$label" "$verdict"
  done
done
echo "$identical of $runs runs identical; outputs in $out"
exit "$status"
