//! The top-level error type, the exit codes a user can rely on, and how an error is printed.
//!
//! Library modules return their own error enums; this type gathers the ones that end a run and decides the
//! process exit code, so `main` stays a thin mapping. An error prints as uv prints them: `error:` and what could
//! not be done, a `Caused by:` line for each cause in the chain, then a `hint:` when there is a way out.

use berth::release::LifecycleError;
use berth::{apply, cluster, health, manifest, plan, release};
use std::error::Error as _;
use std::fmt::Write as _;

/// The documented exit codes (README "Exit codes", docs/DESIGN.md#conventions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitCode {
    /// Everything asked for is done and ready.
    Success,
    /// The work ran, but something failed, is not ready or timed out.
    NotReady,
    /// Bad input, bad usage, or the cluster cannot be reached.
    BadInput,
    /// `berth diff --detailed-exitcode` found changes (2, as the helm-diff plugin).
    Changes,
    /// Cancelled by SIGINT/SIGTERM.
    Cancelled,
    /// A plugin run as a subcommand exited with this code: passed on, as Helm passes it on.
    Plugin(i32),
}

impl ExitCode {
    pub fn code(self) -> i32 {
        match self {
            ExitCode::Success => 0,
            ExitCode::NotReady => 1,
            ExitCode::BadInput | ExitCode::Changes => 2,
            ExitCode::Cancelled => 130,
            ExitCode::Plugin(code) => code,
        }
    }
}

