//! A test stand-in for Helm's rendering engine (helm/pkg/engine/engine.go, v4.1.4) on top of berth-template:
//! the template set Helm builds (`gotpl`, missingkey=zero, files parsed in Helm's order), the context
//! functions `include`, `tpl`, `required` and `fail` as Helm defines them, Helm's `<no value>` removal, and
//! Helm's reprinting of errors (`cleanupParseError`, `reformatExecErrorMsg`). The chart renderer implements
//! the same for real; here it lets the probe tests compare the engine with real Helm.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use berth_go::strconv::quote;
use berth_go::{GoType, Signature, TemplateError, Value};
use berth_template::{Context, Limits, MissingKey, Template};

const RECURSION_MAX: usize = 1000;

/// The stack the renderer runs templates with, and the budget it gives the engine (a margin below it).
pub const THREAD_STACK: usize = 64 * 1024 * 1024;
pub const STACK_BUDGET: usize = 60 * 1024 * 1024;
const WARN_START: &str = "HELM_ERR_START";
const WARN_END: &str = "HELM_ERR_END";

/// A chart file to render.
pub struct File {
    pub name: String,
    pub text: String,
}

fn warn_wrap(message: &str) -> TemplateError {
    TemplateError::msg(format!("{WARN_START}{message}{WARN_END}"))
}

/// Helm's `includeFun`.
fn include(counts: &Mutex<HashMap<String, usize>>, ctx: &mut Context<'_>, args: &[Value]) -> berth_go::Result<Value> {
    let name = args.first().and_then(Value::as_str).unwrap_or_default().to_string();
    let data = args.get(1).cloned().unwrap_or(Value::Nil);
    {
        let mut counts = counts.lock().unwrap_or_else(|p| p.into_inner());
        let count = counts.entry(name.clone()).or_insert(0);
        if *count > RECURSION_MAX {
            return Err(TemplateError::msg(format!(
                "rendering template has a nested reference name: {name}: unable to execute template"
            )));
        }
        *count += 1;
    }
    let result = ctx.execute_template(&name, &data);
    if let Some(count) = counts.lock().unwrap_or_else(|p| p.into_inner()).get_mut(&name) {
        *count -= 1;
    }
    result.map(|out| Value::from_go_bytes(&out))
}

/// Helm's `tplFun`: the text is parsed as a template named after the set (`gotpl`) into a copy of the set.
fn tpl(ctx: &mut Context<'_>, args: &[Value]) -> berth_go::Result<Value> {
    let text = args.first().and_then(Value::as_str).unwrap_or_default().to_string();
    let data = args.get(1).cloned().unwrap_or(Value::Nil);
    match ctx.execute_text("gotpl", &text, &data) {
        Ok(out) => Ok(Value::String(berth_go::strings::from_go_bytes(&out).replace("<no value>", "").into())),
        Err(e @ TemplateError::Parse(_)) => {
            Err(TemplateError::msg(format!("cannot parse template {}: {e}", quote(&text))))
        }
        Err(e) => Err(TemplateError::msg(format!("error during tpl function execution for {}: {e}", quote(&text)))),
    }
}

/// The set Helm builds: `New("gotpl")`, missingkey=zero, its functions, each file parsed in Helm's order.
pub fn build(files: &[File]) -> Result<Template, String> {
    let counts = Arc::new(Mutex::new(HashMap::new()));
    let mut set = Template::new("gotpl")
        .missing_key(MissingKey::ZeroValue)
        .limits(Limits { stack_budget: STACK_BUDGET, ..Limits::default() })
        .funcs(berth_sprig::helm_functions())
        .context_func("include", Some(Signature::fixed(&[GoType::String, GoType::Any])), move |ctx, args| {
            include(&counts, ctx, args)
        })
        .context_func("tpl", Some(Signature::fixed(&[GoType::String, GoType::Any])), tpl)
        .func_with_signature("required", Signature::fixed(&[GoType::String, GoType::Any]), |args| {
            let warn = args.first().and_then(Value::as_str).unwrap_or_default();
            match args.get(1) {
                None | Some(Value::Nil) => Err(warn_wrap(warn)),
                Some(Value::String(s)) if s.is_empty() => Err(warn_wrap(warn)),
                Some(v) => Ok(v.clone()),
            }
        })
        .func_with_signature("fail", Signature::fixed(&[GoType::String]), |args| {
            Err(warn_wrap(args.first().and_then(Value::as_str).unwrap_or_default()))
        });
    for file in sorted(files) {
        set.add(&file.name, &file.text).map_err(|e| cleanup_parse_error(&file.name, &e))?;
    }
    Ok(set)
}

