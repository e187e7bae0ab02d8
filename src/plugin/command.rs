//! The program line of a subprocess plugin, as Helm 4.1.4 builds it (internal/plugin/subprocess_commands.go):
//! the `platformCommand` for this operating system and architecture, its command split at spaces, `$VARIABLES`
//! expanded with Go's `os.Expand` over the plugin's environment, extra arguments appended.
//!
//! Pure: commands and an environment in, a program and arguments out.

use super::metadata::PlatformCommand;
use std::collections::BTreeMap;

/// Go's `runtime.GOOS` for this build.
pub fn go_os() -> &'static str {
    match std::env::consts::OS {
        "macos" => "darwin",
        other => other,
    }
}

/// Go's `runtime.GOARCH` for this build.
pub fn go_arch() -> &'static str {
    match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        "x86" => "386",
        "powerpc64" => "ppc64",
        other => other,
    }
}

/// `getPlatformCommand`: an exact operating-system-and-architecture match wins; else the first command for
/// this operating system without an architecture; else the first command for any system.
fn platform_command<'a>(commands: &'a [PlatformCommand], os: &str, arch: &str) -> Option<&'a PlatformCommand> {
    let same = |a: &str, b: &str| a.eq_ignore_ascii_case(b);
    let mut chosen: Option<&PlatformCommand> = None;
    let mut chosen_for_os = false;
    for command in commands {
        if same(&command.operating_system, os) && same(&command.architecture, arch) {
            return Some(command);
        }
        let other_os = !command.operating_system.is_empty() && !same(&command.operating_system, os);
        if other_os || !command.architecture.is_empty() {
            continue;
        }
        if !chosen_for_os && !command.operating_system.is_empty() {
            chosen = Some(command);
            chosen_for_os = true;
        } else if chosen.is_none() {
            chosen = Some(command);
        }
    }
    chosen
}

/// Why no program line could be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no plugin command is applicable")]
pub struct NoCommand;

/// `PrepareCommands`: the program and its arguments.
///
/// # Errors
/// [`NoCommand`] when no command fits this system, or it is empty.
pub fn prepare_command(
    commands: &[PlatformCommand],
    expand_arguments: bool,
    extra_arguments: &[String],
    environment: &BTreeMap<String, String>,
) -> Result<(String, Vec<String>), NoCommand> {
    let command = platform_command(commands, go_os(), go_arch()).ok_or(NoCommand)?;
    // Go's `strings.Split(command, " ")`: empty parts stay.
    let mut parts = command.command.split(' ');
    let program = parts.next().filter(|program| !program.is_empty()).ok_or(NoCommand)?;
    let lookup = |name: &str| environment.get(name).cloned().unwrap_or_default();
    let expand_argument =
        |argument: &str| if expand_arguments { expand(argument, &lookup) } else { argument.to_string() };
    let mut arguments: Vec<String> = parts.map(expand_argument).collect();
    arguments.extend(command.args.iter().map(|argument| expand_argument(argument)));
    arguments.extend(extra_arguments.iter().cloned());
    Ok((expand(program, &lookup), arguments))
}

/// Go's `os.Expand`: `$NAME`, `${NAME}` and the shell's one-character names (`$1`, `$@`, ...) replaced by
/// `lookup`; a `$` followed by nothing that names a variable stays; bad `${` syntax is dropped.
pub fn expand(text: &str, lookup: &impl Fn(&str) -> String) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut start = 0;
    let mut index = 0;
    while index < bytes.len() {
        if bytes[index] == b'$' && index + 1 < bytes.len() {
            out.push_str(&text[start..index]);
            let (name, width) = shell_name(&text[index + 1..]);
            match name {
                Some(name) => out.push_str(&lookup(name)),
                // Valid syntax without a name: the `$` stays.
                None if width == 0 => out.push('$'),
                // Bad syntax: the characters are eaten.
                None => {}
            }
            index += width;
            start = index + 1;
        }
        index += 1;
    }
    out.push_str(&text[start.min(text.len())..]);
    out
}

/// Go's `isShellSpecialVar`.
fn is_special(byte: u8) -> bool {
    matches!(byte, b'*' | b'#' | b'$' | b'@' | b'!' | b'?' | b'-' | b'0'..=b'9')
}

/// Go's `getShellName`: the name after a `$` and how many bytes it takes.
fn shell_name(text: &str) -> (Option<&str>, usize) {
    let bytes = text.as_bytes();
    if bytes[0] == b'{' {
        if bytes.len() > 2 && is_special(bytes[1]) && bytes[2] == b'}' {
            return (Some(&text[1..2]), 3);
        }
        for (position, byte) in bytes.iter().enumerate().skip(1) {
            if *byte == b'}' {
                if position == 1 {
                    return (None, 2);
                }
                return (Some(&text[1..position]), position + 1);
            }
        }
        return (None, 1);
    }
    if is_special(bytes[0]) {
        return (Some(&text[0..1]), 1);
    }
    let length = bytes.iter().take_while(|byte| byte.is_ascii_alphanumeric() || **byte == b'_').count();
    if length == 0 { (None, 0) } else { (Some(&text[..length]), length) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expansion_is_gos() {
        let lookup = |name: &str| match name {
            "HOME" => "/h".to_string(),
            "1" => "one".to_string(),
            _ => String::new(),
        };
        let table = [
            ("$HOME/bin", "/h/bin"),
            ("${HOME}x", "/hx"),
            ("a$1b", "aoneb"),
            ("\"$@\"", "\"\""),
            ("cost: 5$", "cost: 5$"),
            ("$ x", "$ x"),
            ("${}y", "y"),
            ("${HOME", "HOME"),
            ("$UNSET.", "."),
            ("${1}", "one"),
        ];
        for (text, expected) in table {
            assert_eq!(expand(text, &lookup), expected, "{text}");
        }
    }

    #[test]
    fn the_command_for_this_platform_is_chosen() {
        let command = |os: &str, arch: &str, program: &str| PlatformCommand {
            operating_system: os.to_string(),
            architecture: arch.to_string(),
            command: program.to_string(),
            args: Vec::new(),
        };
        let commands = [
            command("", "", "any"),
            command("linux", "", "linux"),
            command("linux", "amd64", "exact"),
            command("windows", "", "w"),
        ];
        assert_eq!(platform_command(&commands, "linux", "amd64").map(|c| c.command.as_str()), Some("exact"));
        assert_eq!(platform_command(&commands, "linux", "arm64").map(|c| c.command.as_str()), Some("linux"));
        assert_eq!(platform_command(&commands, "darwin", "arm64").map(|c| c.command.as_str()), Some("any"));
        assert_eq!(platform_command(&commands[3..], "linux", "amd64"), None);
        let environment = BTreeMap::from([("HELM_PLUGIN_DIR".to_string(), "/p".to_string())]);
        let line = [PlatformCommand {
            command: "$HELM_PLUGIN_DIR/run.sh --flag".to_string(),
            args: vec!["$HELM_PLUGIN_DIR".to_string()],
            ..PlatformCommand::default()
        }];
        let prepared = prepare_command(&line, true, &["x".to_string()], &environment).unwrap();
        assert_eq!(prepared, ("/p/run.sh".to_string(), vec!["--flag".into(), "/p".into(), "x".into()]));
        let unexpanded = prepare_command(&line, false, &[], &environment).unwrap();
        assert_eq!(unexpanded.1, ["--flag", "$HELM_PLUGIN_DIR"]);
        assert_eq!(prepare_command(&[], true, &[], &environment), Err(NoCommand));
    }
}
