//! Where clap's way of reading a command line differs from Helm's (cobra and pflag), and how each interface
//! reports a command line it cannot read. pflag takes a value for any boolean flag (`--wait-for-jobs=false`,
//! Go's `strconv.ParseBool`), and a flag with an optional value (`--dry-run`) only as `--flag=value`; cobra
//! words its errors `Error: unknown flag: --foo`, `Error: unknown command "x" for "helm"` and exits 1.

use super::common_args::go_bool;
use super::diff::ROOT_FORM;
use super::global_args::Personality;
use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{Arg, ArgAction, Command};
use std::ffi::OsString;

/// helm-diff's own spellings where the command is `diff`, which the global flags would read otherwise:
/// `--context NUM` (lines of context; the global `--context` is kubectl's spelling of `--kube-context`) goes to
/// diff's `--diff-context` (helmfile writes `helm diff upgrade ... --context 3`; a kubeconfig context goes by
/// `--kube-context` there, as helm-diff has it), and helm-diff's boolean `--color` (`--color`, `--color=true`,
/// `--color=false`) becomes the global `--color=always|never`. helm-diff's root form, `diff RELEASE CHART`, is
/// read as `diff upgrade` marked [`ROOT_FORM`] (cobra runs the root command as `upgrade`, after a deprecation
/// notice). The command is the first argument that is `diff` (a global flag's value never is in practice).
pub fn diff_context_lines(arguments: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    let Some(diff) = arguments.iter().skip(1).position(|word| word == "diff") else {
        return arguments;
    };
    let diff = diff + 1;
    let root_form = arguments.get(diff + 1).and_then(|word| word.to_str()).is_some_and(|word| {
        !word.starts_with('-') && !["upgrade", "rollback", "release", "revision", "version", "local"].contains(&word)
    });
    let mut arguments: Vec<OsString> = arguments
        .into_iter()
        .enumerate()
        .map(|(index, word)| {
            if index <= diff {
                return word;
            }
            match word.to_str() {
                Some("--context") => "--diff-context".into(),
                Some(text) if text.starts_with("--context=") => format!("--diff-{}", &text[2..]).into(),
                Some("--color" | "--color=true") => "--color=always".into(),
                Some("--color=false") => "--color=never".into(),
                _ => word,
            }
        })
        .collect();
    if root_form {
        arguments.splice(diff + 1..diff + 1, ["upgrade".into(), ROOT_FORM.into()]);
    }
    arguments
}

/// Every boolean flag of `command` and of the subcommands a command line can reach also takes Go's values with
/// `=` (`--debug=false`), as pflag's boolean flags do. A subcommand is reached only when one of `arguments` is
/// its name or an alias, so the flags of the others (most of the tree) are left as they are: rewriting each flag
/// of every command was a measurable part of starting a short-lived process (docs/BENCHMARKS.md).
pub fn go_booleans(command: Command, arguments: &[OsString]) -> Command {
    reached(command, arguments, go_boolean)
}

/// `change` applied to every argument of `command` and of the subcommands `arguments` name (by name or alias).
fn reached(command: Command, arguments: &[OsString], change: fn(Arg) -> Arg) -> Command {
    let is_named = |subcommand: &Command| {
        arguments.iter().any(|word| {
            word.to_str().is_some_and(|word| {
                word == subcommand.get_name() || subcommand.get_all_aliases().any(|alias| word == alias)
            })
        })
    };
    command.mut_args(change).mut_subcommands(|subcommand| {
        if is_named(&subcommand) { reached(subcommand, arguments, change) } else { subcommand }
    })
}

fn go_boolean(arg: Arg) -> Arg {
    if !matches!(arg.get_action(), ArgAction::SetTrue) {
        return arg;
    }
    arg.action(ArgAction::Set)
        .num_args(0..=1)
        .require_equals(true)
        .default_missing_value("true")
        .default_value("false")
        .value_parser(go_bool)
}

