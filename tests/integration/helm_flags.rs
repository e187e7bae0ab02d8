//! Every command Helm 4.1.4's own `--help` lists, and every flag of it, is accepted by berth run as `helm`
//! (issue 26: "every flag of Helm 4.1's `--help` accepted"). The commands and flags are read from the real
//! binary's help (its `Available Commands:` and `Flags:` sections, walked from the root), never from a list berth
//! keeps, so a command or flag berth lacks fails the test. Each flag is given to berth with a value of its type
//! and `--help`: clap prints the help for a line it can read and refuses an unknown flag (`Error: unknown flag:
//! --x`, exit 1).

use crate::helm_commands::{Program, run_in, text};
use std::path::Path;

/// A value each flag type of pflag's help accepts (`--timeout duration`), and for flags whose values are a closed
/// set, one of them.
fn value_for(flag: &str, value_type: &str) -> Option<String> {
    let chosen = match (flag, value_type) {
        // An optional value (`--wait WaitStrategy[=watcher]`, `--dry-run string[="client"]`): given bare.
        (_, kind) if kind.contains("[=") => return None,
        ("color" | "colour", _) => "auto",
        ("output", _) => "table",
        ("cascade", _) => "background",
        ("server-side", _) => "auto",
        (_, "duration") => "1m",
        (_, "int" | "uint" | "int32" | "int64" | "float32" | "float64") => "1",
        (_, "stringToString") => "a=b",
        _ => "x",
    };
    Some(chosen.to_string())
}

/// One command's subcommands and flags (name, value type; `None` for a boolean), from its help text.
fn read_help(help: &str) -> (Vec<String>, Vec<Flag>) {
    let mut commands = Vec::new();
    let mut flags = Vec::new();
    let mut section = "";
    for line in help.lines() {
        if !line.starts_with(' ') {
            section = line.trim_end_matches(':');
            continue;
        }
        match section {
            "Available Commands" => {
                if let Some(name) = line.split_whitespace().next().filter(|name| !["help", "completion"].contains(name))
                {
                    commands.push((*name).to_string());
                }
            }
            "Flags" => {
                let Some(start) = line.find("--") else { continue };
                let rest = &line[start + 2..];
                let end = rest.find(' ').unwrap_or(rest.len());
                let (flag, after) = rest.split_at(end);
                if flag == "help" {
                    continue;
                }
                // pflag writes a flag's type one space after it and its usage two or more spaces after.
                let value_type = after
                    .strip_prefix(' ')
                    .filter(|after| !after.starts_with(' '))
                    .and_then(|after| after.split(' ').next())
                    .map(str::to_string);
                flags.push((flag.to_string(), value_type));
            }
            _ => {}
        }
    }
    (commands, flags)
}

/// A flag's name and its value type (`None` for a boolean).
type Flag = (String, Option<String>);

/// Every command path of Helm's help tree and its flags, the root's (the global flags) first.
fn helm_commands(work: &Path, home: &Path) -> Vec<(Vec<String>, Vec<Flag>)> {
    let mut found = Vec::new();
    let mut pending = vec![Vec::<String>::new()];
    while let Some(path) = pending.pop() {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        let output = run_in(Program::Helm, &args, work, home, &[]);
        assert!(output.status.success(), "helm {args:?}: {}", text(&output.stderr));
        let (commands, flags) = read_help(&text(&output.stdout));
        pending.extend(commands.into_iter().map(|command| [path.clone(), vec![command]].concat()));
        found.push((path, flags));
    }
    found
}

#[test]
fn every_flag_of_helms_help_is_accepted_by_berth_as_helm() {
    let work = tempfile::tempdir().expect("work directory");
    let home = tempfile::tempdir().expect("home");
    let commands = helm_commands(work.path(), home.path());
    let flag_count: usize = commands.iter().map(|(_, flags)| flags.len()).sum();
    assert!(commands.len() >= 40, "Helm 4.1.4 has over 40 commands; read {}", commands.len());
    assert!(flag_count >= 300, "Helm 4.1.4's commands have over 300 flags; read {flag_count}");
    // Each command alone, then each flag of it.
    let alone = commands.iter().map(|(path, _)| [path.clone(), vec!["--help".to_string()]].concat());
    let lines: Vec<Vec<String>> = alone
        .chain(commands.iter().flat_map(|(path, flags)| {
            flags.iter().map(move |(flag, value_type)| {
                let given = match value_type.as_deref().and_then(|kind| value_for(flag, kind)) {
                    Some(value) => format!("--{flag}={value}"),
                    None => format!("--{flag}"),
                };
                [path.clone(), vec![given, "--help".to_string()]].concat()
            })
        }))
        .collect();
    let refused: Vec<String> = std::thread::scope(|scope| {
        let workers: Vec<_> = lines
            .chunks(lines.len().div_ceil(4))
            .map(|chunk| {
                let (work, home) = (work.path(), home.path());
                scope.spawn(move || {
                    chunk
                        .iter()
                        .filter_map(|line| {
                            let args: Vec<&str> = line.iter().map(String::as_str).collect();
                            let output = run_in(Program::Berth, &args, work, home, &[("BERTH_HELM", "1")]);
                            let first = text(&output.stderr).lines().next().unwrap_or_default().to_string();
                            (!output.status.success()).then(|| format!("helm {}: {first}", line.join(" ")))
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers.into_iter().flat_map(|worker| worker.join().expect("worker")).collect()
    });
    assert!(refused.is_empty(), "{} of {} command lines refused:\n{}", refused.len(), lines.len(), refused.join("\n"));
}
