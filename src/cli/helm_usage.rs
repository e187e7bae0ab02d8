//! Where clap's way of reading a command line differs from Helm's (cobra and pflag), and how each interface
//! reports a command line it cannot read. pflag takes a value for any boolean flag (`--wait-for-jobs=false`,
//! Go's `strconv.ParseBool`), and a flag with an optional value (`--dry-run`) only as `--flag=value`; cobra
//! words its errors `Error: unknown flag: --foo`, `Error: unknown command "x" for "helm"` and exits 1.

use super::common_args::go_bool;
use super::global_args::Personality;
use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{Arg, ArgAction, Command};
use std::ffi::OsString;

/// The flags Helm 4.1.4 marks deprecated and notes (`MarkDeprecated` in pkg/cmd/install.go, upgrade.go,
/// rollback.go, template.go; checked against the binary): (commands, flag, pflag's note).
const DEPRECATED_FLAGS: [(&[&str], &str, &str); 3] = [
    (&["install", "upgrade", "rollback"], "force", "use --force-replace instead"),
    (&["install", "upgrade"], "atomic", "use --rollback-on-failure instead"),
    (&["template"], "validate", "use '--dry-run=server' instead"),
];

/// pflag's notes for the deprecated flags a Helm command line uses (`Flag --atomic has been deprecated, use
/// --rollback-on-failure instead`), one per use in the order given, which Helm prints on stderr as it parses.
/// The command is the first argument that names one (a global flag's value never does in practice).
pub fn deprecation_notes(arguments: &[std::ffi::OsString]) -> Vec<String> {
    let words: Vec<String> = arguments.iter().skip(1).map(|word| word.to_string_lossy().into_owned()).collect();
    let names_command = |word: &String| DEPRECATED_FLAGS.iter().any(|(commands, ..)| commands.contains(&word.as_str()));
    let Some(command) = words.iter().find(|word| names_command(word)) else {
        return Vec::new();
    };
    words
        .iter()
        .filter_map(|word| {
            let given = word.strip_prefix("--")?;
            let name = given.split_once('=').map_or(given, |(name, _)| name);
            DEPRECATED_FLAGS
                .iter()
                .find(|(commands, flag, _)| *flag == name && commands.contains(&command.as_str()))
                .map(|(_, flag, note)| format!("Flag --{flag} has been deprecated, {note}"))
        })
        .collect()
}

