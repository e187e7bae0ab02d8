//! Every command Helm 4.1.4's own `--help` lists, and every flag of it, is accepted by berth run as `helm`
//! (issue 26: "every flag of Helm 4.1's `--help` accepted"). The commands and flags are read from the real
//! binary's help (its `Available Commands:` and `Flags:` sections, walked from the root), never from a list berth
//! keeps, so a command or flag berth lacks fails the test. Each flag is given to berth with a value of its type
//! and `--help`: clap prints the help for a line it can read and refuses an unknown flag (`Error: unknown flag:
//! --x`, exit 1).

use crate::helm_commands::{Program, run_in, text};
use std::collections::BTreeSet;
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

/// One page of a program's help: its subcommands, aliases, flags (as written: `-o, --output format` for Helm,
/// `-o, --output <OUTPUT>` for clap) and, for Helm, the inherited global flags.
#[derive(Debug, Default)]
struct HelpPage {
    commands: Vec<String>,
    aliases: Vec<String>,
    flags: Vec<String>,
    global_flags: Vec<String>,
}

/// A help text's sections: cobra's `Available Commands:`, `Aliases:`, `Flags:`, `Global Flags:`, or clap's
/// `Commands:` and `Options:`. A flag line is indented by two (`  -o, --output`) or six (`      --debug`) spaces;
/// deeper lines continue a usage text.
fn help_page(help: &str) -> HelpPage {
    let mut page = HelpPage::default();
    let mut section = "";
    // A blank line ends no section (clap's long help puts one between flags).
    for line in help.lines().filter(|line| !line.is_empty()) {
        if !line.starts_with(' ') {
            section = line.trim_end_matches(':');
            continue;
        }
        let is_flag = line.starts_with("      --") || (line.starts_with("  -") && line.get(4..8) == Some(", --"));
        // pflag separates a flag from its usage by two spaces or more; clap puts long usage on the next line.
        let spec = line.trim().split("  ").next().unwrap_or_default().to_string();
        match section {
            "Available Commands" | "Commands" => {
                page.commands.extend(line.split_whitespace().next().map(str::to_string))
            }
            "Aliases" => page.aliases = line.trim().split(", ").skip(1).map(str::to_string).collect(),
            "Flags" | "Options" if is_flag => page.flags.push(spec),
            "Global Flags" if is_flag => page.global_flags.push(spec),
            _ => {}
        }
    }
    page
}

/// A flag's long name and shorthand from its help spelling (`-o, --output format`, `--wait[=<STRATEGY>]`).
fn flag_names(spec: &str) -> (String, Option<char>) {
    let (short, long) = match spec.split_once(", ") {
        Some((short, long)) => (short.strip_prefix('-').and_then(|short| short.chars().next()), long),
        None => (None, spec),
    };
    let long = long.trim_start_matches('-').split([' ', '[', '=', '.']).next().unwrap_or_default();
    (long.to_string(), short)
}

/// `program`'s help page for `path` (`None` when it has no such command).
fn page_of(program: Program, path: &[String], work: &Path, home: &Path) -> Option<HelpPage> {
    let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
    args.push("--help");
    let output = run_in(program, &args, work, home, &[]);
    output.status.success().then(|| help_page(&text(&output.stdout)))
}

/// Every page of `program`'s help tree from `roots` (`[]` for the whole tree), by command path.
fn help_tree(
    program: Program,
    roots: Vec<Vec<String>>,
    work: &Path,
    home: &Path,
) -> std::collections::BTreeMap<Vec<String>, HelpPage> {
    let mut found = std::collections::BTreeMap::new();
    let mut pending = roots;
    while let Some(path) = pending.pop() {
        let Some(page) = page_of(program, &path, work, home) else { continue };
        pending.extend(page.commands.iter().map(|name| [path.clone(), vec![name.clone()]].concat()));
        found.insert(path, page);
    }
    found
}

/// The table berth keeps of Helm's interface (src/cli/helm_interface.txt): per command path, its aliases, the
/// flags Helm lists, the notes of those it does not (hidden, deprecated), and whether the command is hidden.
struct TableEntry {
    aliases: Vec<String>,
    listed: Vec<String>,
    deprecated: Vec<(String, String)>,
    hidden_flags: Vec<String>,
    hidden: bool,
}

