#!/usr/bin/env bash
# Builds the real helm-diff plugin (databus23/helm-diff v3.15.11) from its tagged source without a Go
# module proxy: every dependency is copied from a git mirror of its repository into a hand-made vendor/
# tree, so the go command (in -mod=vendor mode) needs neither downloads nor go.sum.
#
# Usage: GOROOT=/path/to/go-1.26 scripts/helm-diff/build.sh MIRRORS_DIR OUT_DIR
#   MIRRORS_DIR holds bare git mirrors as OWNER+NAME/repo (databus23+helm-diff/repo and every repository
#   named in modules.tsv).
#   OUT_DIR receives src/ (the tagged source + vendor/) and plugin/ (plugin.yaml + bin/diff), ready for
#   `helm plugin install OUT_DIR/plugin`.
#
# modules.tsv maps each go.mod requirement to its repository, directory and the git revision vendored.
# packages.txt lists the vendored packages; a package missing from it is found by the `go list` loop
# below (which then prints the list to keep), so the same inputs rebuild the same tree.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[[ $# -eq 2 ]] || { echo "usage: $0 MIRRORS_DIR OUT_DIR" >&2; exit 64; }
mirrors=$(cd "$1" && pwd)
mkdir -p "$2"
out=$(cd "$2" && pwd)
: "${GOROOT:?GOROOT must name a Go 1.26 toolchain}"