/// Why a run could not go on.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot load manifests")]
    Manifest(#[from] manifest::LoadError),
    #[error("{0}")]
    Usage(String),
    #[error("cannot connect to the cluster")]
    Cluster(#[source] cluster::ConnectError),
    /// No connection could be made: one line, the reason classified, with a hint.
    #[error("{0}")]
    NoConnection(cluster::ConnectError),
    /// SIGINT or SIGTERM before anything was written.
    #[error("cancelled {0}; nothing was written")]
    Cancelled(&'static str),
    #[error("invalid objects; nothing was applied")]
    Invalid(#[source] apply::InvalidSet),
    #[error("cannot write output")]
    Output(#[source] std::io::Error),
    #[error("invalid health rules")]
    HealthRules(#[source] health::RulesError),
    #[error("invalid health annotations; nothing was judged or applied")]
    HealthAnnotations(#[source] health::AnnotationErrors),
    #[error("cannot plan the order of writes; nothing was applied")]
    Plan(#[source] plan::PlanError),
    #[error("cannot read the values")]
    Values(#[source] ValuesProblem),
    /// The chart as the user named it, a URL shown without its password.
    #[error("cannot render chart `{}`", berth_source::redact::urls(.0))]
    Chart(String, #[source] ChartProblem),
    /// An error reported with exit code 1 whatever it is (`diff --detailed-exitcode`).
    #[error(transparent)]
    Failed(Box<Error>),
    #[error("cannot compute the changes")]
    Diff(#[source] Box<berth::release::diff::DiffError>),
    #[error("release operation failed")]
    Release(#[source] release::LifecycleError),
    /// A release name refused by the step of Helm's that checks it (`chartutil.ValidateReleaseName`), whose
    /// words it takes as `helm`.
    #[error("release operation failed")]
    ReleaseName(NameCheck, #[source] release::LifecycleError),
    #[error("the controller stopped")]
    Controller(#[source] berth::controller::ControllerError),
    #[error("cannot print the release")]
    Record(#[from] release::show::ShowError),
    /// A chart repository or registry could not give what was asked (`what`: the step that failed).
    #[error("{0}")]
    Source(String, #[source] Box<berth_source::SourceError>),
    /// A Helm client command (version, create, search, verify, plugin) could not do `what`.
    #[error("{0}")]
    Helm(String, #[source] Box<dyn std::error::Error + Send + Sync + 'static>),
    /// A release operation ran and failed (an object not ready, a hook failed): what Helm says of it.
    #[error("{0}")]
    NotReady(String),
    /// `--hide-secret` without a dry run: Helm's words, which its install also logs first.
    #[error("hiding Kubernetes secrets requires a dry-run mode")]
    HideSecretWithoutDryRun,
    /// An error of one of Helm's stages, which Helm prefixes (`INSTALLATION FAILED: ...`); berth prints the
    /// error itself.
    #[error("{1}")]
    Stage(Stage, Box<Error>),
}

/// The step of Helm 4.1.4 that refuses an invalid release name, and so its words for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameCheck {
    /// `install` and `template` (pkg/action `Install.availableName`): logged, then `release name check failed:
    /// release name "NAME": invalid release name, must match regex ...`.
    Install,
    /// `upgrade` (`Upgrade.prepareUpgrade`): `UPGRADE FAILED: release name is invalid: NAME`.
    Upgrade,
    /// `history`, and `upgrade --install`, which reads the history first (`History.Run`): `release name is
    /// invalid: NAME`.
    History,
    /// `rollback` (`Rollback.prepareRollback`).
    Rollback,
    /// `status` and `get` (`Configuration.releaseContent`).
    Content,
    /// `uninstall` (`Uninstall.Run`).
    Uninstall,
    /// `test` (`ReleaseTesting.Run`).
    Test,
}

impl NameCheck {
    /// Helm's message for `name`, and the log line Helm writes before it (`install`, `template`).
    fn helm_words(self, name: &str) -> (Option<(String, Option<String>)>, String) {
        let words = |prefix: &str| (None, format!("{prefix}{name}"));
        match self {
            NameCheck::Install => {
                let cause = format!(
                    "release name {}: invalid release name, must match regex {} and the length must not be longer than {}",
                    berth_go::strconv::quote(name),
                    berth_chart::render::VALID_RELEASE_NAME,
                    berth_chart::render::MAX_RELEASE_NAME_LEN
                );
                let message = format!("release name check failed: {cause}");
                (Some(("release name check failed".to_string(), Some(cause))), message)
            }
            NameCheck::Upgrade => words("UPGRADE FAILED: release name is invalid: "),
            NameCheck::History => words("release name is invalid: "),
            NameCheck::Rollback => words("prepareRollback: Release name is invalid: "),
            NameCheck::Content => words("releaseContent: Release name is invalid: "),
            NameCheck::Uninstall => words("uninstall: Release name is invalid: "),
            NameCheck::Test => words("releaseTest: Release name is invalid: "),
        }
    }
}

/// `name` checked as a release name (Helm's `ValidateReleaseName`) by Helm's step `check`.
///
/// # Errors
/// [`Error::ReleaseName`] for a name Helm refuses.
pub fn check_release_name(name: &str, check: NameCheck) -> Result<(), Error> {
    berth::release::validate_release_name(name).map_err(|error| Error::ReleaseName(check, error))
}

/// Where a release command failed, as Helm's commands word it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// `install`, and `upgrade --install` of a release that does not exist.
    Install,
    /// `upgrade` of a release that exists.
    Upgrade,
    /// `uninstall`.
    Uninstall,
}

impl Error {
    /// A failure to connect, as the user should read it: one line for a connection that could not be made.
    pub fn connect(error: cluster::ConnectError) -> Error {
        match error {
            cluster::ConnectError::NoConnection { .. } => Error::NoConnection(error),
            other => Error::Cluster(other),
        }
    }

    /// A chart-source failure: `what` could not be done because of `error`.
    /// `what` usually names the chart or repository as given, so a URL in it is shown without its password.
    pub fn from_source(what: impl Into<String>, error: impl Into<berth_source::SourceError>) -> Error {
        Error::Source(berth_source::redact::urls(&what.into()), Box::new(error.into()))
    }

    /// `error` as an error of `stage` (once: an error already in a stage stays in its own).
    pub fn in_stage(stage: Stage, error: Error) -> Error {
        match error {
            Error::Stage(..) => error,
            other => Error::Stage(stage, Box::new(other)),
        }
    }

    pub fn exit_code(&self) -> ExitCode {
        match self {
            Error::Stage(_, error) => error.exit_code(),
            Error::NotReady(_) => ExitCode::NotReady,
            Error::Manifest(_)
            | Error::Usage(_)
            | Error::HideSecretWithoutDryRun
            | Error::Cluster(_)
            | Error::NoConnection(_)
            | Error::Invalid(_)
            | Error::HealthRules(_)
            | Error::HealthAnnotations(_)
            | Error::Plan(_)
            | Error::Values(_)
            | Error::Chart(..)
            | Error::Source(..)
            | Error::Helm(..) => ExitCode::BadInput,
            Error::Diff(_) | Error::Failed(_) => ExitCode::NotReady,
            // A storage driver setting (HELM_DRIVER) berth cannot use is bad input.
            Error::Release(release::LifecycleError::Storage(release::StorageError::Driver(_))) => ExitCode::BadInput,
            Error::Release(release::LifecycleError::Storage(_)) | Error::Output(_) | Error::Record(_) => {
                ExitCode::NotReady
            }
            Error::Release(_) | Error::ReleaseName(..) => ExitCode::BadInput,
            Error::Cancelled(_) => ExitCode::Cancelled,
            // A controller without its CRD is bad input (exit 2); anything else ended it while running.
            Error::Controller(berth::controller::ControllerError::NoCrd) => ExitCode::BadInput,
            Error::Controller(_) => ExitCode::NotReady,
        }
    }
}

impl Error {
    /// The way out, when berth knows one.
    pub fn hint(&self) -> Option<String> {
        let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(self);
        while let Some(error) = cause {
            if let Some(hint) = hint_for(error) {
                return Some(hint);
            }
            cause = error.source();
        }
        None
    }

    /// The whole text as the user reads it on stderr.
    pub fn render(&self) -> String {
        if let Error::Stage(_, error) = self {
            return error.render();
        }
        let mut text = format!("error: {self}\n");
        let mut cause = self.source();
        let mut previous = String::new();
        while let Some(error) = cause {
            let message = readable(error);
            // An API error's source is its Status again (`message: reason`): the server's answer is said once.
            cause = if is_api_answer(error) { None } else { error.source() };
            // Some libraries put their cause in their own message as well: say it once.
            if !previous.is_empty() && previous.contains(message.as_str()) {
                continue;
            }
            let mut lines = message.lines();
            let _ = writeln!(text, "  Caused by: {}", lines.next().unwrap_or_default());
            for line in lines {
                let _ = writeln!(text, "             {line}");
            }
            previous = message;
        }
        if let Some(hint) = self.hint() {
            let _ = writeln!(text, "hint: {hint}");
        }
        text
    }
}

/// An error's text; a Kubernetes API error is its server's message and reason, not kube-rs's debug dump.
fn readable(error: &(dyn std::error::Error + 'static)) -> String {
    match error.downcast_ref::<kube::Error>() {
        Some(kube::Error::Api(status)) => format!("{} ({}, {})", status.message, status.reason, status.code),
        _ => error.to_string(),
    }
}

/// Whether the error is an answer of the API server (which `readable` prints whole).
fn is_api_answer(error: &(dyn std::error::Error + 'static)) -> bool {
    matches!(error.downcast_ref::<kube::Error>(), Some(kube::Error::Api(_)))
}

/// The hint one error of the chain gives, if any.
fn hint_for(error: &(dyn std::error::Error + 'static)) -> Option<String> {
    if let Some(plan) = error.downcast_ref::<plan::PlanError>()
        && plan.problems.iter().any(|problem| matches!(problem, plan::PlanProblem::Cycle(_)))
    {
        return Some("remove one of these dependencies or change a weight to break the cycle".to_string());
    }
    if let Some(apply::InvalidSet::Objects(objects)) = error.downcast_ref::<apply::InvalidSet>()
        && objects.problems.iter().any(|problem| matches!(problem, apply::ObjectProblem::UnknownKind { .. }))
    {
        return Some(
            "check the apiVersion and kind; a custom resource needs its CustomResourceDefinition installed first or \
             in the same set"
                .to_string(),
        );
    }
    if let Some(LifecycleError::Pending { name, .. }) = error.downcast_ref::<LifecycleError>() {
        return Some(format!("if no other berth or Helm is working on it, recover with `berth rollback {name}`"));
    }
    if let Some(LifecycleError::NoNamespace(_)) = error.downcast_ref::<LifecycleError>() {
        return Some("create it first, or pass `--create-namespace`".to_string());
    }
    if let Some(LifecycleError::NoRevision { name, .. }) = error.downcast_ref::<LifecycleError>() {
        return Some(format!("`berth history {name}` lists the revisions there are"));
    }
    if let Some(LifecycleError::InUse(name)) = error.downcast_ref::<LifecycleError>() {
        return Some(format!("upgrade it with `berth upgrade {name} ...`, or uninstall it first"));
    }
    if let Some(cluster::ConnectError::NoConnection { failure, .. }) = error.downcast_ref::<cluster::ConnectError>() {
        return Some(failure.hint().to_string());
    }
    if let Some(Error::NoConnection(cluster::ConnectError::NoConnection { failure, .. })) =
        error.downcast_ref::<Error>()
    {
        return Some(failure.hint().to_string());
    }
    // `Error::Source` boxes it (a `Box<E>` is its own error type for downcasting).
    let source_error = error
        .downcast_ref::<berth_source::SourceError>()
        .or_else(|| error.downcast_ref::<Box<berth_source::SourceError>>().map(|boxed| &**boxed));
    if let Some(source) = source_error {
        return source_hint(source);
    }
    if let Some(cluster::ConnectError::Unreachable { .. }) = error.downcast_ref::<cluster::ConnectError>() {
        return Some(
            "check that the cluster is running and that the kubeconfig (`--kubeconfig`, `KUBECONFIG`, `--context`) \
             points at it; `--sim` runs berth on its embedded simulated cluster"
                .to_string(),
        );
    }
    None
}

/// The way out of a chart-source failure.
fn source_hint(error: &berth_source::SourceError) -> Option<String> {
    use berth_source::{ErrorKind, SourceError};
    Some(match error.kind() {
        ErrorKind::UnknownRepository => {
            let name = match error {
                SourceError::RepoNotFound { name } => name.as_str(),
                _ => "NAME",
            };
            format!("add it with `berth repo add {name} URL` (or `helm repo add`); `berth repo list` shows the repositories configured")
        }
        ErrorKind::NoCachedIndex => {
            let name = match error {
                SourceError::NoCachedIndex { name, .. } => name.as_str(),
                _ => "",
            };
            format!("download its index with `berth repo update {name}`")
        }
        ErrorKind::NoMatchingVersion => match error {
            SourceError::NoTag { nearest, constraint, .. } if !nearest.is_empty() => {
                format!("the registry's versions nearest to `{constraint}` are {}", nearest.join(", "))
            }
            SourceError::NoTag { .. } => "the registry has no version tags for this chart".to_string(),
            SourceError::NoVersion { nearest, constraint, .. } if !nearest.is_empty() => format!(
                "the versions nearest to `{}` are {}; `berth repo update` refreshes a repository's index",
                if constraint.is_empty() { "*" } else { constraint },
                nearest.join(", ")
            ),
            SourceError::NotInRepository { nearest, .. } if !nearest.is_empty() => {
                format!("the repository's versions nearest to the one asked for are {}", nearest.join(", "))
            }
            SourceError::NotInRepository { .. } => "the repository's index has no such chart or version".to_string(),
            _ => "the index has no such version; `berth repo update` refreshes a repository's index".to_string(),
        },
        ErrorKind::Unreachable => {
            "check the address and that the server is running; a registry without TLS needs `--plain-http`, a private CA `--ca-file`".to_string()
        }
        ErrorKind::Unauthorized { host, registry: true } => format!(
            "log in with `berth registry login {}` (or `helm registry login`), or pass `--username` and `--password`",
            if host.is_empty() { "HOST" } else { host.as_str() }
        ),
        ErrorKind::Unauthorized { host, registry: false } => format!(
            "the repository at {} wants credentials: `berth repo add NAME URL --username USER --password-stdin` \
             stores them (with `--repo`, pass `--username` and `--password`); `--pass-credentials` sends them to \
             other hosts too",
            if host.is_empty() { "that address" } else { host.as_str() }
        ),
        ErrorKind::DigestMismatch => {
            "the content is not what its index or reference promises; nothing was used. Run `berth repo update`, or check the registry".to_string()
        }
        ErrorKind::Other => return None,
    })
}

/// A values problem, as Helm words it (the chart crate's errors are Helm's text).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ValuesProblem(pub String);

/// A chart problem, as Helm words it: loading, values, schemas, templates.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ChartProblem(pub String);

/// What Helm prints on stderr for `error` (`Error: ...`, after the log line Helm writes first for some), in Helm
/// 4's words for the errors scripts match (pkg/action, pkg/storage/driver): `release: not found`, `INSTALLATION
/// FAILED: ...`, `UPGRADE FAILED: ...`, `cannot reuse a name that is still in use`, ...
pub fn helm_text(error: &Error) -> String {
    let (log, message) = helm_message(error, None);
    let quote = berth_go::strconv::quote;
    let log = log.map(|(message, cause): (String, Option<String>)| match cause {
        Some(cause) => format!("level=ERROR msg={} error={}\n", quote(&message), quote(&cause)),
        None => format!("level=ERROR msg={}\n", quote(&message)),
    });
    let log = log.unwrap_or_default();
    format!("{log}Error: {message}\n")
}

/// Helm's message, and the log line (message, error) Helm writes before it, if any.
fn helm_message(error: &Error, stage: Option<Stage>) -> (Option<(String, Option<String>)>, String) {
    let prefix = match stage {
        Some(Stage::Install) => "INSTALLATION FAILED: ",
        Some(Stage::Upgrade) => "UPGRADE FAILED: ",
        Some(Stage::Uninstall) | None => "",
    };
    let staged = |message: String| format!("{prefix}{message}");
    match error {
        Error::Stage(stage, error) => helm_message(error, Some(*stage)),
        Error::Release(lifecycle) => {
            let name_check = |cause: String| {
                (
                    Some(("release name check failed".to_string(), Some(cause.clone()))),
                    staged(format!("release name check failed: {cause}")),
                )
            };
            match (lifecycle, stage) {
                (LifecycleError::NotFound(name), Some(Stage::Upgrade)) => {
                    (None, staged(format!("{} has no deployed releases", berth_go::strconv::quote(name))))
                }
                (LifecycleError::NotFound(name), Some(Stage::Uninstall)) => {
                    (None, format!("uninstall: Release not loaded: {name}: release: not found"))
                }
                (LifecycleError::NotFound(_), _) => (None, staged("release: not found".to_string())),
                (LifecycleError::InUse(_), _) => name_check("cannot reuse a name that is still in use".to_string()),
                // Helm finds no namespace when it creates the first object there (the API server's NotFound).
                (LifecycleError::NoNamespace(namespace), _) => (
                    None,
                    staged(format!(
                        "create: failed to create: namespaces {} not found",
                        berth_go::strconv::quote(namespace)
                    )),
                ),
                // Helm's install applies the namespace and returns the server's refusal as it is.
                (LifecycleError::CreateNamespace { source, .. }, _) => (None, staged(source.to_string())),
                (LifecycleError::NoRevision { version, .. }, _) => {
                    (None, staged(format!("release has no {version} version")))
                }
                (LifecycleError::AlreadyUninstalled(name), _) => {
                    (None, format!("the release named {} is already deleted", berth_go::strconv::quote(name)))
                }
                (LifecycleError::Pending { .. }, _) => {
                    (None, staged("another operation (install/upgrade/rollback) is in progress".to_string()))
                }
                // A request of Helm's storage driver, in its words; uninstall says which release it could not load.
                (LifecycleError::Storage(storage), stage) if let Some(words) = storage.helm_words() => {
                    match storage.queried_release() {
                        Some(name) if stage == Some(Stage::Uninstall) => {
                            (None, format!("uninstall: Release not loaded: {name}: {words}"))
                        }
                        _ => (None, staged(words)),
                    }
                }
                (other, _) => (None, staged(go_chain(other))),
            }
        }
        Error::ReleaseName(check, LifecycleError::InvalidName(name)) => {
            let (log, message) = check.helm_words(name);
            (log, staged(message))
        }
        Error::ReleaseName(_, other) => (None, staged(go_chain(other))),
        Error::Chart(_, problem) => {
            // A failed `ProcessDependencies`: Helm's install (and template) logs it first, its upgrade returns the
            // cause alone.
            let prefix = format!("{}: ", berth_chart::values::DEPENDENCIES_PROCESSING_FAILED);
            match problem.0.strip_prefix(&prefix) {
                Some(cause) if stage == Some(Stage::Upgrade) => (None, staged(cause.to_string())),
                Some(cause) => (
                    Some((berth_chart::values::DEPENDENCIES_PROCESSING_FAILED.to_string(), Some(cause.to_string()))),
                    staged(problem.0.clone()),
                ),
                None => (None, staged(problem.to_string())),
            }
        }
        Error::Values(problem) => (None, staged(problem.to_string())),
        Error::Usage(message) | Error::NotReady(message) => (None, staged(message.clone())),
        // Helm's install logs it before it fails (pkg/action `Install.RunWithContext`); an upgrade does not.
        Error::HideSecretWithoutDryRun => {
            let message = error.to_string();
            let log = (stage == Some(Stage::Install)).then(|| (message.clone(), None));
            (log, staged(message))
        }
        Error::NoConnection(error) | Error::Cluster(error) => {
            // Helm checks the cluster before an install and says so (`cluster reachability check failed`, logged
            // first); the other commands fail on their first request.
            let message = format!("kubernetes cluster unreachable: {}", unreachable_cause(error));
            match stage {
                Some(Stage::Install) => {
                    let message = format!("cluster reachability check failed: {message}");
                    (Some((message.clone(), None)), staged(message))
                }
                _ => (None, staged(message)),
            }
        }
        // What berth could not do (`cannot pull ...`) is berth's line; Helm prints the cause alone.
        Error::Source(_, cause) => (None, staged(helm_source_message(cause))),
        // The step is berth's words (`cannot verify ...`); Helm returns the cause as it is.
        Error::Helm(_, cause) => (None, staged(go_chain(cause.as_ref()))),
        other => (None, staged(go_chain(other))),
    }
}

/// A chart source's error in Helm's words where they name the program (`try 'helm repo update'`, berth-source
/// says `berth`) or differ (a chart the index lacks: pkg/repo `ChartVersion` with no version asked), else its chain.
fn helm_source_message(error: &berth_source::SourceError) -> String {
    use berth_source::SourceError;
    use berth_source::http::FetchError;
    let update = "(try 'helm repo update')";
    match error {
        SourceError::NoCachedIndex { reason, .. } => format!("no cached repo found. {update}: {reason}"),
        // Helm's `DownloadTo` drops the fetch's error when it must verify.
        SourceError::NoProvenance { .. } => error.to_string(),
        // berth-source words a refused connection as Go's `syscall.ECONNREFUSED` prints.
        // (A registry's refused connection is worded so by berth-source itself: `RegistryError::Request`.)
        SourceError::Fetch(fetch @ FetchError::Unreachable { .. }) => helm_fetch_message(fetch),
        SourceError::Authenticating { host, source } => {
            format!("authenticating to {}: {}", berth_go::strconv::quote(host), helm_source_message(source))
        }
        SourceError::NotARepository { url, source } => format!(
            "looks like {} is not a valid chart repository or cannot be reached: {}",
            berth_go::strconv::quote(&berth_source::redact::urls(url)),
            helm_source_message(source)
        ),
        SourceError::NoVersion { chart, constraint, repository, .. } => format!(
            "chart {} matching {constraint} not found in {repository} index. {update}: no chart version found for \
             {chart}-{constraint}",
            berth_go::strconv::quote(chart)
        ),
        // Helm's `ResolveChartVersion` wraps every error of the index's `Get` alike.
        SourceError::BadConstraint { chart, constraint, repository, reason } => format!(
            "chart {} matching {constraint} not found in {repository} index. {update}: {reason}",
            berth_go::strconv::quote(chart)
        ),
        SourceError::NoChart { chart, constraint, repository } => format!(
            "chart {} matching {constraint} not found in {repository} index. {update}: no chart name found",
            berth_go::strconv::quote(chart)
        ),
        other => go_chain(other),
    }
}

/// Go's `net/http` error for a GET of `url` whose connection was refused: `Get "URL": dial tcp HOST:PORT: connect:
/// connection refused` (the scheme's port when the URL names none).
/// A download's error as Helm's getter returns it (`failed to fetch URL : 404 Not Found`), a refused connection in
/// Go's words.
pub fn helm_fetch_message(error: &berth_source::http::FetchError) -> String {
    match error {
        berth_source::http::FetchError::Unreachable { url, reason } if reason == "connection refused" => {
            go_connection_refused(url)
        }
        other => go_chain(other),
    }
}

fn go_connection_refused(url: &str) -> String {
    format!("Get {}: {}", berth_go::strconv::quote(url), berth_source::http::go_dial_refused(url))
}

/// Why the cluster could not be reached, as client-go words it where berth knows its words: a context the
/// kubeconfig lacks, a connection refused (`Get "URL/version": dial tcp HOST:PORT: connect: connection refused`);
/// else berth's reason.
fn unreachable_cause(error: &berth::cluster::ConnectError) -> String {
    use berth::cluster::{ConnectError, ConnectionFailure};
    use kube::config::KubeconfigError;
    match error {
        ConnectError::Config(KubeconfigError::LoadContext(context)) => {
            format!("context {} does not exist", berth_go::strconv::quote(context))
        }
        ConnectError::NoConnection { url, failure: ConnectionFailure::Refused } => {
            go_connection_refused(&format!("{}/version", url.trim_end_matches('/')))
        }
        // client-go's loader stats each kubeconfig it is given.
        ConnectError::Kubeconfig { path, source: KubeconfigError::ReadConfig(io, _) }
            if io.kind() == std::io::ErrorKind::NotFound =>
        {
            format!("stat {path}: {}", berth_source::io_text(io))
        }
        // Go's `url.Error` around the reason (berth has Go's words for some TLS failures, rustls's for others).
        ConnectError::NoConnection { url, failure: ConnectionFailure::Tls(reason) } => {
            let version = format!("{}/version", url.trim_end_matches('/'));
            format!("Get {}: {reason}", berth_go::strconv::quote(&version))
        }
        ConnectError::NoConnection { failure, .. } => failure.to_string(),
        other => go_chain(other),
    }
}

/// An error and its causes on one line, as Go's wrapped errors print (`a: b: c`), each cause said once.
fn go_chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = readable(error);
    let mut cause = if is_api_answer(error) { None } else { error.source() };
    while let Some(error) = cause {
        let message = readable(error);
        if !text.contains(message.as_str()) {
            text.push_str(": ");
            text.push_str(&message);
        }
        cause = if is_api_answer(error) { None } else { error.source() };
    }
    text
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_chart_named_by_a_url_is_shown_without_its_password() {
        let error =
            Error::Chart("https://ci:s3cr3t@charts.example/app-1.0.0.tgz".to_string(), ChartProblem("x".into()));
        let shown = error.to_string();
        assert!(!shown.contains("s3cr3t"), "{shown}");
        assert!(shown.contains("https://ci:"), "{shown}");
    }

    use super::*;
    use berth_source::SourceError;

    #[test]
    fn errors_scripts_match_read_as_helm_writes_them() {
        let not_found = || Error::Release(LifecycleError::NotFound("shop".to_string()));
        let dependencies_failed = || {
            let message = "chart dependencies processing failed: type mismatch on db: %!t(int64=3)";
            Error::Chart("./shop".to_string(), ChartProblem(message.to_string()))
        };
        // (error, what Helm prints)
        let table = [
            (not_found(), "Error: release: not found\n".to_string()),
            (
                Error::in_stage(Stage::Upgrade, not_found()),
                "Error: UPGRADE FAILED: \"shop\" has no deployed releases\n".to_string(),
            ),
            (
                Error::in_stage(Stage::Uninstall, not_found()),
                "Error: uninstall: Release not loaded: shop: release: not found\n".to_string(),
            ),
            (
                Error::in_stage(Stage::Install, Error::Release(LifecycleError::InUse("shop".to_string()))),
                "level=ERROR msg=\"release name check failed\" error=\"cannot reuse a name that is still in use\"\n\
                 Error: INSTALLATION FAILED: release name check failed: cannot reuse a name that is still in use\n"
                    .to_string(),
            ),
            (
                Error::in_stage(
                    Stage::Install,
                    Error::NotReady("resource Deployment/default/web not ready".to_string()),
                ),
                "Error: INSTALLATION FAILED: resource Deployment/default/web not ready\n".to_string(),
            ),
            (
                Error::Release(LifecycleError::NoRevision { name: "shop".to_string(), version: 5 }),
                "Error: release has no 5 version\n".to_string(),
            ),
            (
                Error::in_stage(Stage::Install, dependencies_failed()),
                "level=ERROR msg=\"chart dependencies processing failed\" error=\"type mismatch on db: %!t(int64=3)\"\n\
                 Error: INSTALLATION FAILED: chart dependencies processing failed: type mismatch on db: %!t(int64=3)\n"
                    .to_string(),
            ),
            (
                Error::in_stage(Stage::Upgrade, dependencies_failed()),
                "Error: UPGRADE FAILED: type mismatch on db: %!t(int64=3)\n".to_string(),
            ),
        ];
        for (error, expected) in table {
            assert_eq!(helm_text(&error), expected);
        }
        let refused = || {
            Error::connect(berth::cluster::ConnectError::NoConnection {
                url: "https://127.0.0.1:1/".to_string(),
                failure: berth::cluster::ConnectionFailure::Refused,
            })
        };
        let unreachable = "kubernetes cluster unreachable: Get \"https://127.0.0.1:1/version\": dial tcp 127.0.0.1:1: connect: \
             connection refused";
        assert_eq!(helm_text(&refused()), format!("Error: {unreachable}\n"));
        assert_eq!(
            helm_text(&Error::in_stage(Stage::Install, refused())),
            format!(
                "level=ERROR msg={}\nError: INSTALLATION FAILED: cluster reachability check failed: {unreachable}\n",
                berth_go::strconv::quote(&format!("cluster reachability check failed: {unreachable}"))
            )
        );
        let twice = Error::in_stage(Stage::Upgrade, Error::in_stage(Stage::Install, not_found()));
        assert!(matches!(twice, Error::Stage(Stage::Install, _)), "an error keeps its first stage");
    }
    use berth_source::http::FetchError;

    /// A hint is prose: one space between words, however the literal is wrapped in the source.
    #[test]
    fn a_repository_refusing_without_credentials_hints_at_repo_add_in_one_sentence() {
        let refused = FetchError::Status {
            url: "https://charts.example:8443/index.yaml".into(),
            code: 401,
            status: "401 Unauthorized".into(),
        };
        let hint = source_hint(&SourceError::Fetch(refused)).expect("a hint");
        assert_eq!(
            hint,
            "the repository at charts.example:8443 wants credentials: `berth repo add NAME URL --username USER \
             --password-stdin` stores them (with `--repo`, pass `--username` and `--password`); \
             `--pass-credentials` sends them to other hosts too"
        );
    }
}
