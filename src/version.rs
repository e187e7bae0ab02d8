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

pub use berth_chart::render::objects::BuildInfo;
pub use berth_chart::render::{FOLLOWED_HELM_VERSION, KUBE_CLIENT_VERSION};
use berth_go::Value;
use berth_template::Template;

/// This build's information: [`FOLLOWED_HELM_VERSION`] with berth's version as build metadata, no commit, tree
/// state or Go version (berth records none and is not built by Go).
pub fn current_build() -> BuildInfo {
    BuildInfo {
        version: format!("{FOLLOWED_HELM_VERSION}+berth.{}", env!("CARGO_PKG_VERSION")),
        git_commit: String::new(),
        git_tree_state: String::new(),
        go_version: String::new(),
        kube_client_version: KUBE_CLIENT_VERSION.to_string(),
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
#[error("{message}")]
pub struct TemplateFailed {
    /// What the template wrote before it failed: Helm's `tt.Execute(out, ...)` has printed it already.
    pub written: String,
    message: String,
}

impl TemplateFailed {
    fn new(written: Vec<u8>, error: &berth_go::TemplateError) -> Self {
        Self { written: String::from_utf8_lossy(&written).into_owned(), message: error.to_string() }
    }
}

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
        let parsed = Template::new("_").parse(template).map_err(|error| TemplateFailed::new(Vec::new(), &error))?;
        let mut written = Vec::new();
        return match parsed.execute_into(&mut written, &Value::object(info.clone())) {
            Ok(()) => Ok(String::from_utf8_lossy(&written).into_owned()),
            Err(error) => Err(TemplateFailed::new(written, &error)),
        };
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_and_template_forms_are_helms() {
        let info = current_build();
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
        let missing = version_text(&info, false, Some("v={{.Version}} {{.Nope}}"), VersionStyle::Helm).unwrap_err();
        assert_eq!(missing.written, format!("v={} ", info.version), "what Go wrote before the error");
        assert_eq!(
            missing.to_string(),
            "template: _:1:17: executing \"_\" at <.Nope>: can't evaluate field Nope in type version.BuildInfo"
        );
        let committed = BuildInfo { git_commit: "05fa37973dc9e42b".into(), version: "v4.1.4".into(), ..info };
        assert_eq!(version_text(&committed, true, None, VersionStyle::Helm).unwrap(), "v4.1.4+g05fa379\n");
    }
}
