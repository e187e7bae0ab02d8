//! Which commands and flags Helm 4.1.4 has, and a command line read as cobra and pflag read it, so that berth run
//! as `helm` refuses what Helm refuses (`Error: unknown flag: --progress`, `Error: unknown shorthand flag: 'o' in
//! -o`, `Error: unknown command "apply" for "helm"`) before anything is read or written, and a script written
//! against berth as `helm` also runs on Helm. As `berth`, none of this applies: berth's flags and Helm's are both
//! taken.
//!
//! The one owner of Helm's interface is `helm_interface.txt`: every command path, its aliases and its flags as
//! `helm [command] --help` lists them, plus what Helm takes without listing it (the hidden `docs` command, klog's
//! global flags, the deprecated flags with pflag's note). tests/integration/helm_flags.rs checks it equals the
//! real binary's help tree and that Helm takes the unlisted ones, so it cannot drift from Helm and never comes from
//! berth. A table rather than a mark on berth's clap
//! arguments: the flag structs berth shares between commands (`RenderFlags`, `InstallFlags`, the source flags)
//! serve commands whose Helm flag sets differ (`--validate` is `template`'s alone, `--hide-secret` is not
//! `template`'s), so no mark on a shared field could say which command has it.
//!
//! The reading follows cobra v1.10.2 (`Command.Find`, `stripFlags`, `argsMinusFirstX`, `legacyArgs`,
//! `SuggestionsFor`) and pflag v1.0.10 (`FlagSet.parseArgs`, `parseLongArg`, `parseSingleShortArg`), the
//! versions Helm 4.1.4 is built with: the command is found first (so `helm apply --sim` is an unknown command),
//! then its flags are parsed left to right (so `helm get all -o json` is an unknown shorthand before the missing
//! release name), and a command with subcommands given none of them prints its help (`helm get foo`). clap then
//! reads the line with the command's names first, as cobra gives every other word to the command's flag set
//! (`helm -o json list`), and checks what values a known flag takes and how many arguments a command needs
//! (`helm_usage.rs` words its errors as Helm).

use berth_go::strconv::{quote, quote_rune};
use std::ffi::OsString;
use std::sync::LazyLock;

/// Helm 4.1.4's commands and flags (the table's format is in its head).
const TABLE: &str = include_str!("helm_interface.txt");

static INTERFACE: LazyLock<Interface> = LazyLock::new(|| Interface::parse(TABLE));

/// The commands Helm users get from plugins that berth serves itself: helm-diff's `diff` (helmfile drives it).
/// Helm hands a plugin's arguments to it unparsed (`DisableFlagParsing`), and so does this reading.
const SERVED_PLUGINS: [&str; 1] = ["diff"];

/// What a command line is, read as Helm reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reading {
    /// A Helm command, every flag of it Helm's: clap reads the line, the words that name the command first (at
    /// these positions, after the program's name) and the others after them in their order, as cobra hands every
    /// word but the command's names to the command's flags (`helm -o json list` lists as JSON).
    Command(Vec<usize>),
    /// A command that has subcommands, given none of them (`helm get`, `helm repo foo`): cobra prints its help.
    Help(Vec<&'static str>),
    /// A plugin's command (installed, or one of [`SERVED_PLUGINS`]): its arguments are the plugin's.
    Plugin,
}

/// A command line Helm refuses, in cobra's and pflag's words (printed after `Error: `).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// cobra's `legacyArgs`: the first word that is not a flag names no command of `helm` (nor a plugin).
    #[error("unknown command {} for \"helm\"{}\nRun 'helm --help' for usage.", quote(name), suggestions(names))]
    UnknownCommand { name: String, names: Vec<&'static str> },
    /// pflag's `parseLongArg`: no such flag for the command (its own or a global one).
    #[error("unknown flag: --{0}")]
    UnknownFlag(String),
    /// pflag's `parseSingleShortArg`: no such shorthand; pflag names the shorthands left in the word from it on.
    #[error("unknown shorthand flag: {} in -{shorthands}", quote_rune(*shorthand))]
    UnknownShorthand { shorthand: char, shorthands: String },
    /// A flag that needs a value ends the line.
    #[error("flag needs an argument: --{0}")]
    NeedsValue(String),
    /// A shorthand that needs a value ends the line.
    #[error("flag needs an argument: {} in -{shorthands}", quote_rune(*shorthand))]
    ShorthandNeedsValue { shorthand: char, shorthands: String },
    /// `---x`, `--=x`.
    #[error("bad flag syntax: {0}")]
    BadSyntax(String),
    /// cobra's `help` command given a topic that names no command (`helm help nonexist`): not an error to Helm,
    /// which prints this and its usage on stderr and exits 0.
    #[error("Unknown help topic {}", help_topic(.0))]
    UnknownHelpTopic(Vec<String>),
}

/// Go's `%#q` of the topic's words, as cobra's help command prints them: [`nonexist`].
fn help_topic(words: &[String]) -> String {
    let words = words.iter().map(|word| berth_go::Value::String(word.as_str().into())).collect();
    berth_go::fmt::sprintf("%#q", &[berth_go::Value::List(words)]).unwrap_or_default()
}

/// The flags Helm 4.1.4 marks mutually exclusive (`MarkFlagsMutuallyExclusive` in pkg/cmd/install.go, upgrade.go,
/// rollback.go, template.go): per command, each group as declared.
const EXCLUSIVE_GROUPS: [(&str, [&str; 2]); 7] = [
    ("install", ["force-replace", "force-conflicts"]),
    ("install", ["force", "force-conflicts"]),
    ("upgrade", ["force-replace", "force-conflicts"]),
    ("upgrade", ["force", "force-conflicts"]),
    ("rollback", ["force-replace", "force-conflicts"]),
    ("rollback", ["force", "force-conflicts"]),
    ("template", ["validate", "dry-run"]),
];

