//! Flag types several command families share, in one place: how long (`--timeout`), how progress is shown
//! (`--progress`, and `-o` of `apply`/`wait`/`delete`), Helm's `-o table|json|yaml`, `--dry-run[=MODE]` and
//! `--wait[=STRATEGY]` as Helm 4 parses them (pkg/cmd/helpers.go `cmdGetDryRunFlagStrategy`, pkg/cmd/flags.go
//! `waitValue.Set`), and Go's `strconv.ParseBool` for boolean flags given a value (`--debug=false`).

use berth::object::parse_go_duration;
use berth::release::show::Format;
use clap::ValueEnum;
use std::time::Duration;

/// A Go duration (`90s`, `5m`, `1h30m`), refused in Go's words as pflag refuses it.
pub fn duration_arg(text: &str) -> Result<Duration, DurationError> {
    parse_go_duration(text).map_err(DurationError)
}

/// `--timeout` of a release command, as Helm 4 takes it: any Go duration. A negative one is Helm's wait with no
/// deadline (client-go's `ContextWithOptionalTimeout` complains and waits on); `berth` refuses it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Timeout {
    Bounded(Duration),
    /// The value as given.
    Negative(String),
}

/// `--timeout`: a Go duration, negative ones included, refused in Go's words as pflag refuses them.
pub fn timeout_arg(text: &str) -> Result<Timeout, DurationError> {
    let nanoseconds = berth_go::time::parse_duration(text).map_err(DurationError)?;
    Ok(u64::try_from(nanoseconds).map_or_else(
        |_| Timeout::Negative(text.to_string()),
        |nanoseconds| Timeout::Bounded(Duration::from_nanos(nanoseconds)),
    ))
}

impl Timeout {
    /// The value as `berth` takes it: a negative one is refused.
    pub fn refuse_negative(&self) -> Result<(), String> {
        match self {
            Timeout::Bounded(_) => Ok(()),
            Timeout::Negative(text) => Err(format!(
                "invalid argument {text:?} for \"--timeout\" flag: negative duration {text:?}: berth takes none"
            )),
        }
    }
}

/// A duration flag's value berth cannot read, in Go's `time.ParseDuration` words; its own type so that berth as
/// `helm` can tell it from other bad values.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct DurationError(String);

/// How a long-running command shows what it is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ProgressFormat {
    /// A live table on a terminal, else one line per change, on stderr.
    Human,
    /// One JSON event per line on stdout, the last one the result.
    Json,
    /// Nothing while working (Helm's behaviour).
    None,
}

/// Helm's `-o`: `table`, `json` or `yaml`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum OutputFormat {
    #[default]
    Table,
    Json,
    Yaml,
}

impl From<OutputFormat> for Format {
    fn from(format: OutputFormat) -> Format {
        match format {
            OutputFormat::Table => Format::Table,
            OutputFormat::Json => Format::Json,
            OutputFormat::Yaml => Format::Yaml,
        }
    }
}

/// Go's `strconv.ParseBool`: what pflag accepts as a boolean flag's value (`--wait-for-jobs=true`).
pub fn go_bool(text: &str) -> Result<bool, String> {
    match text {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Ok(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Ok(false),
        _ => Err(format!("strconv.ParseBool: parsing {text:?}: invalid syntax")),
    }
}

/// `--dry-run` as given: bare (Helm's `NoOptDefVal` "unset"), or a value.
pub const DRY_RUN_BARE: &str = "unset";

/// What `--dry-run` asks for (Helm's `DryRunStrategy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DryRun {
    /// No simulation: the operation runs.
    #[default]
    None,
    /// Rendered without a cluster; nothing written.
    Client,
    /// Every object sent with `dryRun=All`; nothing written.
    Server,
}

/// `--dry-run` with its deprecation warning when Helm gives one (bare, or a boolean).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DryRunChoice {
    pub mode: DryRun,
    pub warning: Option<String>,
}

/// Helm's `cmdGetDryRunFlagStrategy` for install, upgrade and rollback.
///
/// # Errors
/// Helm's message for a value that is none of `none`, `client`, `server` or a boolean.
pub fn dry_run(value: Option<&str>) -> Result<DryRunChoice, String> {
    let plain = |mode| Ok(DryRunChoice { mode, warning: None });
    match value {
        None | Some("none") => plain(DryRun::None),
        Some(DRY_RUN_BARE) => Ok(DryRunChoice {
            mode: DryRun::Client,
            warning: Some("--dry-run is deprecated and should be replaced with '--dry-run=client'".to_string()),
        }),
        Some("client") => plain(DryRun::Client),
        Some("server") => plain(DryRun::Server),
        Some(other) => {
            let flag = go_bool(other).map_err(|_| {
                format!("invalid dry-run value ({other:?}). Must be \"none\", \"server\", or \"client\"")
            })?;
            let (mode, name) = if flag { (DryRun::Client, "client") } else { (DryRun::None, "none") };
            Ok(DryRunChoice {
                mode,
                warning: Some(format!(
                    "boolean '--dry-run={other}' flag is deprecated and must be replaced with '--dry-run={name}'"
                )),
            })
        }
    }
}

