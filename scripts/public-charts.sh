#!/usr/bin/env bash
# Prepares the public-chart corpus of docs/CHART_PARITY.md in a directory OUTSIDE the repository (nothing fetched
# from these projects is committed here): each chart at its pinned commit, its dependencies vendored into charts/
# from the same pinned repositories, and the repository's licence beside it as NAME.LICENSE.
#
#   scripts/public-charts.sh OUT_DIR [CHART...]      (default: every chart below)
#
# Sources are bare git mirrors: $MIRRORS/OWNER+NAME/repo (default MIRRORS=/work/.mirror); a missing mirror is
# cloned from https://github.com/OWNER/NAME into that place. Then:
#
#   scripts/compare-charts.sh OUT_DIR/*/             helm template against berth template, a table
#   BERTH_PUBLIC_CHARTS=OUT_DIR cargo test --test integration template_cli
set -euo pipefail

out="${1:?usage: scripts/public-charts.sh OUT_DIR [CHART...]}"
shift
mirrors="${MIRRORS:-/work/.mirror}"

# The commit of each source repository (docs/CHART_PARITY.md lists the same).
declare -A commit=(
  [bitnami/charts]=5165628ae06697f8f68a670bef7739d93c4b7f44
  [argoproj/argo-helm]=af0a9310bacbaa4636018dfe22c801a6d33a5c43
  [DandyDeveloper/charts]=6224454507be15acba7a619c33fa6148a06bcf85
  [prometheus-community/helm-charts]=cf408a290aec489277a94450bb3511432477a53a
  [grafana-community/helm-charts]=3386a1156177c6bcd7fdb1ad4c6b1dda094296e0
  [grafana/helm-charts]=7a0ab968961a165318ab95ff678908c3b9bc3240
  [kubernetes/ingress-nginx]=dbb11b92ddb77bee9c35e462479129354c84f939
  [traefik/traefik-helm-chart]=a8a66d0098703627b2cf352c66b1725c196a734a
  [hashicorp/vault-helm]=aa1c92e4adddbce9660e536dfe5222a88eda6d52
  [kubernetes-sigs/metrics-server]=5ed5d3a2cf940a8c7541cfbac19af822f4c97844
  [stefanprodan/podinfo]=eec06d1ea459af4cb4e10e806f8be7c7bd58b361
  [external-secrets/external-secrets]=cc5bfbc2234ace9cb0caff4ea89c435cf517b27b
  [external-secrets/bitwarden-sdk-server]=7a50945e81719464b40354d5a0b77b9288b0006f
  [cert-manager/cert-manager]=2d0d7f7f74241a9cbf79f0e2a7bb247238ee09fd
)