/// pflag gives a flag that takes a value the next word whatever it is (`--max -1`, `--timeout -1s`), where clap
/// would read a word starting with `-` as a flag. Flags whose value is optional keep clap's reading (they take
/// one only after `=`, as in pflag).
fn pflag_value(arg: Arg) -> Arg {
    let takes_one_value = matches!(arg.get_action(), ArgAction::Set | ArgAction::Append)
        && !arg.is_positional()
        && !arg.is_require_equals_set()
        && arg.get_num_args().is_none_or(|count| count.min_values() == 1 && count.max_values() == 1);
    if takes_one_value { arg.allow_hyphen_values(true) } else { arg }
}

/// The commands whose `--dry-run` takes an optional value.
const DRY_RUN_COMMANDS: [&str; 3] = ["install", "upgrade", "rollback"];

/// Helm's reading of flags with a value: `--dry-run` takes its mode only after `=`, any other flag the next word. kubectl's
/// `--context` is berth's alone: as `helm`, `--context` belongs to plugins (helm-diff's context lines).
pub fn helm_flags(command: Command, arguments: &[OsString]) -> Command {
    let command = reached(command.mut_arg("kube_context", |arg| arg.alias(None)), arguments, pflag_value);
    let command = DRY_RUN_COMMANDS.iter().fold(command, |command, name| {
        command.mut_subcommand(name, |subcommand| subcommand.mut_arg("dry_run", |arg| arg.require_equals(true)))
    });
    SERVER_SIDE_FLAGS.iter().fold(command, |command, (name, kind)| {
        command.mut_subcommand(name, |subcommand| {
            subcommand.mut_arg("server_side", |arg| match kind {
                // Helm's default, `true`, read by the same parser (berth's `auto` is no boolean).
                ServerSideFlag::Boolean => arg.value_parser(go_bool_text).default_value("true"),
                ServerSideFlag::Text => arg.num_args(1).require_equals(false).default_missing_value(None),
            })
        })
    })
}

/// How a Helm 4.1.4 command declares `--server-side` (pkg/cmd/flags.go and each command's flags).
enum ServerSideFlag {
    /// A boolean (`install`, `template`: default true, `--server-side=auto` refused as Go's `ParseBool` refuses it).
    Boolean,
    /// A string that needs a value (`upgrade`, `rollback`: `true`, `false` or `auto`).
    Text,
}

const SERVER_SIDE_FLAGS: [(&str, ServerSideFlag); 4] = [
    ("install", ServerSideFlag::Boolean),
    ("template", ServerSideFlag::Boolean),
    ("upgrade", ServerSideFlag::Text),
    ("rollback", ServerSideFlag::Text),
];

/// A boolean flag's value as Go reads it, kept as the text `true` or `false`.
fn go_bool_text(text: &str) -> Result<String, String> {
    go_bool(text).map(|value| value.to_string())
}

/// Reports a command line that could not be read (or a request for help or the version, which is printed) and
/// returns the exit code: berth's clap text and 2 (0 for help), or Helm's `Error: ...` and 1. `command` is the
/// definition `arguments` were read with, asked for only to word a Helm error (the command, a flag's shorthand).
pub fn report(
    personality: Personality,
    error: &clap::Error,
    arguments: &[OsString],
    command: impl FnOnce() -> Command,
) -> i32 {
    let asked = matches!(
        error.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    );
    // cobra prints the help of a command that needs a subcommand (`helm get`) on stdout, as asked-for help.
    if personality == Personality::Helm && error.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
        print!("{}", error.render());
        return 0;
    }
    if asked || personality == Personality::Berth {
        let _ = error.print();
        return if asked { 0 } else { error.exit_code() };
    }
    eprintln!("Error: {}", helm_message(error, &command(), arguments));
    1
}

/// Whether clap refused a flag's value (which pflag refuses while it parses), not the command's arguments.
pub fn is_flag_value_error(error: &clap::Error) -> bool {
    matches!(error.kind(), ErrorKind::ValueValidation | ErrorKind::InvalidValue) && !is_positional(error)
}