/// cobra's `validateExclusiveFlagGroups`: the first group, in the order of the groups' names (`force
/// force-conflicts` before `force-replace force-conflicts`), whose flags were all set, named in its words.
fn exclusive_refusal(path: &[&str], set: &[&str]) -> Option<String> {
    let mut groups: Vec<&[&str; 2]> = EXCLUSIVE_GROUPS
        .iter()
        .filter(|(command, _)| path == [*command])
        .map(|(_, group)| group)
        .filter(|group| group.iter().all(|flag| set.contains(flag)))
        .collect();
    groups.sort_by_key(|group| group.join(" "));
    groups.first().map(|group| {
        let mut named = group.to_vec();
        named.sort_unstable();
        format!(
            "if any flags in the group [{}] are set none of the others can be; [{}] were all set",
            group.join(" "),
            named.join(" ")
        )
    })
}

/// cobra's `findSuggestions`: the commands it offers for a mistyped one.
fn suggestions(names: &[&str]) -> String {
    if names.is_empty() {
        return String::new();
    }
    let listed: String = names.iter().map(|name| format!("\t{name}\n")).collect();
    format!("\n\nDid you mean this?\n{listed}")
}

/// The character pflag names a shorthand byte by: `rune(string(c)[0])`, which is the byte itself for ASCII and,
/// for the first byte of a multi-byte character, the first byte of that byte's own UTF-8 encoding (`Ã`).
fn pflag_rune(shorthand: u8) -> char {
    let encoded = char::from(shorthand).to_string();
    encoded.as_bytes().first().map_or('\u{fffd}', |first| char::from(*first))
}

/// A command line read: pflag's notes for the deprecated flags it sets (cobra prints them once the flags are
/// parsed, none when one is refused), and what the line is or why Helm refuses it.
#[derive(Debug)]
pub struct Read {
    pub notes: Vec<String>,
    pub reading: Result<Reading, Refusal>,
    /// cobra's refusal of flags of one exclusive group set together, which it makes once the command's arguments
    /// are checked (`ValidateFlagGroups` after `ValidateArgs`): after clap has read the line.
    pub exclusive: Option<String>,
}

/// Reads `arguments` (the program's name first) as Helm 4.1.4 does. `is_plugin` says whether a word that names
/// no Helm command names an installed `cli/v1` plugin (asked only for such a word).
pub fn read(arguments: &[OsString], is_plugin: impl Fn(&str) -> bool) -> Read {
    let arguments: Vec<String> = arguments.iter().skip(1).map(|word| word.to_string_lossy().into_owned()).collect();
    INTERFACE.read(&arguments, |word| SERVED_PLUGINS.contains(&word) || is_plugin(word))
}

/// A line Helm takes, as clap is to read it, with pflag's notes for the deprecated flags it sets.
#[derive(Debug)]
pub struct HelmLine {
    pub arguments: Vec<OsString>,
    pub notes: Vec<String>,
    /// See [`Read::exclusive`].
    pub exclusive: Option<String>,
}

/// `arguments` (the program's name first) read as Helm reads them: refused as Helm refuses them, or the line clap
/// reads: the command's names first, then the other words in their order; a command with subcommands given none
/// of them (`helm get foo`) asks for its help, as cobra answers it; a plugin's line as given. A word naming no
/// Helm command is looked up among the installed `cli/v1` plugins (Helm's plugin directories).
///
/// # Errors
///
/// The [`Refusal`] Helm answers the line with.
pub fn line_for_clap(arguments: Vec<OsString>) -> Result<HelmLine, Refusal> {
    let read = read(&arguments, |name| {
        let directories = berth::settings::HelmEnvironment::from_env().command_plugin_directories();
        berth::plugin::find_plugins(&directories, Some(name), Some("cli/v1")).is_ok_and(|found| !found.is_empty())
    });
    let (notes, exclusive) = (read.notes, read.exclusive);
    let arguments = match read.reading? {
        Reading::Help(path) => {
            let program = arguments.into_iter().next().unwrap_or_else(|| OsString::from("helm"));
            let words = path.into_iter().chain(["--help"]).map(OsString::from);
            std::iter::once(program).chain(words).collect()
        }
        Reading::Command(command_words) => {
            let mut words: Vec<Option<OsString>> = arguments.into_iter().map(Some).collect();
            let named: Vec<OsString> = command_words
                .iter()
                .filter_map(|position| words.get_mut(position + 1).and_then(Option::take))
                .collect();
            let mut words = words.into_iter().flatten();
            let program = words.next().into_iter();
            program.chain(named).chain(words).collect()
        }
        Reading::Plugin => arguments,
    };
    Ok(HelmLine { arguments, notes, exclusive })
}

/// Helm's refusal of a `--color` (or `--colour`) value that names no mode, which it makes before it reads the
/// command (pkg/cmd/root.go `newRootCmdWithConfig`), so `main` logs it as `command failed` with no `Error:` line:
/// `invalid color mode "VALUE": must be one of: never, auto, always`.
pub fn color_refusal(arguments: &[OsString]) -> Option<String> {
    let arguments: Vec<String> = arguments.iter().skip(1).map(|word| word.to_string_lossy().into_owned()).collect();
    let mode =
        INTERFACE.root().map(|root| INTERFACE.parse_flags(root, &arguments, Pass::Globals).set).unwrap_or_default();
    let mode = mode.into_iter().rev().find(|(flag, _)| matches!(flag.long, "color" | "colour"));
    let (_, mode) = mode?;
    (!matches!(mode, "never" | "auto" | "always"))
        .then(|| format!("invalid color mode {}: must be one of: never, auto, always", berth_go::strconv::quote(mode)))
}

