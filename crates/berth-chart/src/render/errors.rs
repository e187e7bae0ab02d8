//! Template errors as Helm words them (helm pkg/engine/engine.go `cleanupParseError`,
//! `reformatExecErrorMsg`): a parse error becomes `parse error at (FILE:LINE): MESSAGE`; a runtime error with a
//! `required`/`fail` message becomes `execution error at (FILE:LINE:COL): MESSAGE`; other runtime errors become
//! a trace, one entry per template of the `include` chain, unless some link of the chain is not a template
//! error, in which case Go's one-line error is kept.

use berth_go::TemplateError;

/// Where Helm marks a `required`/`fail` message inside the error text.
pub(super) const WARN_START: &str = "HELM_ERR_START";
pub(super) const WARN_END: &str = "HELM_ERR_END";

/// `cleanupParseError`.
pub(super) fn parse_error(file: &str, error: &TemplateError) -> String {
    let text = error.to_string();
    let tokens: Vec<&str> = text.split(": ").collect();
    match (tokens.get(1), tokens.last()) {
        (Some(location), Some(message)) if tokens.len() > 1 => format!("parse error at ({location}): {message}"),
        _ => format!("parse error in ({file}): {text}"),
    }
}

/// One entry of Helm's trace (`TraceableError`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Traceable {
    location: String,
    executed_function: String,
    message: String,
}

impl Traceable {
    fn render(&self) -> String {
        let mut text = String::new();
        if !self.location.is_empty() {
            text.push_str(&format!("{}\n  ", self.location));
        }
        if !self.executed_function.is_empty() {
            text.push_str(&format!("{}\n    ", self.executed_function));
        }
        if !self.message.is_empty() {
            text.push_str(&format!("{}\n", self.message));
        }
        text
    }
}

/// `reformatExecErrorMsg`.
pub(super) fn render_error(file: &str, error: &TemplateError) -> String {
    let text = error.to_string();
    if error.as_exec().is_none() {
        return text;
    }
    let tokens: Vec<&str> = text.splitn(3, ": ").collect();
    let [_, location, rest] = tokens[..] else {
        return format!("execution error in ({file}): {text}");
    };
    if let Some(start) = rest.find(WARN_START)
        && let Some(end) = rest.rfind(WARN_END)
        && end >= start + WARN_START.len()
    {
        return format!("execution error at ({location}): {}", &rest[start + WARN_START.len()..end]);
    }
    let mut trace: Vec<Traceable> = Vec::new();
    let mut current = Some(error);
    while let Some(link) = current {
        let Some(entry) = parse_traceable(&link.to_string()) else { return text };
        if trace.last() != Some(&entry) {
            trace.push(entry);
        }
        current = match link {
            TemplateError::Runtime(exec) => exec.cause.as_deref(),
            _ => None,
        };
    }
    trace.iter().map(Traceable::render).collect::<String>().trim().to_string()
}

/// `parseTemplateExecErrorString`: one link of the chain, if it reads as a template error.
fn parse_traceable(text: &str) -> Option<Traceable> {
    let remainder = text.strip_prefix("template: ")?;
    if remainder.starts_with("no template ") {
        return Some(Traceable {
            location: String::new(),
            executed_function: String::new(),
            message: text.to_string(),
        });
    }
    if let Some(index) = remainder.find(": executing ") {
        let template = &remainder[..index];
        let after = &remainder[index + ": executing ".len()..];
        let after = after.strip_prefix('"')?;
        let end_quote = after.find('"')?;
        let function = &after[..end_quote];
        let after_at = after[end_quote + 1..].strip_prefix(" at <")?;
        let end_location = after_at.find(">: ")?;
        let node = &after_at[..end_location];
        let message = cut_chain(&after_at[end_location + ">: ".len()..]);
        return Some(Traceable {
            location: template.to_string(),
            executed_function: format!("executing \"{function}\" at <{node}>:"),
            message: message.to_string(),
        });
    }
    let separator = remainder.rfind(": ")?;
    Some(Traceable {
        location: remainder[..separator].to_string(),
        executed_function: String::new(),
        message: cut_chain(&remainder[separator + 2..]).to_string(),
    })
}

/// The message up to the next chained template error.
fn cut_chain(message: &str) -> &str {
    match message.find(" template:") {
        Some(cut) => &message[..cut],
        None => message,
    }
}