/// How many arguments a Helm command takes, as its `Args` validator (pkg/cmd/require/args.go) words it.
#[derive(Debug, Clone, Copy)]
enum Arity {
    /// `require.NoArgs`
    None,
    /// `require.ExactArgs(n)`
    Exactly(usize),
    /// `require.MinimumNArgs(n)`
    AtLeast(usize),
    /// `require.MaximumNArgs(n)`
    AtMost(usize),
    /// No `Args` check: the command's own error when it is given no argument (`helm package`).
    Missing(&'static str),
}

/// The Helm 4.1.4 commands whose argument count clap checks, with Helm's validator (pkg/cmd/*.go, checked
/// against the binary). Commands that count their arguments themselves (`install`, `template`: `expected at most
/// two arguments`) are not here.
const ARITIES: [(&str, Arity); 44] = [
    ("helm completion bash", Arity::None),
    ("helm completion fish", Arity::None),
    ("helm completion powershell", Arity::None),
    ("helm completion zsh", Arity::None),
    ("helm create", Arity::Exactly(1)),
    ("helm dependency build", Arity::AtMost(1)),
    ("helm dependency list", Arity::AtMost(1)),
    ("helm dependency update", Arity::AtMost(1)),
    ("helm env", Arity::AtMost(1)),
    ("helm get all", Arity::Exactly(1)),
    ("helm get hooks", Arity::Exactly(1)),
    ("helm get manifest", Arity::Exactly(1)),
    ("helm get metadata", Arity::Exactly(1)),
    ("helm get notes", Arity::Exactly(1)),
    ("helm get values", Arity::Exactly(1)),
    ("helm history", Arity::Exactly(1)),
    ("helm install", Arity::AtLeast(1)),
    ("helm lint", Arity::AtLeast(1)),
    ("helm list", Arity::None),
    ("helm package", Arity::Missing("need at least one argument, the path to the chart")),
    ("helm plugin install", Arity::Exactly(1)),
    ("helm plugin package", Arity::Exactly(1)),
    ("helm plugin verify", Arity::Exactly(1)),
    ("helm pull", Arity::AtLeast(1)),
    ("helm push", Arity::AtLeast(2)),
    ("helm registry login", Arity::AtLeast(1)),
    ("helm registry logout", Arity::AtLeast(1)),
    ("helm repo add", Arity::Exactly(2)),
    ("helm repo index", Arity::Exactly(1)),
    ("helm repo list", Arity::None),
    ("helm repo remove", Arity::AtLeast(1)),
    ("helm rollback", Arity::AtLeast(1)),
    ("helm show all", Arity::Exactly(1)),
    ("helm show chart", Arity::Exactly(1)),
    ("helm show crds", Arity::Exactly(1)),
    ("helm show readme", Arity::Exactly(1)),
    ("helm show values", Arity::Exactly(1)),
    ("helm status", Arity::Exactly(1)),
    ("helm template", Arity::AtLeast(1)),
    ("helm test", Arity::Exactly(1)),
    ("helm uninstall", Arity::AtLeast(1)),
    ("helm upgrade", Arity::Exactly(2)),
    ("helm verify", Arity::Exactly(1)),
    ("helm version", Arity::None),
];

/// Helm's words for a command given too few or too many arguments (`"helm status" requires 1 argument`), when
/// clap's error is about the count of arguments of a command in [`ARITIES`].
fn arity_message(error: &clap::Error, path: &str, arguments: &[OsString]) -> Option<String> {
    // Words after `--` are arguments, whatever they look like.
    let after_dashes =
        |word: &str| arguments.iter().skip_while(|given| *given != "--").skip(1).any(|given| given == word);
    let counted = match error.kind() {
        // A word clap found no place for: one argument too many (a flag would start with `-`, unless after `--`).
        ErrorKind::UnknownArgument => matches!(
            error.get(ContextKind::InvalidArg),
            Some(ContextValue::String(word)) if !word.starts_with('-') || after_dashes(word)
        ),
        // Only positional arguments missing (clap shows them as `<NAME>`, a flag as `--flag <VALUE>`).
        ErrorKind::MissingRequiredArgument => match error.get(ContextKind::InvalidArg) {
            Some(ContextValue::Strings(missing)) => missing.iter().all(|name| name.starts_with('<')),
            _ => false,
        },
        _ => false,
    };
    if !counted {
        return None;
    }
    let (_, arity) = ARITIES.iter().find(|(command, _)| *command == path)?;
    let arguments = |count: usize| if count == 1 { "argument" } else { "arguments" };
    Some(match *arity {
        Arity::None => format!("\"{path}\" accepts no arguments"),
        Arity::Exactly(count) => format!("\"{path}\" requires {count} {}", arguments(count)),
        Arity::AtLeast(count) => format!("\"{path}\" requires at least {count} {}", arguments(count)),
        Arity::AtMost(count) => format!("\"{path}\" accepts at most {count} {}", arguments(count)),
        Arity::Missing(message) => message.to_string(),
    })
}

/// Helm's subcommands that are a first argument in berth (`show WHAT CHART`, `completion SHELL`): the words that
/// name one, for Helm's name of the command in an error (`"helm show chart" requires 1 argument`).
const ARGUMENT_SUBCOMMANDS: [(&str, &[&str]); 2] =
    [("show", &["all", "chart", "crds", "readme", "values"]), ("completion", &["bash", "fish", "powershell", "zsh"])];

/// `path` with the Helm subcommand berth reads as its first argument, when the line names one (see
/// [`ARGUMENT_SUBCOMMANDS`]): the word right after the command, where the reading puts Helm's command words.
fn with_argument_subcommand(mut path: Vec<String>, arguments: &[OsString]) -> Vec<String> {
    let [command] = path.as_slice() else { return path };
    let Some((_, names)) = ARGUMENT_SUBCOMMANDS.iter().find(|(name, _)| name == command) else { return path };
    let after = arguments.iter().skip(1).skip_while(|word| *word != command.as_str() && *word != "inspect").nth(1);
    if let Some(word) = after.and_then(|word| word.to_str()).filter(|word| names.contains(word)) {
        path.push(word.to_string());
    }
    path
}

/// The subcommands a command line names, from the root (`["get", "values"]`): each word that is not a flag and
/// names a subcommand of the one before (by name or alias); other words are flag values or arguments.
fn subcommand_path(root: &Command, arguments: &[OsString]) -> Vec<String> {
    let mut path = Vec::new();
    let mut command = root;
    for word in arguments.iter().skip(1).filter_map(|word| word.to_str()).filter(|word| !word.starts_with('-')) {
        if !command.has_subcommands() {
            break;
        }
        if let Some(subcommand) = command.find_subcommand(word) {
            path.push(subcommand.get_name().to_string());
            command = subcommand;
        }
    }
    path
}

/// pflag's name of a flag in its errors: `-o, --output` when it has a shorthand, else `--output` (pflag's
/// `FlagSet.set`). The flag is looked up in the command the line names, then among the global flags.
fn pflag_name(long: &str, root: &Command, path: &[String]) -> String {
    let Some(name) = long.strip_prefix("--") else {
        return long.to_string();
    };
    let command = path.iter().try_fold(root, |command, word| command.find_subcommand(word));
    let short = [command, Some(root)]
        .into_iter()
        .flatten()
        .find_map(|command| command.get_arguments().find(|arg| arg.get_long() == Some(name)))
        .and_then(Arg::get_short);
    match short {
        Some(short) => format!("-{short}, {long}"),
        None => long.to_string(),
    }
}

/// The cause pflag gives for a value its flag's Go type cannot read: Go's `strconv.ParseInt`,
/// `strconv.ParseFloat` or `time.ParseDuration` error for an int, float or duration flag.
fn go_value_cause(cause: &(dyn std::error::Error + 'static), value: &str) -> Option<String> {
    use berth_go::strconv::{NumError, parse_float, parse_int, quote};
    let number = |function: &str, error: Option<NumError>| {
        let why = match error {
            Some(NumError::Range) => "value out of range",
            _ => "invalid syntax",
        };
        format!("{function}: parsing {}: {why}", quote(value))
    };
    if let Some(error) = cause.downcast_ref::<std::num::ParseIntError>() {
        // A number too large for the flag's type (an int32 such as klog's `-v`) though not for Go's 64 bits.
        let overflow =
            matches!(error.kind(), std::num::IntErrorKind::PosOverflow | std::num::IntErrorKind::NegOverflow);
        Some(number("strconv.ParseInt", if overflow { Some(NumError::Range) } else { parse_int(value, 0).err() }))
    } else if cause.is::<std::num::ParseFloatError>() {
        Some(number("strconv.ParseFloat", parse_float(value).err()))
    } else if cause.is::<super::common_args::DurationError>() {
        berth_go::time::parse_duration(value).err()
    } else {
        None
    }
}

/// Whether clap's error is about a positional argument (`[REVISION]`, `<NAME>`), not a flag.
fn is_positional(error: &clap::Error) -> bool {
    matches!(error.get(ContextKind::InvalidArg), Some(ContextValue::String(name)) if name.starts_with(['[', '<']))
}

/// cobra's and pflag's words for what clap found wrong.
fn helm_message(error: &clap::Error, command: &Command, arguments: &[OsString]) -> String {
    let path = with_argument_subcommand(subcommand_path(command, arguments), arguments);
    let named = std::iter::once("helm").chain(path.iter().map(String::as_str)).collect::<Vec<_>>().join(" ");
    if let Some(message) = arity_message(error, &named, arguments) {
        return message;
    }
    let flag = || match error.get(ContextKind::InvalidArg) {
        // clap names a flag with its value's form (`--wait[=<STRATEGY>]`, `--timeout <TIMEOUT>`); pflag by name.
        Some(ContextValue::String(text)) => text.split([' ', '[', '=']).next().unwrap_or_default().to_string(),
        _ => String::new(),
    };
    let value = || match error.get(ContextKind::InvalidValue) {
        Some(ContextValue::String(text)) => text.clone(),
        _ => String::new(),
    };
    match error.kind() {
        ErrorKind::UnknownArgument => {
            let flag = flag();
            match flag.strip_prefix('-').filter(|short| !short.starts_with('-')) {
                Some(short) => format!(
                    "unknown shorthand flag: '{}' in {flag}",
                    short.chars().next().map(String::from).unwrap_or_default()
                ),
                None => format!("unknown flag: {flag}"),
            }
        }
        ErrorKind::InvalidSubcommand => {
            let name = match error.get(ContextKind::InvalidSubcommand) {
                Some(ContextValue::String(name)) => name.clone(),
                _ => String::new(),
            };
            format!("unknown command \"{name}\" for \"helm\"\nRun 'helm --help' for usage.")
        }
        ErrorKind::InvalidValue if value().is_empty() => {
            // The flag without its value ends the line; pflag names it as written there (clap by its long name).
            let last = arguments.last().and_then(|word| word.to_str()).unwrap_or_default();
            match last.strip_prefix('-').filter(|short| !short.starts_with('-')).and_then(|short| short.chars().last())
            {
                Some(short) => format!("flag needs an argument: '{short}' in {last}"),
                None => format!("flag needs an argument: {}", flag()),
            }
        }
        // `rollback NAME REVISION` converts its argument in the command (pkg/cmd/rollback.go), not as a flag.
        ErrorKind::ValueValidation if named == "helm rollback" && is_positional(error) => {
            let value = value();
            let why = match berth_go::strconv::parse_int(&value, 10) {
                Err(berth_go::strconv::NumError::Range) => "value out of range",
                _ => "invalid syntax",
            };
            format!(
                "could not convert revision to a number: strconv.Atoi: parsing {}: {why}",
                berth_go::strconv::quote(&value)
            )
        }
        ErrorKind::ValueValidation | ErrorKind::InvalidValue => {
            let (flag, value) = (flag(), value());
            let cause = match std::error::Error::source(error) {
                Some(cause) => go_value_cause(cause, &value).unwrap_or_else(|| cause.to_string()),
                // Helm's `-o` refuses a format it does not know in these words (pkg/cli/output `ParseFormat`).
                None if flag == "--output" => "invalid format type".to_string(),
                None => first_line(&error.to_string()),
            };
            format!("invalid argument \"{value}\" for \"{}\" flag: {cause}", pflag_name(&flag, command, &path))
        }
        _ => first_line(&error.to_string()),
    }
}

/// clap's message without its `error: ` head, on one line.
fn first_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default();
    line.strip_prefix("error: ").unwrap_or(line).to_string()
}

#[cfg(test)]
mod tests {
    #[test]
    fn context_after_diff_is_helm_diffs_lines_of_context() {
        let words = |line: &str| line.split(' ').map(std::ffi::OsString::from).collect::<Vec<_>>();
        let cases = [
            ("helm diff upgrade web ./c --context 3", "helm diff upgrade web ./c --diff-context 3"),
            ("helm diff upgrade web ./c --context=5 -C 2", "helm diff upgrade web ./c --diff-context=5 -C 2"),
            ("helm --context prod diff upgrade web ./c", "helm --context prod diff upgrade web ./c"),
            ("helm upgrade web ./c --context prod", "helm upgrade web ./c --context prod"),
            ("helm diff upgrade web ./c --color", "helm diff upgrade web ./c --color=always"),
            ("helm diff upgrade web ./c --color=false", "helm diff upgrade web ./c --color=never"),
            ("helm list --color never", "helm list --color never"),
            // The root form runs as `upgrade`; a subcommand or a flag after `diff` is no root form.
            ("helm diff web ./c --context 1", "helm diff upgrade --deprecated-root-form web ./c --diff-context 1"),
            ("helm -n x diff web ./c", "helm -n x diff upgrade --deprecated-root-form web ./c"),
            ("helm diff version", "helm diff version"),
            ("helm diff --no-color upgrade web ./c", "helm diff --no-color upgrade web ./c"),
        ];
        for (given, expected) in cases {
            assert_eq!(diff_context_lines(words(given)), words(expected), "{given}");
        }
    }