# NAME REPOSITORY PATH [DEPENDENCY...]; a dependency is DEST=REPOSITORY:PATH, DEST relative to the chart's charts/
# (nested dependencies name their parent: postgresql/charts/common).
charts=(
  "redis bitnami/charts bitnami/redis common=bitnami/charts:bitnami/common"
  "postgresql bitnami/charts bitnami/postgresql common=bitnami/charts:bitnami/common"
  "nginx bitnami/charts bitnami/nginx common=bitnami/charts:bitnami/common"
  "mysql bitnami/charts bitnami/mysql common=bitnami/charts:bitnami/common"
  "rabbitmq bitnami/charts bitnami/rabbitmq common=bitnami/charts:bitnami/common"
  "keycloak bitnami/charts bitnami/keycloak common=bitnami/charts:bitnami/common postgresql=bitnami/charts:bitnami/postgresql postgresql/charts/common=bitnami/charts:bitnami/common"
  "argo-cd argoproj/argo-helm charts/argo-cd redis-ha=DandyDeveloper/charts:charts/redis-ha"
  "argo-rollouts argoproj/argo-helm charts/argo-rollouts"
  "argo-workflows argoproj/argo-helm charts/argo-workflows"
  "argo-events argoproj/argo-helm charts/argo-events"
  "kube-prometheus-stack prometheus-community/helm-charts charts/kube-prometheus-stack kube-state-metrics=prometheus-community/helm-charts:charts/kube-state-metrics prometheus-node-exporter=prometheus-community/helm-charts:charts/prometheus-node-exporter grafana=grafana-community/helm-charts:charts/grafana prometheus-windows-exporter=prometheus-community/helm-charts:charts/prometheus-windows-exporter"
  "prometheus prometheus-community/helm-charts charts/prometheus alertmanager=prometheus-community/helm-charts:charts/alertmanager kube-state-metrics=prometheus-community/helm-charts:charts/kube-state-metrics prometheus-node-exporter=prometheus-community/helm-charts:charts/prometheus-node-exporter prometheus-pushgateway=prometheus-community/helm-charts:charts/prometheus-pushgateway"
  "alertmanager prometheus-community/helm-charts charts/alertmanager"
  "kube-state-metrics prometheus-community/helm-charts charts/kube-state-metrics"
  "prometheus-node-exporter prometheus-community/helm-charts charts/prometheus-node-exporter"
  "prometheus-blackbox-exporter prometheus-community/helm-charts charts/prometheus-blackbox-exporter"
  "grafana grafana-community/helm-charts charts/grafana"
  "tempo grafana-community/helm-charts charts/tempo"
  "fluent-bit grafana/helm-charts charts/fluent-bit"
  "promtail grafana/helm-charts charts/promtail"
  "ingress-nginx kubernetes/ingress-nginx charts/ingress-nginx"
  "traefik traefik/traefik-helm-chart traefik"
  "vault hashicorp/vault-helm ."
  "metrics-server kubernetes-sigs/metrics-server charts/metrics-server"
  "podinfo stefanprodan/podinfo charts/podinfo"
  "external-secrets external-secrets/external-secrets deploy/charts/external-secrets bitwarden-sdk-server=external-secrets/bitwarden-sdk-server:deploy/charts/bitwarden-sdk-server"
  "cert-manager cert-manager/cert-manager deploy/charts/cert-manager"
)

# The bare mirror of OWNER/NAME, cloned when missing.
mirror() {
  local repository="$1" dir="$mirrors/${1/\//+}/repo"
  if [ ! -d "$dir" ]; then
    git clone --quiet --bare "https://github.com/$repository" "$dir"
  fi
  echo "$dir"
}

# Extracts PATH of REPOSITORY at its pinned commit into DEST (replacing DEST).
extract() {
  local repository="$1" path="$2" dest="$3" git_dir sha strip
  git_dir="$(mirror "$repository")"
  sha="${commit[$repository]}"
  rm -rf "$dest"
  mkdir -p "$dest"
  if [ "$path" = . ]; then
    git -C "$git_dir" archive "$sha" | tar -x -C "$dest"
  else
    strip="$(awk -F/ '{print NF}' <<<"$path")"
    git -C "$git_dir" archive "$sha" "$path" | tar -x -C "$dest" --strip-components="$strip"
  fi
}

licence() {
  local repository="$1" dest="$2" git_dir name
  git_dir="$(mirror "$repository")"
  name="$(git -C "$git_dir" ls-tree --name-only "${commit[$repository]}" | grep -i -m1 '^licen[cs]e' || true)"
  [ -z "$name" ] || git -C "$git_dir" show "${commit[$repository]}:$name" >"$dest"
}

mkdir -p "$out"
for entry in "${charts[@]}"; do
  read -r -a fields <<<"$entry"
  name="${fields[0]}"
  if [ "$#" -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$name"; then
    continue
  fi
  extract "${fields[1]}" "${fields[2]}" "$out/$name"
  licence "${fields[1]}" "$out/$name.LICENSE"
  for dependency in "${fields[@]:3}"; do
    dest="${dependency%%=*}"
    source="${dependency#*=}"
    extract "${source%%:*}" "${source#*:}" "$out/$name/charts/$dest"
  done
  echo "$name: ${fields[1]}@${commit[${fields[1]}]:0:12} ${fields[2]}"
done