fn berths_table() -> std::collections::BTreeMap<Vec<String>, TableEntry> {
    let mut table = std::collections::BTreeMap::new();
    let mut current: Vec<String> = Vec::new();
    for line in include_str!("../../src/cli/helm_interface.txt").lines().filter(|line| !line.starts_with('#')) {
        if let Some(flag) = line.strip_prefix("  ") {
            let entry: &mut TableEntry = table.get_mut(&current).expect("a flag under a command");
            if let Some(spec) = flag.strip_suffix(" (hidden)") {
                entry.hidden_flags.push(spec.to_string());
                continue;
            }
            match flag.split_once(" (deprecated: ") {
                Some((spec, note)) => entry.deprecated.push((spec.to_string(), note.trim_end_matches(')').to_string())),
                None => entry.listed.push(flag.to_string()),
            }
            continue;
        }
        let path_part = line.split(" (").next().unwrap_or_default();
        current = path_part.split(' ').skip(1).map(str::to_string).collect();
        let aliases = line
            .split(" (aliases: ")
            .nth(1)
            .map(|rest| rest.split(')').next().unwrap_or_default().split(", ").map(str::to_string).collect())
            .unwrap_or_default();
        let hidden = line.ends_with(" (hidden)");
        let entry =
            TableEntry { aliases, listed: Vec::new(), deprecated: Vec::new(), hidden_flags: Vec::new(), hidden };
        table.insert(current.clone(), entry);
    }
    table
}

/// berth's table of Helm's interface is Helm's: the real binary's help tree gives the same command paths,
/// aliases and flags (spelled as pflag spells them, so a flag's type, and whether it takes a value, is Helm's),
/// every command's global flags are the root's, and what the table marks hidden or deprecated Helm takes without
/// listing it, with the same note.
#[test]
fn the_table_of_helms_commands_and_flags_is_helms_help() {
    let work = tempfile::tempdir().expect("work directory");
    let home = tempfile::tempdir().expect("home");
    let table = berths_table();
    let hidden: Vec<Vec<String>> =
        table.iter().filter(|(_, entry)| entry.hidden).map(|(path, _)| path.clone()).collect();
    assert!(!hidden.is_empty(), "Helm 4.1.4 hides `docs`");
    let helm = help_tree(Program::Helm, [vec![Vec::new()], hidden.clone()].concat(), work.path(), home.path());
    let from_helm: BTreeSet<String> =
        helm.iter().map(|(path, page)| format!("{path:?} {:?} {:?}", page.aliases, page.flags)).collect();
    let from_table: BTreeSet<String> =
        table.iter().map(|(path, entry)| format!("{path:?} {:?} {:?}", entry.aliases, entry.listed)).collect();
    assert!(
        from_table == from_helm,
        "src/cli/helm_interface.txt differs from Helm 4.1.4's help:\nonly in the table: {:#?}\nonly in Helm's help: {:#?}",
        from_table.difference(&from_helm).collect::<Vec<_>>(),
        from_helm.difference(&from_table).collect::<Vec<_>>()
    );
    assert!(helm.len() >= 60, "{} command paths", helm.len());
    let root = &helm[&Vec::new()];
    let globals: Vec<&String> = root.flags.iter().filter(|flag| !flag.ends_with("--help")).collect();
    for (path, page) in helm.iter().filter(|(path, _)| !path.is_empty()) {
        assert_eq!(page.global_flags.iter().collect::<Vec<_>>(), globals, "global flags of {path:?}");
    }
    for path in &hidden {
        assert!(!root.commands.contains(&path[0]), "{path:?} is listed");
    }
    // A hidden flag (klog's) is a global flag Helm takes: with a value where the table says `value`, else alone.
    let hidden_flags = &table[&Vec::new()].hidden_flags;
    assert!(hidden_flags.len() >= 10, "klog's flags: {hidden_flags:?}");
    for spec in hidden_flags {
        let (long, short) = flag_names(spec);
        let needs_value = spec.ends_with(" value");
        let given: Vec<String> =
            [format!("--{long}")].into_iter().chain(short.map(|short| format!("-{short}"))).collect();
        for flag in given {
            let output = run_in(Program::Helm, &["env", &flag], work.path(), home.path(), &[]);
            let first = text(&output.stderr).lines().next().unwrap_or_default().to_string();
            let expected = match (needs_value, flag.strip_prefix("--")) {
                (false, _) => String::new(),
                (true, Some(long)) => format!("Error: flag needs an argument: --{long}"),
                (true, None) => format!("Error: flag needs an argument: '{}' in {flag}", &flag[1..]),
            };
            assert_eq!(first, expected, "helm env {flag}");
            assert!(!helm[&Vec::new()].flags.iter().any(|listed| flag_names(listed).0 == long), "{spec} is listed");
        }
    }
    // A deprecated flag is taken without a value (`--help` after it still asks for help) and noted as pflag notes it.
    for (path, entry) in &table {
        for (spec, note) in &entry.deprecated {
            let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
            args.extend([spec.as_str(), "--help"]);
            let output = run_in(Program::Helm, &args, work.path(), home.path(), &[]);
            assert!(output.status.success(), "helm {args:?}");
            assert_eq!(text(&output.stderr), format!("Flag {spec} has been deprecated, {note}\n"), "helm {args:?}");
            assert!(!helm[path].flags.iter().any(|flag| flag_names(flag).0 == flag_names(spec).0), "{spec} is listed");
        }
    }
}

