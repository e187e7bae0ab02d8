//! The version berth reports: its own, and the Helm version whose behaviour it follows, in the forms Helm 4.1.4's
//! `helm version` prints (pkg/cmd/version.go, internal/version/version.go) so scripts and helmfile
//! (`GetHelmVersion` reads `helm version --short` as a semver) take berth for that Helm.
//!
//! The choice, written once here for `berth version` and berth run as `helm`: the semver is Helm's
//! ([`FOLLOWED_HELM_VERSION`]) with berth's own version as build metadata, `v4.1.4+berth.0.1.0`. A semver
//! parser sees 4.1.4 (build metadata does not take part in precedence), a person sees both. Helm's short form
//! appends `+g<commit>` only when it knows its git commit; berth records none, so the short form is that
//! version alone, as Helm prints it for a build without a commit. `berth version` without flags prints one line
//! for people ([`VersionStyle::Berth`]); as `helm` it prints Helm's `version.BuildInfo{...}` line
//! ([`VersionStyle::Helm`]). `--short` and `--template` are Helm's in both.

use berth_go::{Kind, Object, Value};
use berth_template::Template;
use std::fmt;

/// The Helm release whose behaviour berth follows (rendering, records, command line).
pub const FOLLOWED_HELM_VERSION: &str = "v4.1.4";

/// The Kubernetes client version Helm 4.1.4 reports (client-go 0.35, printed as `v1.35`).
pub const KUBE_CLIENT_VERSION: &str = "v1.35";

/// Helm's `version.BuildInfo`, as berth fills it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildInfo {
    /// `v4.1.4+berth.<berth's version>`.
    pub version: String,
    /// Empty: berth builds record no commit.
    pub git_commit: String,
    pub git_tree_state: String,
    /// Empty: berth is not built by Go.
    pub go_version: String,
    pub kube_client_version: String,
}

impl BuildInfo {
    /// This build's information.
    pub fn current() -> BuildInfo {
        BuildInfo {
            version: format!("{FOLLOWED_HELM_VERSION}+berth.{}", env!("CARGO_PKG_VERSION")),
            git_commit: String::new(),
            git_tree_state: String::new(),
            go_version: String::new(),
            kube_client_version: KUBE_CLIENT_VERSION.to_string(),
        }
    }
}

/// How `version` without `--short` or `--template` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VersionStyle {
    /// berth's own line: `berth 0.1.0 (follows Helm v4.1.4)`.
    Berth,
    /// Helm's `fmt.Sprintf("%#v", version.Get())`.
    Helm,
}

/// Why `--template` failed: Go's template error, as Helm prints it.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct TemplateFailed(String);

/// What `version` prints (without the final newline `--short` and the plain forms add): `formatVersion` or the
/// `--template` text executed on [`BuildInfo`] (Go's text/template without Sprig, as Helm runs it).
///
/// # Errors
/// [`TemplateFailed`] when the template does not parse or fails to execute.
pub fn version_text(
    info: &BuildInfo,
    short: bool,
    template: Option<&str>,
    style: VersionStyle,
) -> Result<String, TemplateFailed> {
    if let Some(template) = template.filter(|template| !template.is_empty()) {
        let parsed = Template::new("_").parse(template).map_err(|error| TemplateFailed(error.to_string()))?;
        return parsed
            .execute_to_string(&Value::object(info.clone()))
            .map_err(|error| TemplateFailed(error.to_string()));
    }
    let text = if short {
        if info.git_commit.len() >= 7 {
            format!("{}+g{}", info.version, &info.git_commit[..7])
        } else {
            info.version.clone()
        }
    } else {
        match style {
            VersionStyle::Berth => {
                format!("berth {} (follows Helm {FOLLOWED_HELM_VERSION})", env!("CARGO_PKG_VERSION"))
            }
            VersionStyle::Helm => format!(
                "version.BuildInfo{{Version:{:?}, GitCommit:{:?}, GitTreeState:{:?}, GoVersion:{:?}, \
                 KubeClientVersion:{:?}}}",
                info.version, info.git_commit, info.git_tree_state, info.go_version, info.kube_client_version
            ),
        }
    };
    Ok(format!("{text}\n"))
}

/// `BuildInfo` as templates see it: a Go struct with five exported string fields.
impl Object for BuildInfo {
    fn type_name(&self) -> &str {
        "version.BuildInfo"
    }

    fn kind(&self) -> Kind {
        Kind::Struct
    }

    fn field(&self, name: &str) -> Option<Value> {
        let value = match name {
            "Version" => &self.version,
            "GitCommit" => &self.git_commit,
            "GitTreeState" => &self.git_tree_state,
            "GoVersion" => &self.go_version,
            "KubeClientVersion" => &self.kube_client_version,
            _ => return None,
        };
        Some(Value::String(value.as_str().into()))
    }

    fn fmt_value(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{{{} {} {} {} {}}}",
            self.version, self.git_commit, self.git_tree_state, self.go_version, self.kube_client_version
        )
    }

    fn to_data(&self) -> Value {
        Value::map([
            ("version", Value::String(self.version.as_str().into())),
            ("git_commit", Value::String(self.git_commit.as_str().into())),
            ("git_tree_state", Value::String(self.git_tree_state.as_str().into())),
            ("go_version", Value::String(self.go_version.as_str().into())),
            ("kube_client_version", Value::String(self.kube_client_version.as_str().into())),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_and_template_forms_are_helms() {
        let info = BuildInfo::current();
        let short = version_text(&info, true, None, VersionStyle::Berth).unwrap();
        assert_eq!(short, format!("v4.1.4+berth.{}\n", env!("CARGO_PKG_VERSION")));
        let parsed = berth_sprig::semver::Version::parse(short.trim()).unwrap();
        let minimum = berth_sprig::semver::Constraints::parse(">= 3.18.6").unwrap();
        assert!(minimum.check(&parsed), "helmfile's minimum accepts {short}");
        let helm = version_text(&info, false, None, VersionStyle::Helm).unwrap();
        assert!(helm.starts_with("version.BuildInfo{Version:\"v4.1.4+berth."), "{helm}");
        assert!(helm.ends_with(", GoVersion:\"\", KubeClientVersion:\"v1.35\"}\n"), "{helm}");
        let template = version_text(&info, true, Some("{{.Version}} {{.KubeClientVersion}}"), VersionStyle::Helm);
        assert_eq!(template.unwrap(), format!("{} v1.35", info.version), "no newline after a template");
        let missing = version_text(&info, false, Some("{{.Nope}}"), VersionStyle::Helm).unwrap_err();
        assert_eq!(
            missing.to_string(),
            "template: _:1:2: executing \"_\" at <.Nope>: can't evaluate field Nope in type version.BuildInfo"
        );
        let committed = BuildInfo { git_commit: "05fa37973dc9e42b".into(), version: "v4.1.4".into(), ..info };
        assert_eq!(version_text(&committed, true, None, VersionStyle::Helm).unwrap(), "v4.1.4+g05fa379\n");
    }
}