    use super::*;

    fn parse(arguments: &[&str]) -> String {
        let words: Vec<OsString> = arguments.iter().map(OsString::from).collect();
        let command = go_booleans(
            Command::new("helm")
                .arg(Arg::new("debug").long("debug").action(ArgAction::SetTrue).global(true))
                .subcommand(
                    Command::new("list")
                        .arg(Arg::new("short").short('q').long("short").action(ArgAction::SetTrue))
                        .arg(Arg::new("max").short('m').long("max").value_parser(clap::value_parser!(i64)))
                        .arg(Arg::new("time").long("time-format"))
                        .arg(Arg::new("wait").long("wait").value_parser(super::super::common_args::wait_strategy)),
                )
                .subcommand(Command::new("get").subcommand(Command::new("values").arg(Arg::new("name").required(true))))
                .subcommand(
                    Command::new("show")
                        .alias("inspect")
                        .arg(Arg::new("what").required(true))
                        .arg(Arg::new("chart").required(true)),
                )
                .subcommand(Command::new("package").arg(Arg::new("chart").required(true).num_args(1..))),
            &words,
        );
        let command = helm_flags_for_test(command, &words);
        let error = command.clone().try_get_matches_from(arguments).expect_err("refused");
        helm_message(&error, &command, &words)
    }