/// What a program answered: stdout, stderr's first line and exit status (or, for a help page, only whether
/// stdout has one: berth's help is clap's).
fn answer(program: Program, line: &[String], work: &Path, home: &Path, help: bool) -> (String, String, Option<i32>) {
    let args: Vec<&str> = line.iter().map(String::as_str).collect();
    let variables: &[(&str, &str)] = if program == Program::Berth { &[("BERTH_HELM", "1")] } else { &[] };
    let output = run_in(program, &args, work, home, variables);
    let stdout = text(&output.stdout);
    let stdout = if help { format!("help printed: {}", !stdout.is_empty()) } else { stdout };
    let first = text(&output.stderr).lines().next().unwrap_or_default().to_string();
    (stdout, first, output.status.code())
}

/// Runs each line through Helm and through berth as `helm` (four at a time); fails listing those answered
/// differently, with both answers.
fn assert_answered_alike(lines: &[(Vec<String>, bool)], work: &Path, home: &Path) {
    let different: Vec<String> = std::thread::scope(|scope| {
        let workers: Vec<_> = lines
            .chunks(lines.len().div_ceil(4).max(1))
            .map(|chunk| {
                scope.spawn(move || {
                    chunk
                        .iter()
                        .filter_map(|(line, help)| {
                            let helm = answer(Program::Helm, line, work, home, *help);
                            let berth = answer(Program::Berth, line, work, home, *help);
                            (helm != berth)
                                .then(|| format!("helm {}\n  Helm:  {helm:?}\n  berth: {berth:?}", line.join(" ")))
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers.into_iter().flat_map(|worker| worker.join().expect("worker")).collect()
    });
    assert!(
        different.is_empty(),
        "{} of {} lines answered differently:\n{}",
        different.len(),
        lines.len(),
        different.join("\n")
    );
}

fn words(line: &str) -> Vec<String> {
    line.split(' ').map(str::to_string).collect()
}

/// Every flag berth's own help lists for a Helm command path (as `berth`: its flags and Helm's) that Helm's help
/// lacks there, long or shorthand, is refused by berth as `helm` exactly as Helm refuses it: same stdout, same
/// first line of stderr (`Error: unknown flag: --progress`, `Error: unknown shorthand flag: 'o' in -o`), same exit
/// status. Hidden aliases clap's help does not list (kubectl's `--as`, `--as-group`, `--context`) are given too;
/// src/cli/helm_interface.rs's unit tests walk berth's definitions themselves, hidden flags included.
#[test]
fn berths_own_flags_are_refused_as_helm_refuses_them() {
    let work = tempfile::tempdir().expect("work directory");
    let home = tempfile::tempdir().expect("home");
    let helm = help_tree(Program::Helm, vec![Vec::new()], work.path(), home.path());
    let mut lines: Vec<(Vec<String>, bool)> = Vec::new();
    for (path, page) in &helm {
        let Some(berth) = page_of(Program::Berth, path, work.path(), home.path()) else { continue };
        let helms: Vec<(String, Option<char>)> =
            page.flags.iter().chain(&page.global_flags).map(|flag| flag_names(flag)).collect();
        for (long, short) in berth.flags.iter().map(|flag| flag_names(flag)) {
            if !helms.iter().any(|(helm_long, _)| *helm_long == long) {
                lines.push(([path.clone(), vec![format!("--{long}")]].concat(), false));
            }
            if let Some(short) = short.filter(|short| !helms.iter().any(|(_, helm_short)| *helm_short == Some(*short)))
            {
                lines.push(([path.clone(), vec![format!("-{short}")]].concat(), false));
            }
        }
        for alias in ["--as x", "--as-group x", "--context x"] {
            lines.push(([path.clone(), words(alias)].concat(), false));
        }
    }
    let flags_given = lines.iter().filter(|(line, _)| line.last().is_some_and(|word| word.starts_with('-'))).count();
    assert!(flags_given >= 100, "berth's own flags on Helm's commands: {flags_given}");
    for required in [
        &["install", "--progress"][..],
        &["get", "all", "-o"],
        &["install", "--sim"],
        &["status", "--no-builtin-rules"],
    ] {
        let required: Vec<String> = required.iter().map(|word| word.to_string()).collect();
        assert!(
            lines.iter().any(|(line, _)| *line == required),
            "{required:?} not among berth's own flags: {:?}",
            lines.iter().filter(|(line, _)| line[0] == required[0]).collect::<Vec<_>>()
        );
    }
    assert_answered_alike(&lines, work.path(), home.path());
}

/// berth's own commands (every top-level command of `berth --help` Helm lacks: apply, plan, controller...) are
/// unknown commands to berth as `helm`, as to Helm; a mistyped command gets cobra's suggestions (the whole of
/// stderr compared); shorthands alone and combined, words after `--`, an unknown subcommand of a command that has
/// subcommands (cobra prints the parent's help; berth's help is clap's, so only whether one is printed is
/// compared), an unknown flag and a missing argument on one line (the flag wins), a deprecated flag before an
/// unknown one (no note).
#[test]
fn berths_own_commands_and_helms_edge_lines_are_answered_as_helm_answers_them() {
    let work = tempfile::tempdir().expect("work directory");
    let home = tempfile::tempdir().expect("home");
    let helm_root = page_of(Program::Helm, &[], work.path(), home.path()).expect("helm --help");
    let berth_root = page_of(Program::Berth, &[], work.path(), home.path()).expect("berth --help");
    // `diff` is helm-diff's (a plugin Helm users install, which berth serves itself); `help` is cobra's and clap's.
    let own: Vec<&String> = berth_root
        .commands
        .iter()
        .filter(|name| !helm_root.commands.contains(name) && !["diff", "help"].contains(&name.as_str()))
        .collect();
    for expected in ["apply", "plan", "controller", "sim", "health", "wait"] {
        assert!(own.iter().any(|name| *name == expected), "{expected} not among berth's own commands: {own:?}");
    }
    let mut lines: Vec<(Vec<String>, bool)> = Vec::new();
    for name in &own {
        lines.push((vec![(*name).clone()], false));
        lines.push((vec![(*name).clone(), "--sim".to_string(), "-f".to_string(), "x.yaml".to_string()], false));
        lines.push((vec!["--sim".to_string(), (*name).clone()], false));
    }
    let edges = [
        "get all -o json",
        "get all x -o json",
        "list -qo",
        "list -xq",
        "list -qx",
        "list -é",
        "list ---x",
        "list --=x",
        "list -- --progress",
        "version -- --progress",
        "get all x --revision",
        "status --progress",
        "install --atomic --progress",
        "--progress json list",
        "-o json version",
        "--short version",
        "--template {{.KubeClientVersion}} version",
        "list --logtostderr --v 2 -v 3 --vmodule",
        "-vv list",
        "-v x env",
        "-v 99999999999 env",
        "-v 3 --logtostderr env HELM_NAMESPACE",
        "get foo --bar",
    ];
    lines.extend(edges.iter().map(|line| (words(line), false)));
    for parent in
        ["get foo", "repo foo", "plugin foo", "dependency foo", "dep foo", "show foo", "completion foo", "get"]
    {
        lines.push((words(parent), true));
    }
    assert_answered_alike(&lines, work.path(), home.path());
    // Mistyped commands: the whole of stderr (cobra's suggestions, in the order Helm adds its commands).
    for typed in ["lst", "pus", "re", "i", "rm", "remove", "instal", "apply"] {
        let outputs = [Program::Helm, Program::Berth].map(|program| {
            let variables: &[(&str, &str)] = if program == Program::Berth { &[("BERTH_HELM", "1")] } else { &[] };
            let output = run_in(program, &[typed], work.path(), home.path(), variables);
            (text(&output.stdout), text(&output.stderr), output.status.code())
        });
        assert_eq!(outputs[1], outputs[0], "helm {typed}");
    }
}