tag=v3.15.11
version=${tag#v}
export GOROOT GOTOOLCHAIN=local GOFLAGS=-mod=vendor CGO_ENABLED=0 GOPROXY=off GOSUMDB=off GOWORK=off
export GOOS=linux GOARCH=amd64
export GOCACHE=${GOCACHE:-$out/cache/go-build} GOPATH=${GOPATH:-$out/cache/gopath}
go=$GOROOT/bin/go

mirror() { printf '%s/%s/repo' "$mirrors" "${1/\//+}"; }

# 1. The tagged source, go.mod untouched.
src=$out/src
rm -rf "$src"
mkdir -p "$src"
git -C "$(mirror databus23/helm-diff)" archive "$tag" | tar -x -C "$src"

# 2. The module table: module -> version, repository, directory, revision.
# A module's first row is its source; further rows for the same module are fallbacks, tried in order for a
# package the first source lacks (a copy from another project's vendor/ holds only what that project uses).
declare -A version_of repo_of dir_of rev_of sources_of
modules=()
while IFS=$'\t' read -r module module_version repo dir rev _; do
  [[ -z $module || $module == \#* ]] && continue
  if [[ -z ${sources_of[$module]:-} ]]; then
    modules+=("$module")
    version_of[$module]=$module_version repo_of[$module]=$repo dir_of[$module]=$dir rev_of[$module]=$rev
  fi
  sources_of[$module]+="$repo $dir $rev"$'\n'
done <"$here/modules.tsv"
# Every go.mod requirement must be in the table (vendor/modules.txt has to list them all).
for module in $(awk '/^require \(/{on=1; next} /^\)/{on=0} on && NF >= 2 {print $1} /^require [^(]/{print $2}' "$src/go.mod"); do
  [[ -n ${repo_of[$module]:-} ]] || { echo "go.mod requires $module, which modules.tsv does not map" >&2; exit 1; }
done

# A module copied from another project's vendor/ must be listed there at exactly the go.mod version.
for module in "${modules[@]}"; do
  [[ ${dir_of[$module]} == vendor/* ]] || continue
  git -C "$(mirror "${repo_of[$module]}")" show "${rev_of[$module]}:vendor/modules.txt" |
    grep -xF "# $module ${version_of[$module]}" >/dev/null ||
    { echo "${repo_of[$module]}@${rev_of[$module]} does not vendor $module ${version_of[$module]}" >&2; exit 1; }
done

# The module providing an import path: the longest module path that prefixes it.
module_of() {
  local path=$1 best=""
  for module in "${modules[@]}"; do
    if [[ $path == "$module" || $path == "$module"/* ]] && ((${#module} > ${#best})); then best=$module; fi
  done
  printf '%s' "$best"
}

# 3. Copy one package's directory (non-test files; a package with //go:embed gets its whole subtree).
declare -A vendored
vendor_package() {
  local package=$1 module
  module=$(module_of "$package")
  [[ -n $module ]] || { echo "no go.mod requirement provides $package" >&2; return 1; }
  local repo dir rev git_dir path files="" target=$src/vendor/$package
  while read -r repo dir rev; do
    [[ -n $repo ]] || continue
    git_dir=$(mirror "$repo")
    path=$dir${package#"$module"}
    path=${path#./}
    path=${path#.}
    # ls-tree lines are "MODE TYPE HASH<TAB>PATH"; keep the blobs (files and symlinks) except tests, and
    # drop go.mod/go.sum as `go mod vendor` does since Go 1.17 (modcmd/vendor.go matchPotentialSourceFile).
    files=$(git -C "$git_dir" ls-tree "$rev" ${path:+"$path/"} |
      awk -F'\t' '{split($1, entry, " ")} entry[2] == "blob" && $2 !~ /(_test\.go|(^|\/)go\.(mod|sum))$/ {print $2}')
    [[ -n $files ]] && break
  done <<<"${sources_of[$module]}"
  [[ -n $files ]] || { echo "$package: no source in modules.tsv has it" >&2; return 1; }
  if [[ $repo != "${repo_of[$module]}" || $rev != "${rev_of[$module]}" ]]; then
    echo "$package $repo@$rev:$path" >>"$out/fallbacks.txt"
  fi
  # A snapshot may lack its largest blobs: every file taken must be there (git archive only warns, and it
  # warns about absent blobs anywhere in the tree, hence its silenced stderr).
  local absent
  absent=$(sed "s|^|$rev:|" <<<"$files" | git -C "$git_dir" cat-file --batch-check | awk '$NF == "missing" {print $1}')
  [[ -z $absent ]] || { echo "$package: $repo@$rev lacks the blobs of: $absent" >&2; return 1; }
  mkdir -p "$target"
  # shellcheck disable=SC2086 # one path per word
  git -C "$git_dir" archive "$rev" $files 2>/dev/null | tar -x -C "$target" --strip-components="$(depth "$path")"
  if grep -qs '^//go:embed' "$target"/*.go; then
    git -C "$git_dir" archive "$rev" ${path:+"$path"} 2>/dev/null | tar -x -C "$target" --strip-components="$(depth "$path")"
    find "$target" \( -name go.mod -o -name go.sum -o -name '*_test.go' \) -delete
  fi
  vendored[$package]=$module
}
depth() { [[ -z $1 ]] && echo 0 || awk -F/ '{print NF}' <<<"$1"; }

write_modules_txt() {
  local file=$src/vendor/modules.txt module go_version
  : >"$file"
  for module in $(printf '%s\n' "${modules[@]}" | LC_ALL=C sort); do
    local git_dir dir gomod
    git_dir=$(mirror "${repo_of[$module]}")
    dir=${dir_of[$module]}
    gomod=go.mod
    [[ $dir == . ]] || gomod=$dir/go.mod
    if [[ $dir == vendor/* ]]; then
      # A copy from another project's vendor/: its modules.txt carries the module's go version.
      go_version=$(git -C "$git_dir" show "${rev_of[$module]}:vendor/modules.txt" |
        awk -v line="# $module ${version_of[$module]}" '$0 == line {getline; if (match($0, /; go [^;]*/)) go = substr($0, RSTART + 5, RLENGTH - 5)} END {print go}')
    else
      go_version=$(git -C "$git_dir" show "${rev_of[$module]}:$gomod" 2>/dev/null | awk '$1 == "go" {print $2; exit}' || true)
    fi
    printf '# %s %s\n## explicit%s\n' "$module" "${version_of[$module]}" "${go_version:+; go $go_version}" >>"$file"
    for package in $(printf '%s\n' "${!vendored[@]}" | LC_ALL=C sort); do
      [[ ${vendored[$package]} == "$module" ]] && echo "$package" >>"$file"
    done
  done
}

mkdir -p "$src/vendor"
: >"$out/fallbacks.txt"
packages=()
[[ -f $here/packages.txt ]] && mapfile -t packages < <(grep -v '^#' "$here/packages.txt")
for package in "${packages[@]}"; do vendor_package "$package"; done
write_modules_txt

# 4. Loop: whatever `go list` still cannot find is vendored next, until nothing is missing.
while :; do
  missing=$(cd "$src" && "$go" list -e -deps -f '{{if .Error}}{{if not .Standard}}{{.ImportPath}}{{end}}{{end}}' . | grep -v '^$' | LC_ALL=C sort -u || true)
  new=()
  for package in $missing; do [[ -n ${vendored[$package]:-} ]] || new+=("$package"); done
  [[ ${#new[@]} -eq 0 ]] && break
  echo "vendoring ${#new[@]} more packages: ${new[*]}" >&2
  for package in "${new[@]}"; do vendor_package "$package"; done
  write_modules_txt
done
printf '%s\n' "${!vendored[@]}" | LC_ALL=C sort >"$out/packages.txt"
if ! cmp -s "$out/packages.txt" <(grep -v '^#' "$here/packages.txt" 2>/dev/null | LC_ALL=C sort); then
  echo "the vendored package list differs from packages.txt; the new list is $out/packages.txt" >&2
fi

# 5. Build as the release does (.goreleaser.yml: CGO_ENABLED=0, -trimpath, the Version ldflag).
plugin=$out/plugin
rm -rf "$plugin"
mkdir -p "$plugin/bin"
(cd "$src" && "$go" build -trimpath -ldflags "-X github.com/databus23/helm-diff/v3/cmd.Version=$version" -o "$plugin/bin/diff" .)

# 6. The plugin: the tag's plugin.yaml without platformHooks (its install hook downloads a release binary).
awk '/^platformHooks:/{skip=1; next} skip && /^[^ \t#]/{skip=0} !skip' "$src/plugin.yaml" >"$plugin/plugin.yaml"
cp "$src/LICENSE" "$src/README.md" "$plugin/"
echo "built $plugin/bin/diff ($("$plugin/bin/diff" version 2>&1 || true))" >&2