    /// [`helm_flags`] without the flags the test's command does not have.
    fn helm_flags_for_test(command: Command, words: &[OsString]) -> Command {
        reached(command, words, pflag_value)
    }

    #[test]
    fn command_line_errors_are_worded_as_cobra_words_them() {
        // (command line, Helm's message)
        let table: [(&[&str], &str); 14] = [
            (&["helm", "list", "--foo"], "unknown flag: --foo"),
            (&["helm", "list", "-Z"], "unknown shorthand flag: 'Z' in -Z"),
            (&["helm", "foo"], "unknown command \"foo\" for \"helm\"\nRun 'helm --help' for usage."),
            (&["helm", "list", "--time-format"], "flag needs an argument: --time-format"),
            (&["helm", "list", "-m"], "flag needs an argument: 'm' in -m"),
            (
                &["helm", "list", "--wait", "foo"],
                "invalid argument \"foo\" for \"--wait\" flag: invalid wait input \"foo\". Valid inputs are watcher, \
                 hookOnly, and legacy",
            ),
            (
                &["helm", "list", "--max", "x"],
                "invalid argument \"x\" for \"-m, --max\" flag: strconv.ParseInt: parsing \"x\": invalid syntax",
            ),
            (
                &["helm", "list", "-m", "99999999999999999999"],
                "invalid argument \"99999999999999999999\" for \"-m, --max\" flag: strconv.ParseInt: parsing \
                 \"99999999999999999999\": value out of range",
            ),
            (&["helm", "list", "extra"], "\"helm list\" accepts no arguments"),
            (&["helm", "get", "values"], "\"helm get values\" requires 1 argument"),
            (&["helm", "get", "values", "a", "b"], "\"helm get values\" requires 1 argument"),
            // berth's first argument is Helm's subcommand; a command that words its own error.
            (&["helm", "show", "chart"], "\"helm show chart\" requires 1 argument"),
            (&["helm", "inspect", "values", "a", "b"], "\"helm show values\" requires 1 argument"),
            (&["helm", "package"], "need at least one argument, the path to the chart"),
        ];
        for (line, expected) in table {
            assert_eq!(parse(line), expected, "{line:?}");
        }
        // pflag takes the next word as a flag's value, whatever it is.
        let words: Vec<OsString> = ["helm", "list", "-m", "-1"].iter().map(OsString::from).collect();
        let command = helm_flags_for_test(
            Command::new("helm").subcommand(
                Command::new("list").arg(Arg::new("max").short('m').value_parser(clap::value_parser!(i64))),
            ),
            &words,
        );
        let matches = command.try_get_matches_from(&words).expect("a negative value");
        assert_eq!(matches.subcommand_matches("list").and_then(|list| list.get_one::<i64>("max")), Some(&-1));
    }

