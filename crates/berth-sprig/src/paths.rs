//! Sprig's path functions: `base`, `dir`, `clean`, `ext`, `isAbs` (Go's `path`) and their `os` forms (Go's
//! `path/filepath`, which on Linux, where Helm runs, is the same lexical processing with '/').

use std::string::String;

use crate::args::SprigFn;
use crate::args::{fixed, string};
use berth_go::Result;
use berth_go::Value;
use berth_go::path::{base as base_of, clean as clean_path, dir as dir_of, ext as ext_of};

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