/// Helm's `sortTemplates`: by path depth, then name, reversed.
fn sorted(files: &[File]) -> Vec<&File> {
    let mut files: Vec<&File> = files.iter().collect();
    files.sort_by(|a, b| {
        let (da, db) = (a.name.matches('/').count(), b.name.matches('/').count());
        (da, &a.name).cmp(&(db, &b.name))
    });
    files.reverse();
    files
}

/// Renders every non-partial file as Helm does; the error is Helm's message (without `Error: `).
pub fn render(files: &[File], top: &Value) -> Result<Vec<(String, String)>, String> {
    let set = build(files)?;
    let mut rendered = Vec::new();
    for file in sorted(files) {
        let base = file.name.rsplit('/').next().unwrap_or_default();
        if base.starts_with('_') {
            continue;
        }
        let data = with_template(top, &file.name);
        match set.execute_template_to_string(&file.name, &data) {
            Ok(out) => rendered.push((file.name.clone(), out.replace("<no value>", ""))),
            Err(e) => return Err(reformat_exec_error(&file.name, &e)),
        }
    }
    rendered.sort();
    Ok(rendered)
}

fn with_template(top: &Value, name: &str) -> Value {
    let Some(top) = top.as_map() else {
        return top.clone();
    };
    let copy = top.shallow_copy();
    let base_path = name.rsplit_once('/').map(|(dir, _)| dir).unwrap_or_default();
    copy.insert("Template", Value::map([("Name", Value::from(name)), ("BasePath", Value::from(base_path))]));
    Value::Map(copy)
}

/// Helm's `cleanupParseError`.
pub fn cleanup_parse_error(filename: &str, err: &TemplateError) -> String {
    let text = err.to_string();
    let tokens: Vec<&str> = text.split(": ").collect();
    if tokens.len() == 1 {
        return format!("parse error in ({filename}): {text}");
    }
    format!("parse error at ({}): {}", tokens[1], tokens[tokens.len() - 1])
}

/// One level of Helm's `TraceableError`.
#[derive(PartialEq)]
struct Traceable {
    location: String,
    message: String,
    executed_function: String,
}

impl Traceable {
    fn render(&self) -> String {
        let mut out = String::new();
        if !self.location.is_empty() {
            out.push_str(&format!("{}\n  ", self.location));
        }
        if !self.executed_function.is_empty() {
            out.push_str(&format!("{}\n    ", self.executed_function));
        }
        if !self.message.is_empty() {
            out.push_str(&format!("{}\n", self.message));
        }
        out
    }
}

