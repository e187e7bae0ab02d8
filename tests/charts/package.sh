#!/usr/bin/env bash
# Packages the subcharts the corpus holds as archives, with real Helm: for each case directory with a `packages`
# file (lines `SOURCE DEST`), `helm package SOURCE -d DEST`. The archives are committed; Helm stamps each with the
# time it was made, so run this only to change one (delete the old archive first).
#
#   tests/charts/package.sh [CASE...]     (default: every case with a packages file)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
helm="${HELM:-/work/peers/helm}"
[ -x "$helm" ] || helm="$("$here/../../scripts/fetch-peers.sh")/helm"
[ "$#" -gt 0 ] || set -- $(cd "$here" && for f in */packages; do echo "${f%/packages}"; done)
for name in "$@"; do
  cd "$here/$name"
  while read -r source dest; do
    [ -z "$source" ] || [ "${source#\#}" != "$source" ] && continue
    mkdir -p "$dest"
    HOME="$(mktemp -d)" "$helm" package "$source" -d "$dest"
  done <packages
done
