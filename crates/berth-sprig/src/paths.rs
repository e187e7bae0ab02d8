//! Sprig's path functions: `base`, `dir`, `clean`, `ext`, `isAbs` (Go's `path`) and their `os` forms (Go's
//! `path/filepath`, which on Linux, where Helm runs, is the same lexical processing with '/').

use std::string::String;
use std::vec::Vec;

use crate::args::SprigFn;
use crate::args::{fixed, string};
use berth_go::Result;
use berth_go::Value;

pub(super) const FUNCTIONS: &[(&str, SprigFn)] = &[
    ("base", base),
    ("dir", dir),
    ("clean", clean),
    ("ext", ext),
    ("isAbs", is_abs),
    ("osBase", os_base),
    ("osDir", os_dir),
    ("osClean", os_clean),
    ("osExt", os_ext),
    ("osIsAbs", os_is_abs),
];

/// Go's `path.Clean`: one slash between names, `.` names dropped, `..` removing the name before it (and at
/// the root, itself); "." for an empty result.
pub(crate) fn clean_path(path: &str) -> String {
    if path.is_empty() {
        return String::from(".");
    }
    let rooted = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for element in path.split('/') {
        match element {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|last| *last != "..") {
                    parts.pop();
                } else if !rooted {
                    parts.push("..");
                }
            }
            name => parts.push(name),
        }
    }
    let joined = parts.join("/");
    match (rooted, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => String::from("."),
        (false, false) => joined,
    }
}

/// Go's `path.Base`.
fn base_of(path: &str) -> String {
    if path.is_empty() {
        return String::from(".");
    }
    let trimmed = path.trim_end_matches('/');
    if trimmed.is_empty() {
        return String::from("/");
    }
    String::from(trimmed.rsplit('/').next().unwrap_or(trimmed))
}

/// Go's `path.Dir`: `Clean` of everything up to the last slash.
fn dir_of(path: &str) -> String {
    let cut = path.rfind('/').map_or(0, |i| i + 1);
    clean_path(&path[..cut])
}

/// Go's `path.Ext`: from the last dot of the final element.
fn ext_of(path: &str) -> &str {
    for (i, c) in path.char_indices().rev() {
        match c {
            '/' => return "",
            '.' => return &path[i..],
            _ => {}
        }
    }
    ""
}

fn text_fn(name: &str, args: &[Value], f: impl FnOnce(&str) -> String) -> Result<Value> {
    let [path] = fixed(name, args)?;
    Ok(Value::from(f(string(path)?)))
}

fn base(args: &[Value]) -> Result<Value> {
    text_fn("base", args, base_of)
}

fn dir(args: &[Value]) -> Result<Value> {
    text_fn("dir", args, dir_of)
}

fn clean(args: &[Value]) -> Result<Value> {
    text_fn("clean", args, clean_path)
}

fn ext(args: &[Value]) -> Result<Value> {
    text_fn("ext", args, |p| String::from(ext_of(p)))
}

fn is_abs(args: &[Value]) -> Result<Value> {
    let [path] = fixed("isAbs", args)?;
    Ok(Value::Bool(string(path)?.starts_with('/')))
}

fn os_base(args: &[Value]) -> Result<Value> {
    text_fn("osBase", args, base_of)
}

fn os_dir(args: &[Value]) -> Result<Value> {
    text_fn("osDir", args, dir_of)
}

fn os_clean(args: &[Value]) -> Result<Value> {
    text_fn("osClean", args, clean_path)
}

fn os_ext(args: &[Value]) -> Result<Value> {
    text_fn("osExt", args, |p| String::from(ext_of(p)))
}

fn os_is_abs(args: &[Value]) -> Result<Value> {
    let [path] = fixed("osIsAbs", args)?;
    Ok(Value::Bool(string(path)?.starts_with('/')))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_follows_go() {
        let cases = [
            ("", "."),
            ("a//b/./c/..", "a/b"),
            ("/../a", "/a"),
            ("../../a/../b", "../../b"),
            ("/", "/"),
            ("a/..", "."),
            ("./", "."),
            ("//a//", "/a"),
        ];
        for (input, want) in cases {
            assert_eq!(clean_path(input), want, "{input}");
        }
    }

    #[test]
    fn base_dir_ext_follow_go() {
        assert_eq!(base_of("/a/b/"), "b");
        assert_eq!(base_of("///"), "/");
        assert_eq!(dir_of("/a/b/c"), "/a/b");
        assert_eq!(dir_of("c"), ".");
        assert_eq!(ext_of("a/b.tar.gz"), ".gz");
        assert_eq!(ext_of("a.b/c"), "");
    }
}