/// `command` (Helm's interface in clap) also taking the global flags Helm takes without listing them: klog's
/// (`--logtostderr`, `--vmodule SPEC`...), accepted and ignored, berth's logs being its own; and klog's
/// `-v LEVEL`, which sets berth's log level (`-v` as `berth` counts instead: `-vv`).
pub fn with_hidden_global_flags(command: clap::Command) -> clap::Command {
    let Some(root) = INTERFACE.root() else { return command };
    root.flags.iter().filter(|flag| flag.hidden).fold(command, |command, flag| {
        if flag.short == Some(b'v') {
            return command.mut_arg("verbose", |arg| {
                // klog's `Level.Set`: Go's `strconv.ParseInt(value, 10, 32)`; berth's levels end at 255.
                let level =
                    |text: &str| text.parse::<i32>().map(|level| u8::try_from(level.clamp(0, 255)).unwrap_or(u8::MAX));
                arg.long(flag.long).action(clap::ArgAction::Set).value_parser(level).default_value("0")
            });
        }
        let arg = clap::Arg::new(flag.long).long(flag.long).global(true).hide(true);
        command.arg(if flag.needs_value {
            arg.action(clap::ArgAction::Set)
        } else {
            arg.action(clap::ArgAction::SetTrue)
        })
    })
}

/// Helm's table, parsed.
struct Interface {
    /// The root (`helm`, whose flags are the global ones) first, then the others in the table's order.
    commands: Vec<HelmCommand>,
}

/// One command path of the table.
struct HelmCommand {
    path: Vec<&'static str>,
    aliases: Vec<&'static str>,
    /// Typed names cobra suggests this command for (`SuggestFor`: `uninstall` for `remove` and `rm`).
    suggested_for: Vec<&'static str>,
    hidden: bool,
    flags: Vec<HelmFlag>,
}

/// One flag of a command.
#[derive(Debug, Clone, PartialEq, Eq)]
struct HelmFlag {
    long: &'static str,
    short: Option<u8>,
    /// pflag takes the next word as the value (a flag with a type and no `[=default]`; booleans take none).
    needs_value: bool,
    /// The value's type as the help names it (`int`, `float32`, `string`...); none for a boolean.
    kind: Option<&'static str>,
    /// pflag's note for a deprecated flag.
    deprecated: Option<&'static str>,
    /// Taken but not listed (klog's flags).
    hidden: bool,
}

impl HelmFlag {
    /// One flag line of the table: `-o, --output format`, `--wait WaitStrategy[=watcher]`, `--debug`,
    /// `--atomic (deprecated: NOTE)`.
    fn parse(line: &'static str) -> Option<HelmFlag> {
        let (line, hidden) = line.strip_suffix(" (hidden)").map_or((line, false), |line| (line, true));
        let (spec, deprecated) = match line.split_once(" (deprecated: ") {
            Some((spec, note)) => (spec, Some(note.strip_suffix(')')?)),
            None => (line, None),
        };
        let (short, long) = match spec.split_once(", ") {
            Some((short, long)) => (Some(*short.strip_prefix('-')?.as_bytes().first()?), long),
            None => (None, spec),
        };
        let long = long.strip_prefix("--")?;
        let (long, value_type) = long.split_once(' ').map_or((long, None), |(long, kind)| (long, Some(kind)));
        let needs_value = value_type.is_some_and(|kind| !kind.contains("[="));
        let kind = value_type.map(|kind| kind.split_once('[').map_or(kind, |(kind, _)| kind));
        Some(HelmFlag { long, short, needs_value, kind, deprecated, hidden })
    }

    /// Whether pflag's `Set` takes `value` for this flag (`strconv.ParseInt`, `ParseFloat`, `ParseBool`); the
    /// other types take any text.
    fn takes(&self, value: &str) -> bool {
        match self.kind {
            None => matches!(
                value,
                "1" | "t" | "T" | "TRUE" | "true" | "True" | "0" | "f" | "F" | "FALSE" | "false" | "False"
            ),
            Some("int") => value.parse::<i64>().is_ok(),
            Some("float32") => value.parse::<f32>().is_ok(),
            Some(_) => true,
        }
    }
}

impl Interface {
    /// The table: a line without indentation is a command (`helm dependency (aliases: dep, dependencies)`,
    /// `helm docs (hidden)`), an indented one a flag of the command above, `#` a comment.
    fn parse(table: &'static str) -> Interface {
        let mut commands: Vec<HelmCommand> = Vec::new();
        for line in table.lines().filter(|line| !line.starts_with('#') && !line.trim().is_empty()) {
            if let Some(flag) = line.strip_prefix("  ") {
                if let (Some(command), Some(flag)) = (commands.last_mut(), HelmFlag::parse(flag)) {
                    command.flags.push(flag);
                }
                continue;
            }
            let (mut rest, mut aliases, mut suggested_for, mut hidden) = (line, Vec::new(), Vec::new(), false);
            while let Some((head, note)) = rest.rsplit_once(" (") {
                let note = note.trim_end_matches(')');
                if note == "hidden" {
                    hidden = true;
                } else if let Some(names) = note.strip_prefix("aliases: ") {
                    aliases = names.split(", ").collect();
                } else if let Some(names) = note.strip_prefix("suggested for: ") {
                    suggested_for = names.split(", ").collect();
                }
                rest = head;
            }
            let path = rest.split(' ').skip(1).collect();
            commands.push(HelmCommand { path, aliases, suggested_for, hidden, flags: Vec::new() });
        }
        Interface { commands }
    }

    fn root(&self) -> Option<&HelmCommand> {
        self.commands.first()
    }