/// helm-diff's own spellings where the command is `diff`, which the global flags would read otherwise:
/// `--context NUM` (lines of context; the global `--context` is kubectl's spelling of `--kube-context`) goes to
/// diff's `--diff-context` (helmfile writes `helm diff upgrade ... --context 3`; a kubeconfig context goes by
/// `--kube-context` there, as helm-diff has it), and helm-diff's boolean `--color` (`--color`, `--color=true`,
/// `--color=false`) becomes the global `--color=always|never`. The command is the first argument that is
/// `diff` (a global flag's value never is in practice).
pub fn diff_context_lines(arguments: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    let Some(diff) = arguments.iter().skip(1).position(|word| word == "diff") else {
        return arguments;
    };
    arguments
        .into_iter()
        .enumerate()
        .map(|(index, word)| {
            if index <= diff + 1 {
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
        .collect()
}

/// Every boolean flag of `command` and of the subcommands a command line can reach also takes Go's values with
/// `=` (`--debug=false`), as pflag's boolean flags do. A subcommand is reached only when one of `arguments` is
/// its name or an alias, so the flags of the others (most of the tree) are left as they are: rewriting each flag
/// of every command was a measurable part of starting a short-lived process (docs/BENCHMARKS.md).
pub fn go_booleans(command: Command, arguments: &[OsString]) -> Command {
    let is_named = |subcommand: &Command| {
        arguments.iter().any(|word| {
            word.to_str().is_some_and(|word| {
                word == subcommand.get_name() || subcommand.get_all_aliases().any(|alias| word == alias)
            })
        })
    };
    command.mut_args(go_boolean).mut_subcommands(|subcommand| {
        if is_named(&subcommand) { go_booleans(subcommand, arguments) } else { subcommand }
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

/// The commands whose `--dry-run` takes an optional value.
const DRY_RUN_COMMANDS: [&str; 3] = ["install", "upgrade", "rollback"];

/// Helm's reading of flags with an optional value: `--dry-run` takes its mode only after `=`. kubectl's
/// `--context` is berth's alone: as `helm`, `--context` belongs to plugins (helm-diff's context lines).
pub fn helm_flags(command: Command) -> Command {
    let command = command.mut_arg("kube_context", |arg| arg.alias(None));
    DRY_RUN_COMMANDS.iter().fold(command, |command, name| {
        command.mut_subcommand(name, |subcommand| subcommand.mut_arg("dry_run", |arg| arg.require_equals(true)))
    })
}

/// Flags berth takes as `berth` that Helm 4.1.4 refuses (`Error: unknown flag: ...`): Helm 3's `status
/// --show-resources` and `--show-desc` (Helm 4 always shows both): (command, argument id, flag).
const HELM_3_FLAGS: [(&str, &str, &str); 2] =
    [("status", "show_resources", "--show-resources"), ("status", "show_desc", "--show-desc")];

/// As `helm`, a flag of [`HELM_3_FLAGS`] given on the command line is refused as Helm 4 refuses it.
///
/// # Errors
///
/// clap's unknown-argument error naming the flag, which [`report`] words as cobra does.
pub fn refuse_helm_3_flags(command: &mut Command, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
    let Some((name, subcommand)) = matches.subcommand() else { return Ok(()) };
    let given = HELM_3_FLAGS.iter().find(|(command, id, _)| {
        *command == name && subcommand.value_source(id) == Some(clap::parser::ValueSource::CommandLine)
    });
    let Some((_, _, flag)) = given else { return Ok(()) };
    let mut error = clap::Error::new(ErrorKind::UnknownArgument).with_cmd(command);
    error.insert(ContextKind::InvalidArg, ContextValue::String((*flag).to_string()));
    Err(error)
}

/// Reports a command line that could not be read (or a request for help or the version, which is printed) and
/// returns the exit code: berth's clap text and 2 (0 for help), or Helm's `Error: ...` and 1.
pub fn report(personality: Personality, error: &clap::Error) -> i32 {
    let asked = matches!(
        error.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    );
    if asked || personality == Personality::Berth {
        let _ = error.print();
        return if asked { 0 } else { error.exit_code() };
    }
    eprintln!("Error: {}", helm_message(error));
    1
}

/// cobra's and pflag's words for what clap found wrong.
fn helm_message(error: &clap::Error) -> String {
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
            let flag = flag();
            match flag.strip_prefix('-').filter(|short| !short.starts_with('-')) {
                Some(short) => format!("flag needs an argument: '{short}' in {flag}"),
                None => format!("flag needs an argument: {flag}"),
            }
        }
        ErrorKind::ValueValidation | ErrorKind::InvalidValue => {
            let cause = std::error::Error::source(error)
                .map(ToString::to_string)
                .unwrap_or_else(|| first_line(&error.to_string()));
            format!("invalid argument \"{}\" for \"{}\" flag: {cause}", value(), flag())
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
        ];
        for (given, expected) in cases {
            assert_eq!(diff_context_lines(words(given)), words(expected), "{given}");
        }
    }

    use super::*;

    fn parse(arguments: &[&str]) -> clap::Error {
        let words: Vec<OsString> = arguments.iter().map(OsString::from).collect();
        let command = go_booleans(
            Command::new("helm")
                .arg(Arg::new("debug").long("debug").action(ArgAction::SetTrue).global(true))
                .subcommand(
                    Command::new("list")
                        .arg(Arg::new("short").short('q').long("short").action(ArgAction::SetTrue))
                        .arg(Arg::new("time").long("time-format"))
                        .arg(Arg::new("wait").long("wait").value_parser(super::super::common_args::wait_strategy)),
                ),
            &words,
        );
        command.try_get_matches_from(arguments).expect_err("refused")
    }

    #[test]
    fn command_line_errors_are_worded_as_cobra_words_them() {
        // (command line, Helm's message)
        let table: [(&[&str], &str); 5] = [
            (&["helm", "list", "--foo"], "unknown flag: --foo"),
            (&["helm", "list", "-Z"], "unknown shorthand flag: 'Z' in -Z"),
            (&["helm", "foo"], "unknown command \"foo\" for \"helm\"\nRun 'helm --help' for usage."),
            (&["helm", "list", "--time-format"], "flag needs an argument: --time-format"),
            (
                &["helm", "list", "--wait", "foo"],
                "invalid argument \"foo\" for \"--wait\" flag: invalid wait input \"foo\". Valid inputs are watcher, \
                 hookOnly, and legacy",
            ),
        ];
        for (line, expected) in table {
            assert_eq!(helm_message(&parse(line)), expected, "{line:?}");
        }
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