/// Helm 4's wait strategies (`kube.WaitStrategy`). berth judges readiness its own way for `watcher` and
/// `legacy` alike; `hookOnly` waits for hooks only, which is what berth does without `--wait`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WaitStrategy {
    #[default]
    HookOnly,
    Watcher,
    Legacy,
}

impl WaitStrategy {
    /// Whether the release's objects are waited for.
    pub fn waits(self) -> bool {
        self != WaitStrategy::HookOnly
    }

    /// The deadline of the operation's waits (its hooks' too) given `--timeout`, `None` for none: Helm's status
    /// watcher (`watcher`, and `hookOnly`'s hooks) takes a zero timeout as [`DEFAULT_STATUS_WATCHER_TIMEOUT`],
    /// the legacy waiter as no deadline, and both a negative one as no deadline (pkg/kube `statusWaiter.Wait`,
    /// `legacyWaiter.waitForResources`, client-go `watchtools.ContextWithOptionalTimeout`).
    pub fn timeout(self, timeout: &Timeout) -> Option<Duration> {
        match timeout {
            Timeout::Negative(_) => None,
            Timeout::Bounded(timeout) if timeout.is_zero() && self == WaitStrategy::Legacy => None,
            Timeout::Bounded(timeout) if timeout.is_zero() => Some(DEFAULT_STATUS_WATCHER_TIMEOUT),
            Timeout::Bounded(timeout) => Some(*timeout),
        }
    }
}

/// pkg/kube `DefaultStatusWatcherTimeout`: the status watcher's bound when it is given none (`--timeout 0`).
pub const DEFAULT_STATUS_WATCHER_TIMEOUT: Duration = Duration::from_secs(30);

/// `--wait` given without a value (Helm's `NoOptDefVal`).
pub const WAIT_BARE: &str = "watcher";

/// Helm's `waitValue.Set` (the boolean forms are deprecated there and accepted).
pub fn wait_strategy(text: &str) -> Result<WaitStrategy, String> {
    match text {
        "watcher" | "true" => Ok(WaitStrategy::Watcher),
        "legacy" => Ok(WaitStrategy::Legacy),
        "hookOnly" | "false" => Ok(WaitStrategy::HookOnly),
        _ => Err(format!("invalid wait input {text:?}. Valid inputs are watcher, hookOnly, and legacy")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timeout_bounds_each_waiter_as_in_helm_4() {
        let minute = Some(Duration::from_secs(60));
        // (--wait, --timeout, the deadline)
        let table = [
            (WaitStrategy::Watcher, "1m", minute),
            (WaitStrategy::Legacy, "1m", minute),
            (WaitStrategy::HookOnly, "1m", minute),
            (WaitStrategy::Watcher, "0s", Some(DEFAULT_STATUS_WATCHER_TIMEOUT)),
            (WaitStrategy::HookOnly, "0", Some(DEFAULT_STATUS_WATCHER_TIMEOUT)),
            (WaitStrategy::Legacy, "0s", None),
            (WaitStrategy::Watcher, "-5s", None),
            (WaitStrategy::Legacy, "-1ns", None),
        ];
        for (strategy, text, deadline) in table {
            let timeout = timeout_arg(text).expect("a Go duration");
            assert_eq!(strategy.timeout(&timeout), deadline, "{strategy:?} {text}");
            assert_eq!(timeout.refuse_negative().is_err(), text.starts_with('-'), "{text}");
        }
        assert_eq!(timeout_arg("5").expect_err("no unit").to_string(), "time: missing unit in duration \"5\"");
    }

    #[test]
    fn dry_run_values_are_read_as_helm_reads_them() {
        // (value, mode, warns)
        let table = [
            (None, DryRun::None, false),
            (Some("none"), DryRun::None, false),
            (Some(DRY_RUN_BARE), DryRun::Client, true),
            (Some("client"), DryRun::Client, false),
            (Some("server"), DryRun::Server, false),
            (Some("true"), DryRun::Client, true),
            (Some("false"), DryRun::None, true),
        ];
        for (value, mode, warns) in table {
            let choice = dry_run(value).expect("a mode");
            assert_eq!((choice.mode, choice.warning.is_some()), (mode, warns), "{value:?}");
        }
        assert_eq!(
            dry_run(Some("foo")).unwrap_err(),
            "invalid dry-run value (\"foo\"). Must be \"none\", \"server\", or \"client\""
        );
    }

    #[test]
    fn wait_strategies_are_helms() {
        assert_eq!(wait_strategy(WAIT_BARE), Ok(WaitStrategy::Watcher));
        assert_eq!(wait_strategy("legacy"), Ok(WaitStrategy::Legacy));
        assert!(!wait_strategy("hookOnly").expect("hookOnly").waits());
        assert!(wait_strategy("true").expect("true").waits());
        assert_eq!(
            wait_strategy("foo").unwrap_err(),
            "invalid wait input \"foo\". Valid inputs are watcher, hookOnly, and legacy"
        );
    }
}