/// Helm's `parseTemplateExecErrorString`.
fn parse_exec_error_string(s: &str) -> Option<Traceable> {
    let remainder = s.strip_prefix("template: ")?;
    if remainder.starts_with("no template ") {
        return Some(Traceable { location: String::new(), message: s.to_string(), executed_function: String::new() });
    }
    if let Some(idx) = remainder.find(": executing ") {
        let template_name = &remainder[..idx];
        let after = &remainder[idx + ": executing ".len()..];
        let parsed = (|| {
            let after = after.strip_prefix('"')?;
            let end_quote = after.find('"')?;
            let function_name = &after[..end_quote];
            let after_at = after[end_quote + 1..].strip_prefix(" at <")?;
            let end_loc = after_at.find(">: ")?;
            let location_name = &after_at[..end_loc];
            let mut message = &after_at[end_loc + ">: ".len()..];
            if let Some(cut) = message.find(" template:") {
                message = &message[..cut];
            }
            Some(Traceable {
                location: template_name.to_string(),
                message: message.to_string(),
                executed_function: format!("executing \"{function_name}\" at <{location_name}>:"),
            })
        })();
        return parsed;
    }
    let sep = remainder.rfind(": ")?;
    let mut message = &remainder[sep + 2..];
    if let Some(cut) = message.find(" template:") {
        message = &message[..cut];
    }
    Some(Traceable {
        location: remainder[..sep].to_string(),
        message: message.to_string(),
        executed_function: String::new(),
    })
}

/// The texts of Go's `errors.Unwrap` chain of a template error.
fn unwrap_chain(err: &TemplateError) -> Vec<String> {
    let mut texts = Vec::new();
    let mut current = Some(err);
    while let Some(e) = current {
        texts.push(e.to_string());
        current = match e {
            TemplateError::Runtime(exec) => {
                // An ExecError unwraps to its formatted error (same text), which unwraps to the cause.
                texts.push(e.to_string());
                exec.cause.as_deref()
            }
            _ => None,
        };
    }
    texts
}

/// Helm's `reformatExecErrorMsg`.
pub fn reformat_exec_error(filename: &str, err: &TemplateError) -> String {
    let text = err.to_string();
    if err.as_exec().is_none() {
        return text;
    }
    let tokens: Vec<&str> = text.splitn(3, ": ").collect();
    if tokens.len() != 3 {
        return format!("execution error in ({filename}): {text}");
    }
    let location = tokens[1];
    if let Some(start) = tokens[2].find(WARN_START)
        && let Some(end) = tokens[2].rfind(WARN_END)
        && end >= start + WARN_START.len()
    {
        return format!("execution error at ({location}): {}", &tokens[2][start + WARN_START.len()..end]);
    }
    let mut locations: Vec<Traceable> = Vec::new();
    for level in unwrap_chain(err) {
        match parse_exec_error_string(&level) {
            Some(tr) => {
                if locations.last() != Some(&tr) {
                    locations.push(tr);
                }
            }
            None => return text,
        }
    }
    locations.iter().map(Traceable::render).collect::<String>().trim().to_string()
}

/// Helm's `releaseutil.SplitManifests` + the `# Source:` header `helm template` prints for each document.
pub fn print_manifests(name: &str, content: &str) -> String {
    let mut out = String::new();
    for doc in split_manifests(content) {
        out.push_str(&format!("---\n# Source: {name}\n{doc}\n"));
    }
    out
}

/// Splits on Helm's separator `(?:^|\s*\n)---\s*` (a `---` at the start of a line, the white space around it),
/// trimming each document and dropping empty ones.
fn split_manifests(content: &str) -> Vec<String> {
    let mut docs = Vec::new();
    let mut current = String::new();
    for line in content.trim().split('\n') {
        match line.strip_prefix("---") {
            Some(rest) => {
                docs.push(std::mem::take(&mut current));
                current.push_str(rest);
                current.push('\n');
            }
            None => {
                current.push_str(line);
                current.push('\n');
            }
        }
    }
    docs.push(current);
    docs.into_iter().map(|d| d.trim().to_string()).filter(|d| !d.is_empty()).collect()
}

/// A JSON document as Helm's values (every number a float64).
pub fn from_json(json: &serde_json::Value) -> Value {
    match json {
        serde_json::Value::Null => Value::Nil,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => Value::Float(n.as_f64().unwrap_or(0.0)),
        serde_json::Value::String(s) => Value::from(s.as_str()),
        serde_json::Value::Array(items) => Value::list(items.iter().map(from_json)),
        serde_json::Value::Object(map) => Value::map(map.iter().map(|(k, v)| (k.as_str(), from_json(v)))),
    }
}
