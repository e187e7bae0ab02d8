//! What real Helm printed for the drop-in table's helm-diff lines, kept in
//! `tests/data/helm_dropin/helm-diff.recorded`: real Helm runs them through the helm-diff plugin, which no package
//! registry carries, so it is built from its source by `scripts/helm-diff/build.sh` where that can be done, and its
//! answers are recorded there for the machines where it cannot (CI). Each entry is what the comparison looks at
//! ([`Seen`]: exit status, masked stdout, masked first line of stderr), keyed by the line as the table writes it
//! and its occurrence (the same line may be run again after the cluster changed).
//!
//! The format is plain text, one entry after another:
//!
//! ```text
//! === 1 | diff upgrade --allow-unreleased alpha {alpha} ...
//! exit 2
//! stderr FIRST LINE
//! | a line of stdout
//! | another
//! end newline
//! ```
//!
//! `end newline` says stdout ended with a newline (`end` alone: it did not); a stdout line is written after `| `.

use crate::helm_dropin::Seen;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Where the recording is kept.
pub(crate) const RECORDING: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/helm_dropin/helm-diff.recorded");

/// The lines real Helm with the helm-diff plugin answered, by the table's text of the line and its occurrence.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Recording {
    pub(crate) entries: BTreeMap<(String, usize), Seen>,
}

impl Recording {
    /// The recording as the file holds it: an unreadable entry names its line of the file.
    pub(crate) fn parse(text: &str) -> Result<Recording, String> {
        let mut recording = Recording::default();
        let mut lines = text.lines().enumerate().filter(|(_, line)| !line.starts_with('#')).peekable();
        while let Some((number, line)) = lines.next() {
            let at = |what: &str| format!("{RECORDING} line {}: {what}", number + 1);
            let header = line.strip_prefix("=== ").ok_or_else(|| at("expected `=== N | LINE`"))?;
            let (occurrence, key) = header.split_once(" | ").ok_or_else(|| at("expected `=== N | LINE`"))?;
            let occurrence: usize = occurrence.parse().map_err(|_| at("the occurrence is no number"))?;
            let mut field = |name: &str| match lines.next() {
                Some((_, line)) => line.strip_prefix(name).map(str::to_string).ok_or_else(|| at(name)),
                None => Err(at(name)),
            };
            let exit = field("exit ")?;
            let exit = if exit == "none" { None } else { Some(exit.parse().map_err(|_| at("exit is no number"))?) };
            let stderr = field("stderr ")?;
            let mut stdout = Vec::new();
            let ends_with_newline = loop {
                match lines.next() {
                    Some((_, line)) if line.starts_with("| ") || line == "|" => {
                        stdout.push(line.get(2..).unwrap_or_default());
                    }
                    Some((_, "end newline")) => break true,
                    Some((_, "end")) => break false,
                    _ => return Err(at("the entry has no `end`")),
                }
            };
            let mut stdout = stdout.join("\n");
            if ends_with_newline {
                stdout.push('\n');
            }
            recording.entries.insert((key.to_string(), occurrence), (exit, stdout, stderr));
        }
        Ok(recording)
    }

    /// The file's text, with `header` (comment lines) first.
    pub(crate) fn render(&self, header: &str) -> String {
        let mut text = String::new();
        for line in header.lines() {
            let _ = writeln!(text, "# {line}");
        }
        for ((key, occurrence), (exit, stdout, stderr)) in &self.entries {
            let exit = exit.map_or("none".to_string(), |code| code.to_string());
            let _ = writeln!(text, "=== {occurrence} | {key}\nexit {exit}\nstderr {stderr}");
            for line in stdout.lines() {
                let _ = writeln!(text, "| {line}");
            }
            text.push_str(if stdout.ends_with('\n') { "end newline\n" } else { "end\n" });
        }
        text
    }
}

#[test]
fn a_recording_reads_back_as_it_was_written() {
    let mut recording = Recording::default();
    let entries = [
        (("diff upgrade a", 1), (Some(2), "=== not a header\n| nor a line\n\nend\n".to_string(), "".to_string())),
        (("diff upgrade a", 2), (Some(0), String::new(), "Error: x".to_string())),
        (("diff release b", 1), (None, "no newline at the end".to_string(), String::new())),
    ];
    for ((key, occurrence), seen) in entries {
        recording.entries.insert((key.to_string(), occurrence), seen);
    }
    let text = recording.render("recorded by hand\nfor this test");
    assert!(text.starts_with("# recorded by hand\n# for this test\n=== "), "{text}");
    assert_eq!(Recording::parse(&text), Ok(recording));
    assert!(Recording::parse("=== 1 | x\nexit 0\nstderr \n| a\n").unwrap_err().ends_with("the entry has no `end`"));
}