    /// The subcommands of `parent`, in the table's order.
    fn children<'a>(&'a self, parent: &'a HelmCommand) -> impl Iterator<Item = &'a HelmCommand> + 'a {
        self.commands.iter().filter(move |command| {
            command.path.len() == parent.path.len() + 1 && command.path.starts_with(&parent.path)
        })
    }

    /// cobra's `findNext`: the subcommand of `parent` a word names, by name or alias.
    fn child<'a>(&'a self, parent: &'a HelmCommand, word: &str) -> Option<&'a HelmCommand> {
        self.children(parent).find(|command| command.path.last() == Some(&word) || command.aliases.contains(&word))
    }

    /// The flag `--name` of `command`: its own, else a global one.
    fn long<'a>(&'a self, command: &'a HelmCommand, name: &str) -> Option<&'a HelmFlag> {
        self.flag_in(command, Pass::Command, |flag| flag.long == name)
    }

    /// The flag `-c` of `command`: its own, else a global one.
    fn short<'a>(&'a self, command: &'a HelmCommand, shorthand: u8) -> Option<&'a HelmFlag> {
        self.flag_in(command, Pass::Command, |flag| flag.short == Some(shorthand))
    }

    /// cobra's `hasNoOptDefVal` and `shortHasNoOptDefVal` together: whether the word `s` is a flag that takes
    /// the next word as its value, as cobra tells while it looks for the command (an unknown flag does).
    /// cobra adds `-h, --help` only once it found the command (`InitDefaultHelpFlag`), so while it looks, they
    /// are unknown flags that take the next word (`helm -h get all`: unknown command "all").
    fn takes_next_word(&self, command: &HelmCommand, word: &str) -> bool {
        if word.contains('=') {
            return false;
        }
        let takes = |flag: Option<&HelmFlag>| flag.is_none_or(|flag| flag.long == "help" || flag.needs_value);
        if let Some(name) = word.strip_prefix("--") {
            return takes(self.long(command, name));
        }
        match word.as_bytes() {
            [b'-', shorthand] => takes(self.short(command, *shorthand)),
            _ => false,
        }
    }

    /// cobra's `stripFlags`: the words of `arguments` that are neither flags nor flag values, up to `--`.
    fn strip_flags<'a>(&self, command: &HelmCommand, arguments: &'a [String]) -> Vec<&'a str> {
        let mut words = Vec::new();
        let mut rest = arguments;
        while let Some((word, after)) = rest.split_first() {
            rest = after;
            if word == "--" {
                break;
            }
            if self.takes_next_word(command, word) {
                // cobra stops at a value-taking flag followed by at most one word.
                if rest.len() <= 1 {
                    break;
                }
                rest = &rest[1..];
            } else if !word.is_empty() && !word.starts_with('-') {
                words.push(word.as_str());
            }
        }
        words
    }

    /// cobra's `argsMinusFirstX`: the position in `arguments` of the first word `name` that is not a flag value
    /// (cobra removes it from the words the command parses).
    fn first_position(&self, command: &HelmCommand, arguments: &[String], name: &str) -> Option<usize> {
        let mut position = 0;
        while position < arguments.len() {
            let word = &arguments[position];
            if word == "--" {
                return None;
            }
            if self.takes_next_word(command, word) {
                position += 2;
                continue;
            }
            if !word.starts_with('-') && word == name {
                return Some(position);
            }
            position += 1;
        }
        None
    }

    /// cobra's `SuggestionsFor` at the root: the commands within a Levenshtein distance of 2 of `typed` (case
    /// ignored), those it begins, and those suggested for it, in the order Helm adds them.
    fn suggestions(&self, root: &HelmCommand, typed: &str) -> Vec<&'static str> {
        // Go's `ld` compares bytes, not characters.
        let typed_lower: Vec<u8> = typed.to_lowercase().into_bytes();
        let mut names = Vec::new();
        for command in self.children(root).filter(|command| !command.hidden && command.path != ["help"]) {
            let Some(name) = command.path.last().copied() else { continue };
            let distance = strsim::generic_levenshtein(&typed_lower, &name.to_lowercase().into_bytes());
            if distance <= 2 || name.to_lowercase().as_bytes().starts_with(&typed_lower) {
                names.push(name);
            }
            names.extend(command.suggested_for.iter().filter(|word| word.eq_ignore_ascii_case(typed)).map(|_| name));
        }
        names
    }

    fn read(&self, arguments: &[String], is_plugin: impl Fn(&str) -> bool) -> Read {
        let Some(root) = self.root() else {
            return Read { notes: Vec::new(), reading: Ok(Reading::Command(Vec::new())), exclusive: None };
        };
        // cobra's `Find`: each word that is not a flag names a subcommand of the one before, or ends the search.
        // `rest` holds the positions of the words the command found parses.
        let (mut command, mut rest, mut command_words) = (root, (0..arguments.len()).collect::<Vec<_>>(), Vec::new());
        loop {
            let words: Vec<String> = rest.iter().map(|position| arguments[*position].clone()).collect();
            let Some(word) = self.strip_flags(command, &words).first().copied() else { break };
            let Some(child) = self.child(command, word) else {
                if command.path.is_empty() && is_plugin(word) {
                    return Read { notes: Vec::new(), reading: Ok(Reading::Plugin), exclusive: None };
                }
                break;
            };
            if let Some(position) = self.first_position(command, &words, word) {
                command_words.push(rest.remove(position));
            }
            command = child;
        }
        let rest: Vec<String> = rest.iter().map(|position| arguments[*position].clone()).collect();
        if command.path == ["help"] {
            return Read { notes: Vec::new(), reading: self.help_topic(command, &rest), exclusive: None };
        }
        // cobra's `legacyArgs`: at the root, a word that is not a flag must be a command.
        if command.path.is_empty()
            && let Some(word) = self.strip_flags(command, &rest).first()
        {
            let refusal = Refusal::UnknownCommand { name: (*word).to_string(), names: self.suggestions(root, word) };
            return Read { notes: Vec::new(), reading: Err(refusal), exclusive: None };
        }
        let parsed = self.parse_flags(command, &rest, Pass::Command);
        let set: Vec<&str> = parsed.set.iter().map(|(flag, _)| flag.long).collect();
        let reading = match parsed.refusal {
            Some(refusal) => Err(refusal),
            None if !command.path.is_empty() && self.children(command).next().is_some() => {
                Ok(Reading::Help(command.path.clone()))
            }
            None => Ok(Reading::Command(command_words)),
        };
        // pflag's notes for the deprecated flags set, printed once the flags are read (none when one is refused).
        let notes = match reading {
            Err(_) => Vec::new(),
            Ok(_) => parsed
                .set
                .iter()
                .filter_map(|(flag, _)| {
                    flag.deprecated.map(|note| format!("Flag --{} has been deprecated, {note}", flag.long))
                })
                .collect(),
        };
        Read { notes, reading, exclusive: exclusive_refusal(&command.path, &set) }
    }

    /// cobra's `help` command: the words of its topic (its flags aside) are looked up as a command line (`Find`);
    /// a topic that names a command prints that command's help, whatever words follow; one that names none is
    /// an unknown topic; no topic is the root's help.
    fn help_topic(&self, help: &HelmCommand, arguments: &[String]) -> Result<Reading, Refusal> {
        let topic: Vec<String> = self.strip_flags(help, arguments).into_iter().map(str::to_string).collect();
        if topic.is_empty() {
            return Ok(Reading::Help(Vec::new()));
        }
        match self.read(&topic, |_| false).reading {
            Err(Refusal::UnknownCommand { .. }) => Err(Refusal::UnknownHelpTopic(topic)),
            _ => {
                let Some(mut command) = self.root() else { return Ok(Reading::Help(Vec::new())) };
                for word in &topic {
                    match self.child(command, word) {
                        Some(child) => command = child,
                        None => break,
                    }
                }
                Ok(Reading::Help(command.path.clone()))
            }
        }
    }

    /// The flag of `command` in `pass` that `matches`: as the command's line is read, its own flags and the global
    /// ones; as the global flags are, those alone but `-h, --help`, which cobra adds only once it found the command.
    fn flag_in<'a>(
        &'a self,
        command: &'a HelmCommand,
        pass: Pass,
        matches: impl Fn(&HelmFlag) -> bool,
    ) -> Option<&'a HelmFlag> {
        match pass {
            Pass::Command => [Some(command), self.root()]
                .into_iter()
                .flatten()
                .flat_map(|command| &command.flags)
                .find(|flag| matches(flag)),
            Pass::Globals => command.flags.iter().find(|flag| flag.long != "help" && matches(flag)),
        }
    }

    /// pflag's `parseArgs`, left to right (`FlagSet.parseArgs`, `parseLongArg`, `parseSingleShortArg`), in one
    /// of Helm's two passes ([`Pass`]): the flags set, each with its value (`true` for a boolean given none), up to
    /// where it stopped, and the refusal it stopped at, if any (a `--`, `--help` or `-h` ends it without one).
    fn parse_flags<'a>(&'a self, command: &'a HelmCommand, arguments: &'a [String], pass: Pass) -> Parsed<'a> {
        let mut parsed = Parsed { set: Vec::new(), refusal: None };
        let long = |name: &str| self.flag_in(command, pass, |flag| flag.long == name);
        let short = |shorthand| self.flag_in(command, pass, |flag| flag.short == Some(shorthand));
        // What pflag does with a word it cannot read: a refusal, or (the global pass) the end of its reading.
        let stop = |parsed: Parsed<'a>, refusal: Refusal| match pass {
            Pass::Command => Parsed { refusal: Some(refusal), ..parsed },
            Pass::Globals => parsed,
        };
        // The global pass sets the flag only if pflag's `Set` takes the value; the command's leaves that to clap.
        let takes = |flag: &HelmFlag, value: &str| pass == Pass::Command || flag.takes(value);
        let mut rest = arguments;
        // pflag's `stripUnknownFlagValue`: an unknown flag takes the next word unless that is a flag.
        let strip_unknown_value = |rest: &mut &'a [String]| {
            if let Some((next, after)) = rest.split_first()
                && !next.starts_with('-')
            {
                *rest = after;
            }
        };
        while let Some((word, after)) = rest.split_first() {
            rest = after;
            if word.len() < 2 || !word.starts_with('-') {
                continue;
            }
            if word == "--" {
                return parsed;
            }
            if let Some(name) = word.strip_prefix("--") {
                if name.starts_with(['-', '=']) {
                    return stop(parsed, Refusal::BadSyntax(word.clone()));
                }
                let (name, value) = name.split_once('=').map_or((name, None), |(name, value)| (name, Some(value)));
                let Some(flag) = long(name) else {
                    // pflag answers an undefined `--help` with the help (cobra defines it on every command).
                    if name == "help" {
                        return parsed;
                    }
                    if pass == Pass::Command {
                        return stop(parsed, Refusal::UnknownFlag(name.to_string()));
                    }
                    if value.is_none() {
                        strip_unknown_value(&mut rest);
                    }
                    continue;
                };
                let value = match value {
                    Some(value) => value,
                    None if !flag.needs_value => "true",
                    None => match rest.split_first() {
                        Some((next, after)) => {
                            rest = after;
                            next.as_str()
                        }
                        None => return stop(parsed, Refusal::NeedsValue(name.to_string())),
                    },
                };
                if !takes(flag, value) {
                    return parsed;
                }
                parsed.set.push((flag, value));
                continue;
            }
            // A shorthand word is read byte by byte (`-é` is two unknown shorthands); pflag leaves Go's test flags
            // (`-test.v`) alone.
            let bytes = word.as_bytes();
            let mut index = 1;
            while index < bytes.len() && !word.get(index..).is_some_and(|rest| rest.starts_with("test.")) {
                let (shorthand, after) = (bytes[index], index + 1);
                let shorthands = || word.get(index..).unwrap_or_default().to_string();
                // `-o=json`: the rest of the word is the value.
                let equals_value = bytes.len() > after + 1 && bytes[after] == b'=';
                let Some(flag) = short(shorthand) else {
                    if shorthand == b'h' {
                        return parsed;
                    }
                    if pass == Pass::Command {
                        let refusal =
                            Refusal::UnknownShorthand { shorthand: pflag_rune(shorthand), shorthands: shorthands() };
                        return stop(parsed, refusal);
                    }
                    // An unknown `-x value` loses the next word; `-x=value` keeps its value in the word.
                    if equals_value {
                        break;
                    }
                    strip_unknown_value(&mut rest);
                    index = after;
                    continue;
                };
                let (value, word_read) = if equals_value {
                    (word.get(after + 1..).unwrap_or_default(), true)
                } else if !flag.needs_value {
                    ("true", false)
                } else if after < bytes.len() {
                    // `-ojson`
                    (word.get(after..).unwrap_or_default(), true)
                } else {
                    match rest.split_first() {
                        Some((next, after)) => {
                            rest = after;
                            (next.as_str(), true)
                        }
                        None => {
                            let refusal = Refusal::ShorthandNeedsValue {
                                shorthand: pflag_rune(shorthand),
                                shorthands: shorthands(),
                            };
                            return stop(parsed, refusal);
                        }
                    }
                };
                if !takes(flag, value) {
                    return parsed;
                }
                parsed.set.push((flag, value));
                if word_read {
                    break;
                }
                index = after;
            }
        }
        parsed
    }
}