    #[test]
    fn boolean_flags_take_go_values() {
        let command = go_booleans(
            Command::new("helm").arg(Arg::new("debug").long("debug").action(ArgAction::SetTrue)),
            &[OsString::from("helm")],
        );
        for (line, expected) in [(&["helm"][..], false), (&["helm", "--debug"], true), (&["helm", "--debug=F"], false)]
        {
            let matches = command.clone().try_get_matches_from(line).expect("parses");
            assert_eq!(matches.get_one::<bool>("debug"), Some(&expected), "{line:?}");
        }
        assert!(command.try_get_matches_from(["helm", "--debug=maybe"]).is_err());
    }

    #[test]
    fn boolean_flags_of_the_subcommands_a_line_names_take_go_values() {
        let tree =
            || {
                Command::new("helm")
                    .subcommand(Command::new("list").arg(Arg::new("all").long("all").action(ArgAction::SetTrue)))
                    .subcommand(Command::new("repo").alias("repository").subcommand(
                        Command::new("add").arg(Arg::new("force").long("force").action(ArgAction::SetTrue)),
                    ))
            };
        for line in [&["helm", "list", "--all=false"][..], &["helm", "repository", "add", "--force=true"]] {
            let words: Vec<OsString> = line.iter().map(OsString::from).collect();
            assert!(go_booleans(tree(), &words).try_get_matches_from(line).is_ok(), "{line:?}");
        }
        // A subcommand no word names is not reached, and keeps clap's own flags.
        let words = [OsString::from("helm"), OsString::from("list")];
        let converted = go_booleans(tree(), &words);
        let add = converted.find_subcommand("repo").and_then(|repo| repo.find_subcommand("add"));
        let force = add.and_then(|add| add.get_arguments().find(|arg| arg.get_id() == "force"));
        assert!(force.is_some_and(|force| matches!(force.get_action(), ArgAction::SetTrue)));
    }
}