/// Helm reads a line's flags twice: once the global flags alone, before it looks for the command (pkg/cmd/root.go
/// `newRootCmdWithConfig`: `--color` is read there), then the command's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pass {
    /// The global flags alone, unknown flags let through (each taking the next word unless that is a flag), and
    /// the reading stopping, its error ignored, at the first word pflag cannot read (`--help`, a missing or invalid
    /// value, `---x`).
    Globals,
    /// The command's flags and the global ones: the first word pflag cannot read is refused.
    Command,
}

/// What a pass of pflag read: the flags set with their values, and the refusal it stopped at.
struct Parsed<'a> {
    set: Vec<(&'a HelmFlag, &'a str)>,
    refusal: Option<Refusal>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    fn read_line(line: &str) -> Read {
        let words: Vec<OsString> = line.split(' ').map(OsString::from).collect();
        read(&words, |name| name == "installed-plugin")
    }

    #[test]
    fn every_line_of_the_table_is_read() {
        let lines: Vec<&str> = TABLE.lines().filter(|line| !line.starts_with('#') && !line.trim().is_empty()).collect();
        let flags: usize = INTERFACE.commands.iter().map(|command| command.flags.len()).sum();
        assert_eq!(INTERFACE.commands.len() + flags, lines.len());
        assert_eq!(INTERFACE.root().map(|root| root.path.len()), Some(0));
        let uninstall = INTERFACE.commands.iter().find(|command| command.path == ["uninstall"]).expect("uninstall");
        assert_eq!(
            (uninstall.aliases.clone(), uninstall.suggested_for.clone()),
            (vec!["del", "delete", "un"], vec!["remove", "rm"])
        );
        let install = INTERFACE.commands.iter().find(|command| command.path == ["install"]).expect("install");
        let flag = |name: &str| install.flags.iter().find(|flag| flag.long == name).cloned();
        assert_eq!(flag("output").map(|flag| (flag.short, flag.needs_value)), Some((Some(b'o'), true)));
        assert_eq!(flag("dry-run").map(|flag| flag.needs_value), Some(false));
        assert_eq!(flag("atomic").and_then(|flag| flag.deprecated), Some("use --rollback-on-failure instead"));
    }

    #[test]
    fn lines_helm_refuses_are_refused_in_its_words() {
        // (command line, Helm 4.1.4's stderr after `Error: `), as the real binary answers each.
        let table: [(&str, &str); 17] = [
            ("helm get all -o json", "unknown shorthand flag: 'o' in -o"),
            ("helm install x ./c --progress json", "unknown flag: --progress"),
            ("helm list --as x", "unknown flag: --as"),
            ("helm list -qo", "flag needs an argument: 'o' in -o"),
            ("helm list -xq", "unknown shorthand flag: 'x' in -xq"),
            ("helm list -qx", "unknown shorthand flag: 'x' in -x"),
            ("helm list -é", "unknown shorthand flag: 'Ã' in -é"),
            ("helm list ---x", "bad flag syntax: ---x"),
            ("helm get all x --revision", "flag needs an argument: --revision"),
            ("helm --sim apply", "unknown flag: --sim"),
            ("helm apply --sim", "unknown command \"apply\" for \"helm\"\nRun 'helm --help' for usage."),
            ("helm get foo --bar", "unknown flag: --bar"),
            ("helm status a --show-desc=true", "unknown flag: --show-desc"),
            // cobra takes `values` for the value of `-a`, which `get` has not, and finds no subcommand.
            ("helm --namespace x get -a values web", "unknown shorthand flag: 'a' in -a"),
            (
                "helm pus",
                "unknown command \"pus\" for \"helm\"\n\nDid you mean this?\n\tpull\n\tpush\n\nRun 'helm --help' for usage.",
            ),
            (
                "helm rm x",
                "unknown command \"rm\" for \"helm\"\n\nDid you mean this?\n\tuninstall\n\nRun 'helm --help' for usage.",
            ),
            (
                "helm lst",
                "unknown command \"lst\" for \"helm\"\n\nDid you mean this?\n\tlint\n\tget\n\tlist\n\ttest\n\nRun 'helm \
                 --help' for usage.",
            ),
        ];
        for (line, expected) in table {
            let refusal = read_line(line).reading.expect_err(line);
            assert_eq!(refusal.to_string(), expected, "{line}");
        }
    }

    #[test]
    fn a_help_topic_is_found_as_cobras_help_command_finds_it() {
        let unknown =
            |words: &[&str]| Err(Refusal::UnknownHelpTopic(words.iter().map(|word| word.to_string()).collect()));
        let table: [(&str, Result<Reading, Refusal>); 6] = [
            ("helm help", Ok(Reading::Help(vec![]))),
            ("helm help ls", Ok(Reading::Help(vec!["list"]))),
            ("helm help get nonexist", Ok(Reading::Help(vec!["get"]))),
            ("helm help repo add x", Ok(Reading::Help(vec!["repo", "add"]))),
            ("helm help nonexist", unknown(&["nonexist"])),
            ("helm help --debug nonexist other", unknown(&["nonexist", "other"])),
        ];
        for (line, expected) in table {
            assert_eq!(read_line(line).reading, expected, "{line}");
        }
        let topic = Refusal::UnknownHelpTopic(vec!["a".to_string(), "b`c".to_string()]);
        assert_eq!(topic.to_string(), "Unknown help topic [`a` \"b`c\"]");
    }

    #[test]
    fn the_color_mode_is_read_before_the_command_as_helm_reads_it() {
        let refusal = |line: &str| {
            let words: Vec<OsString> = line.split(' ').map(OsString::from).collect();
            color_refusal(&words)
        };
        let invalid = |mode: &str| Some(format!("invalid color mode \"{mode}\": must be one of: never, auto, always"));
        // (command line, Helm 4.1.4's refusal), as the real binary answers each.
        let table = [
            ("helm --color nope list", invalid("nope")),
            ("helm list --colour=bad", invalid("bad")),
            ("helm --color always list --color bad", invalid("bad")),
            ("helm --color bad list --color never", None),
            ("helm --color ALWAYS version", invalid("ALWAYS")),
            // pflag stops at the first word it cannot read: `--help`, `-h`, a bad value, a missing one, `--`.
            ("helm --color bad -h", invalid("bad")),
            ("helm -h --color bad", None),
            ("helm --help --color x", None),
            ("helm --qps abc --color bad list", None),
            ("helm --qps 3 --color bad list", invalid("bad")),
            ("helm list -- --color bad", None),
            ("helm list --color", None),
            // An unknown flag takes the next word unless it is a flag; a known one takes it whatever it is.
            ("helm install -f --color bad", invalid("bad")),
            ("helm install -f x --color bad", invalid("bad")),
            ("helm -n --color bad list", None),
            ("helm -nfoo --color=x", invalid("x")),
            ("helm -xn --color=x list", None),
            // pflag reads a shorthand word byte by byte: `-é` is two unknown shorthands.
            ("helm list -é --color bad", invalid("bad")),
            ("helm list -é x --color bad", invalid("bad")),
        ];
        for (line, expected) in table {
            assert_eq!(refusal(line), expected, "{line}");
        }
        // Any word is read without a panic, wherever a shorthand's byte falls.
        for word in ["-", "--", "-=", "--=", "-é=", "-né", "-n=é", "-ñ=x", "-\u{fffd}", "-n", "-vé", "-test.v"] {
            for line in [format!("helm {word}"), format!("helm {word} x"), format!("helm list {word} --color")] {
                let _ = refusal(&line);
            }
        }
    }

    #[test]
    fn lines_helm_takes_are_read_as_helm_reads_them() {
        let table: [(&str, Reading); 16] = [
            ("helm -n shop ls -q -o json", Reading::Command(vec![2])),
            ("helm --kube-context x list -A", Reading::Command(vec![2])),
            ("helm list -- --progress", Reading::Command(vec![0])),
            ("helm upgrade --install web ./c --dry-run --wait=watcher -f v.yaml", Reading::Command(vec![0])),
            ("helm install web ./c -ojson -n=shop", Reading::Command(vec![0])),
            ("helm list -test.v", Reading::Command(vec![0])),
            ("helm dep up ./c", Reading::Command(vec![0, 1])),
            ("helm get", Reading::Help(vec!["get"])),
            ("helm repo foo", Reading::Help(vec!["repo"])),
            ("helm --debug completion", Reading::Help(vec!["completion"])),
            ("helm diff upgrade web ./c --context 3 --suppress-secrets", Reading::Plugin),
            ("helm --debug installed-plugin --anything", Reading::Plugin),
            // cobra's help command prints the help of the command its topic names.
            ("helm help install", Reading::Help(vec!["install"])),
            ("helm docs --dir x", Reading::Command(vec![0])),
            ("helm -o json list", Reading::Command(vec![2])),
            ("helm --revision 2 get all x all", Reading::Command(vec![2, 3])),
        ];
        for (line, expected) in table {
            assert_eq!(read_line(line).reading, Ok(expected), "{line}");
        }
        let deprecated = read_line("helm upgrade web ./c --atomic --force");
        assert_eq!(
            deprecated.notes,
            [
                "Flag --atomic has been deprecated, use --rollback-on-failure instead",
                "Flag --force has been deprecated, use --force-replace instead"
            ]
        );
        // cobra prints no note when a flag is refused.
        assert!(read_line("helm install --atomic --foo").notes.is_empty());
    }

    #[test]
    fn clap_reads_the_command_names_first_as_cobra_finds_them() {
        let table: [(&str, &str); 5] = [
            ("helm -o json list", "helm list -o json"),
            ("helm --namespace x get values -a web", "helm get values --namespace x -a web"),
            ("helm get foo", "helm get --help"),
            ("helm diff --context 3 upgrade", "helm diff --context 3 upgrade"),
            ("helm list -- get", "helm list -- get"),
        ];
        for (given, expected) in table {
            let words = |line: &str| line.split(' ').map(OsString::from).collect::<Vec<_>>();
            let line = line_for_clap(words(given)).expect(given);
            assert_eq!(line.arguments, words(expected), "{given}");
        }
    }

    /// Every flag of the table (listed, hidden or deprecated) is one berth's Helm interface takes, with a value
    /// where Helm's takes one.
    #[test]
    fn every_flag_of_the_table_is_taken_by_berth_as_helm() {
        let taken = |command: &&HelmCommand| !command.hidden && command.path.first().copied() != Some("help");
        for command in INTERFACE.commands.iter().filter(taken) {
            // Helm's interface in clap as the command's lines get it (a flag given changes nothing of it).
            let path: Vec<OsString> =
                ["helm"].into_iter().chain(command.path.iter().copied()).map(OsString::from).collect();
            let definition = super::super::helm_command(&path);
            for flag in command.flags.iter().chain(INTERFACE.root().map(|root| root.flags.iter()).into_iter().flatten())
            {
                if flag.long == "help" {
                    continue;
                }
                let given = if flag.needs_value { format!("--{}=1", flag.long) } else { format!("--{}", flag.long) };
                let line: Vec<&str> =
                    ["helm"].into_iter().chain(command.path.iter().copied()).chain([given.as_str()]).collect();
                let words: Vec<OsString> = line.iter().map(OsString::from).collect();
                let parsed = definition.clone().try_get_matches_from(&words);
                let refused = parsed.err().filter(|error| error.kind() == clap::error::ErrorKind::UnknownArgument);
                assert!(refused.is_none(), "{line:?}: {}", refused.map(|error| error.to_string()).unwrap_or_default());
            }
        }
    }

    /// Every flag and command berth's own definitions have (as `berth` and as `helm`, hidden ones and aliases
    /// included) that Helm 4.1.4 lacks on a command path is refused as `helm`, as pflag and cobra refuse it.
    #[test]
    fn berths_own_flags_and_commands_are_refused_as_helm() {
        let mut checked = 0;
        for mut definition in [super::super::Cli::command(), super::super::HelmCli::command()] {
            // Built, the global flags are every subcommand's too.
            definition.build();
            let mut pending: Vec<(Vec<String>, clap::Command)> = vec![(Vec::new(), definition)];
            while let Some((path, command)) = pending.pop() {
                let line = |extra: &str| format!("helm {} {extra}", path.join(" ")).trim_end().to_string();
                // The Helm command the path names, by name or alias, or the deepest one it reaches.
                let root = INTERFACE.root().expect("the table's root");
                let mut reached = (root, 0);
                for word in &path {
                    match INTERFACE.child(reached.0, word) {
                        Some(child) => reached = (child, reached.1 + 1),
                        None => break,
                    }
                }
                let (helm_command, depth) = reached;
                if depth < path.len() {
                    let name = path[depth].as_str();
                    let expected = match depth {
                        0 if SERVED_PLUGINS.contains(&name) => Ok(Reading::Plugin),
                        0 if name == "help" => Ok(Reading::Command(vec![0])),
                        0 => Err(Refusal::UnknownCommand {
                            name: name.to_string(),
                            names: INTERFACE.suggestions(root, name),
                        }),
                        _ if INTERFACE.children(helm_command).next().is_some() => {
                            Ok(Reading::Help(helm_command.path.clone()))
                        }
                        // A word after a command without subcommands (`help install`) is its argument.
                        _ => Ok(Reading::Command((0..depth).collect())),
                    };
                    assert_eq!(read_line(&line("")).reading, expected, "{path:?}");
                    checked += 1;
                    continue;
                }
                for argument in command.get_arguments().filter(|argument| !argument.is_positional()) {
                    let longs = argument.get_long().into_iter().chain(argument.get_all_aliases().into_iter().flatten());
                    for long in longs.filter(|long| INTERFACE.long(helm_command, long).is_none()) {
                        let given = line(&format!("--{long}"));
                        assert_eq!(read_line(&given).reading, Err(Refusal::UnknownFlag(long.to_string())), "{given}");
                        checked += 1;
                    }
                    let shorts =
                        argument.get_short().into_iter().chain(argument.get_all_short_aliases().into_iter().flatten());
                    for short in shorts.filter(|short| {
                        u8::try_from(*short).ok().and_then(|byte| INTERFACE.short(helm_command, byte)).is_none()
                    }) {
                        let given = line(&format!("-{short}"));
                        let expected = Refusal::UnknownShorthand { shorthand: short, shorthands: short.to_string() };
                        assert_eq!(read_line(&given).reading, Err(expected), "{given}");
                        checked += 1;
                    }
                }
                // clap's `help` takes the names of commands, as cobra's does.
                if path == ["help"] {
                    continue;
                }
                pending.extend(
                    command
                        .get_subcommands()
                        .map(|sub| ([path.clone(), vec![sub.get_name().to_string()]].concat(), sub.clone())),
                );
            }
        }
        // berth's own commands (apply, plan, controller...) and flags (--sim, --progress, -v, -o of `get all`...).
        assert!(checked >= 500, "{checked}");
    }
}
