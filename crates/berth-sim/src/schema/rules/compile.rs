//! The CEL environment rules are compiled in, and what compiling refuses, worded as cel-go words it
//! (`ERROR: <input>:1:5: undefined field 'replica'` with the line and a caret under the column).
//!
//! The `cel` crate parses with the grammar cel-go parses with, so syntax errors read alike; it does not
//! type-check. What cel-go's checker refuses most is checked here by walking the parsed rule against the
//! schema: an identifier that is not `self`, `oldSelf` or a macro's variable (`undeclared reference`), and a
//! field of `self` its schema does not declare (`undefined field`; at a resource's root, `metadata` holds only
//! `name` and `generateName`). Types are not checked (a rule that returns a number compiles here), nor are
//! function names: a function the environment lacks is met when the rule runs, and the rule is then taken as
//! unevaluated, with a warning ([`super::evaluate`]), as is a rule calling one of [`KUBERNETES_LIBRARY`]
//! that fails to run.

use super::ValidationRule;
use super::values::escape;
use crate::schema::Structural;
use cel::common::ast::{EntryExpr, Expr, IdedExpr, LiteralValue};
use cel::{Env, Program};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, LazyLock};

/// The longest rule compiled, in bytes: charts' rules are a few hundred bytes. A longer one is not parsed (it
/// would need more stack than [`PARSE_STACK_BYTES`]) and is taken as unevaluated.
pub const MAX_RULE_BYTES: usize = 16 * 1024;

/// The deepest expression tree evaluated: the interpreter recurses once per level. cel 0.15's parser stops
/// parenthesised nesting at 96; macros add a few levels each.
pub const MAX_NESTING: usize = 100;

/// The stack parsing runs on: the parser recurses per operator of `1+1+...` (8 KiB of it needs more than 4
/// MiB in a debug build).
const PARSE_STACK_BYTES: usize = 64 * 1024 * 1024;

/// The environment: cel's standard library (macros `has`, `all`, `exists`, `exists_one`, `map`, `filter`;
/// optional values), with the strings and lists extensions Kubernetes' environment also has, and the
/// functions of Kubernetes' libraries [`super::library`] adds.
pub static ENVIRONMENT: LazyLock<Arc<Env>> = LazyLock::new(|| {
    let mut env = Env::stdlib();
    for (name, extension) in [
        ("strings", cel::extensions::strings as fn(&mut Env) -> Result<(), cel::DeclarationError>),
        ("lists", cel::extensions::lists),
        ("Kubernetes", super::library::extension),
    ] {
        if let Err(error) = env.add_extension(extension) {
            tracing::warn!("CEL {name} extension unavailable: {error}");
        }
    }
    Arc::new(env)
});

/// The functions of Kubernetes' CEL libraries (apiserver `pkg/cel/library`: lists, regex, urls, quantity, ip,
/// cidr, format, semver, authz) that the `cel` crate lacks or has only for other types (`indexOf` of a
/// string, not of a list). A rule that calls one and fails to run is taken as unevaluated, not as refusing
/// the object: the failure may be the simulated cluster's.
pub const KUBERNETES_LIBRARY: &[&str] = &[
    "isSorted",
    "sum",
    "min",
    "max",
    "indexOf",
    "lastIndexOf",
    "find",
    "findAll",
    "url",
    "isURL",
    "getScheme",
    "getHost",
    "getHostname",
    "getPort",
    "getEscapedPath",
    "getQuery",
    "quantity",
    "isQuantity",
    "sign",
    "isGreaterThan",
    "isLessThan",
    "compareTo",
    "add",
    "sub",
    "asInteger",
    "asApproximateFloat",
    "isInteger",
    "ip",
    "isIP",
    "cidr",
    "isCIDR",
    "family",
    "isUnspecified",
    "isLoopback",
    "isLinkLocalMulticast",
    "isLinkLocalUnicast",
    "isGlobalUnicast",
    "isCanonical",
    "containsIP",
    "containsCIDR",
    "masked",
    "prefixLength",
    "format.named",
    "validate",
    "semver",
    "isSemver",
    "major",
    "minor",
    "patch",
    "authorizer",
    "path",
    "group",
    "resource",
    "namespace",
    "name",
    "subresource",
    "check",
    "allowed",
    "reason",
    "errored",
    "error",
    "serviceAccount",
];

/// A rule once compiled.
#[derive(Debug)]
pub enum Compiled {
    /// A blank rule: nothing to evaluate.
    Empty,
    /// What the server says of a rule that does not compile (`compilation failed: ERROR: ...`).
    Failed(String),
    /// A rule the simulated cluster cannot evaluate (too long or too deep for its bounds), and why.
    Unevaluated(String),
    Ready(Box<Ready>),
}

/// A compiled rule and its message expression.
#[derive(Debug)]
pub struct Ready {
    pub program: Program,
    /// The compiled `messageExpression`, or why it does not compile; `None` when there is none.
    pub message_expression: Option<Result<Program, String>>,
    /// The rule names `oldSelf`: a transition rule, evaluated only on an update.
    pub uses_old_self: bool,
    /// The first function of [`KUBERNETES_LIBRARY`] the rule calls.
    pub kubernetes_function: Option<String>,
}

/// Compiles `rule`, attached to the node `schema` (`resource_root`: a resource's root, whose `metadata`
/// holds only `name` and `generateName`).
pub fn compile(rule: &ValidationRule, schema: &Structural, resource_root: bool) -> Compiled {
    if rule.rule.trim().is_empty() {
        return Compiled::Empty;
    }
    let optional = rule.optional_old_self == Some(true);
    let program = match parse(&rule.rule, (schema, resource_root), optional, Known::Bool) {
        Parsed::Program(program) => program,
        Parsed::Refused(detail) => return Compiled::Failed(format!("compilation failed: {detail}")),
        Parsed::NotOfType(detail) => return Compiled::Failed(detail.to_string()),
        Parsed::Unevaluated(why) => return Compiled::Unevaluated(why),
    };
    let uses_old_self = program.references().has_variable("oldSelf");
    let references = program.references();
    let kubernetes_function =
        references.functions().into_iter().find(|name| KUBERNETES_LIBRARY.contains(name)).map(str::to_string);
    // A message expression the simulated cluster cannot evaluate is left out: the rule's message is used.
    let message_expression = if rule.message_expression.trim().is_empty() {
        None
    } else {
        match parse(&rule.message_expression, (schema, resource_root), optional, Known::String) {
            Parsed::Program(program) => Some(Ok(program)),
            Parsed::Refused(detail) => Some(Err(format!("messageExpression compilation failed: {detail}"))),
            Parsed::NotOfType(detail) => Some(Err(detail.to_string())),
            Parsed::Unevaluated(_) => None,
        }
    };
    Compiled::Ready(Box::new(Ready { program, message_expression, uses_old_self, kubernetes_function }))
}

enum Parsed {
    Program(Program),
    /// cel-go's compile errors (`ERROR: <input>:...`).
    Refused(String),
    /// The checker's refusal of a result of the wrong type, the whole detail.
    NotOfType(&'static str),
    Unevaluated(String),
}

/// Parses `source` on a stack of its own and checks its names against `schema`, and that its result can be
/// of the `expected` type.
fn parse(source: &str, schema: (&Structural, bool), optional_old_self: bool, expected: Known) -> Parsed {
    if source.len() > MAX_RULE_BYTES {
        return Parsed::Unevaluated(format!(
            "the rule is {} bytes long; the simulated cluster compiles at most {MAX_RULE_BYTES}",
            source.len()
        ));
    }
    let parsed = stacker::maybe_grow(PARSE_STACK_BYTES, PARSE_STACK_BYTES, || {
        catch_unwind(AssertUnwindSafe(|| ENVIRONMENT.compile(source)))
    });
    let program = match parsed {
        Err(_) => return Parsed::Unevaluated("the CEL parser failed".to_string()),
        // cel-go parses deeper nesting than the crate's 96 levels: such a rule is not refused, only not run.
        Ok(Err(errors)) if errors.errors.iter().any(|error| error.msg.contains("Recursion limit")) => {
            return Parsed::Unevaluated("the rule nests deeper than the CEL parser's 96 levels".to_string());
        }
        Ok(Err(errors)) => {
            let issues: Vec<Issue> = errors
                .errors
                .iter()
                .map(|error| Issue {
                    line: usize::try_from(error.pos.0).unwrap_or(1).max(1),
                    column: usize::try_from(error.pos.1).unwrap_or(1).max(1).saturating_sub(1),
                    message: error.msg.clone(),
                })
                .collect();
            return Parsed::Refused(display(source, issues));
        }
        Ok(Ok(program)) => program,
    };
    let depth = nesting(program.expression());
    if depth > MAX_NESTING {
        return Parsed::Unevaluated(format!(
            "the rule nests {depth} levels deep; the simulated cluster evaluates {MAX_NESTING}"
        ));
    }
    let mut checker = Checker { program: &program, issues: Vec::new(), scope: Vec::new(), optional_old_self };
    let resolved = checker.expression(program.expression(), Some(schema));
    if checker.issues.is_empty() {
        let known = known(program.expression(), resolved);
        match (expected, known) {
            (Known::Bool, Known::String | Known::Other) => Parsed::NotOfType("cel expression must evaluate to a bool"),
            (Known::String, Known::Bool | Known::Other) => {
                Parsed::NotOfType("messageExpression must evaluate to a string")
            }
            _ => Parsed::Program(program),
        }
    } else {
        let mut issues = checker.issues;
        issues.sort_by_key(|issue| (issue.line, issue.column));
        Parsed::Refused(display(source, issues))
    }
}

/// One compile error at a 1-based line and a 0-based column (cel-go's `common.Location`).
struct Issue {
    line: usize,
    column: usize,
    message: String,
}

/// cel-go's `Errors.ToDisplayString`: each error as `ERROR: <input>:line:column: message`, the line of the
/// source and a caret under the column (a dot per character before it), joined by newlines.
fn display(source: &str, issues: Vec<Issue>) -> String {
    let mut shown = Vec::new();
    for issue in issues {
        let mut text = format!("ERROR: <input>:{}:{}: {}", issue.line, issue.column + 1, issue.message);
        if let Some(line) = source.split('\n').nth(issue.line.saturating_sub(1)) {
            let line = line.replace('\t', " ");
            let dots: String =
                line.chars().take(issue.column).map(|c| if c.len_utf8() > 1 { '\u{ff0e}' } else { '.' }).collect();
            text.push_str(&format!("\n | {line}\n | {dots}^"));
        }
        shown.push(text);
    }
    shown.join("\n")
}

/// The macros whose leading arguments name variables (cel's, and the two-variable ones of
/// `ext.TwoVarComprehensions`).
const COMPREHENSIONS: &[&str] =
    &["all", "exists", "exists_one", "map", "filter", "transformList", "transformMap", "transformMapEntry"];

/// What an expression's value is known to be without type-checking it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Known {
    Bool,
    String,
    /// A number, bytes, null, a list, a map or an object.
    Other,
    Unknown,
}

/// The functions and operators whose result is a bool, and those whose result is neither a bool nor a string.
const BOOL_RESULTS: &[&str] = &[
    "_==_",
    "_!=_",
    "_<_",
    "_<=_",
    "_>_",
    "_>=_",
    "_&&_",
    "_||_",
    "!_",
    "@in",
    "@not_strictly_false",
    "matches",
    "startsWith",
    "endsWith",
    "contains",
    "bool",
];
const OTHER_RESULTS: &[&str] = &["size", "int", "uint", "double", "bytes", "_-_", "_*_", "_/_", "_%_", "-_"];

/// What `expression` (which `resolved` says is a node of the schema, when it is) evaluates to, as far as
/// its shape tells; cel-go's checker refuses a rule that is not a bool and a message expression that is not a
/// string.
fn known(expression: &IdedExpr, resolved: Option<Resolved<'_>>) -> Known {
    if let Some(resolved) = resolved {
        return match resolved {
            Resolved::Metadata => Known::Other,
            Resolved::Node(node, _) => match node.value_type.as_deref() {
                _ if node.int_or_string => Known::Unknown,
                Some("boolean") => Known::Bool,
                Some("string") => Known::String,
                Some(_) => Known::Other,
                None => Known::Unknown,
            },
        };
    }
    match &expression.expr {
        Expr::Literal(LiteralValue::Boolean(_)) => Known::Bool,
        Expr::Literal(LiteralValue::String(_)) => Known::String,
        Expr::Literal(_) | Expr::List(_) | Expr::Map(_) | Expr::Struct(_) => Known::Other,
        Expr::Select(select) if select.test => Known::Bool,
        Expr::Call(call) if call.func_name == "_?_:_" && call.args.len() == 3 => {
            match (known(&call.args[1], None), known(&call.args[2], None)) {
                (left, right) if left == right => left,
                _ => Known::Unknown,
            }
        }
        // `+` adds numbers, joins strings and lists: the result is of its operands' type.
        Expr::Call(call) if call.func_name == "_+_" => {
            let operands = call.args.iter().map(|operand| known(operand, None));
            operands.into_iter().find(|known| matches!(known, Known::String | Known::Other)).unwrap_or(Known::Unknown)
        }
        Expr::Call(call) if BOOL_RESULTS.contains(&call.func_name.as_str()) => Known::Bool,
        Expr::Call(call) if OTHER_RESULTS.contains(&call.func_name.as_str()) => Known::Other,
        Expr::Call(call) if call.func_name == "string" => Known::String,
        _ => Known::Unknown,
    }
}

/// What a name in the rule stands for, as far as the schema says.
#[derive(Clone, Copy)]
enum Resolved<'s> {
    /// A value of this schema node (`true`: a resource's root or an embedded resource).
    Node(&'s Structural, bool),
    /// The `metadata` of a resource: only `name` and `generateName`.
    Metadata,
}

/// The type names and namespaces an identifier may be (cel-go declares them in every environment).
const DECLARED_NAMES: &[&str] =
    &["int", "uint", "double", "bool", "string", "bytes", "list", "map", "null_type", "type", "dyn", "optional"];

struct Checker<'p> {
    program: &'p Program,
    issues: Vec<Issue>,
    /// The variables of the macros around the current expression.
    scope: Vec<String>,
    optional_old_self: bool,
}

impl Checker<'_> {
    fn issue(&mut self, id: u64, message: String) {
        let info = self.program.source_info();
        let Some((start, _)) = info.offset_for(id) else { return };
        let before = info.source.get(..start as usize).unwrap_or_default();
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().unwrap_or_default().chars().count();
        self.issues.push(Issue { line, column, message });
    }

    /// Walks `expression`, returning the schema node it stands for when the schema knows it.
    fn expression<'s>(
        &mut self,
        expression: &IdedExpr,
        schema: Option<(&'s Structural, bool)>,
    ) -> Option<Resolved<'s>> {
        match &expression.expr {
            Expr::Ident(name) => {
                if self.scope.iter().any(|variable| variable == name) {
                    return None;
                }
                match name.as_str() {
                    "self" => schema.map(|(node, root)| Resolved::Node(node, root)),
                    "oldSelf" if !self.optional_old_self => schema.map(|(node, root)| Resolved::Node(node, root)),
                    "oldSelf" => None,
                    name if DECLARED_NAMES.contains(&name) || name.starts_with('@') || name.starts_with("__") => None,
                    name => {
                        self.issue(expression.id, format!("undeclared reference to '{name}' (in container '')"));
                        None
                    }
                }
            }
            Expr::Select(select) => {
                let operand = self.expression(&select.operand, schema)?;
                let field = self.field(expression.id, operand, &select.field);
                // `has(self.x)` is a bool, not the field.
                if select.test { None } else { field }
            }
            Expr::Call(call) => {
                // A call's target may be a namespace (`optional.none()`, `math.greatest(...)`), not a variable.
                if let Some(target) = &call.target
                    && !matches!(target.expr, Expr::Ident(_))
                {
                    self.expression(target, schema);
                }
                // A macro the crate does not expand (two-variable comprehensions, `self.all(k, v, ...)`) declares
                // its leading identifiers; the rule is then not judged when it runs.
                let depth = self.scope.len();
                if call.target.is_some() && COMPREHENSIONS.contains(&call.func_name.as_str()) {
                    let (last, variables) =
                        call.args.split_last().map_or((None, &[][..]), |(last, rest)| (Some(last), rest));
                    for variable in variables {
                        match &variable.expr {
                            Expr::Ident(name) => self.scope.push(name.clone()),
                            _ => {
                                self.expression(variable, schema);
                            }
                        }
                    }
                    if let Some(last) = last {
                        self.expression(last, schema);
                    }
                } else {
                    for argument in &call.args {
                        self.expression(argument, schema);
                    }
                }
                self.scope.truncate(depth);
                None
            }
            Expr::Comprehension(comprehension) => {
                self.expression(&comprehension.iter_range, schema);
                self.expression(&comprehension.accu_init, schema);
                let depth = self.scope.len();
                self.scope.push(comprehension.iter_var.clone());
                self.scope.extend(comprehension.iter_var2.clone());
                self.scope.push(comprehension.accu_var.clone());
                for part in [&comprehension.loop_cond, &comprehension.loop_step, &comprehension.result] {
                    self.expression(part, schema);
                }
                self.scope.truncate(depth);
                None
            }
            Expr::List(list) => {
                for element in &list.elements {
                    self.expression(element, schema);
                }
                None
            }
            Expr::Map(map) => {
                for entry in &map.entries {
                    if let EntryExpr::MapEntry(entry) = &entry.expr {
                        self.expression(&entry.key, schema);
                        self.expression(&entry.value, schema);
                    }
                }
                None
            }
            Expr::Struct(structure) => {
                for entry in &structure.entries {
                    if let EntryExpr::StructField(field) = &entry.expr {
                        self.expression(&field.value, schema);
                    }
                }
                None
            }
            Expr::Literal(_) | Expr::Unspecified => None,
        }
    }

    /// `operand.field`: cel-go's checker refuses a field an object type does not declare. An object whose
    /// schema keeps unknown fields, or is a map (`additionalProperties`), is not checked.
    fn field<'s>(&mut self, id: u64, operand: Resolved<'s>, field: &str) -> Option<Resolved<'s>> {
        match operand {
            Resolved::Metadata => {
                if !matches!(field, "name" | "generateName") {
                    self.issue(id, format!("undefined field '{field}'"));
                }
                None
            }
            Resolved::Node(node, root) => {
                if root && field == "metadata" {
                    return Some(Resolved::Metadata);
                }
                if root && matches!(field, "apiVersion" | "kind") {
                    return None;
                }
                let declared = node.properties.iter().find(|(name, _)| escape(name).as_deref() == Some(field));
                if let Some((_, child)) = declared {
                    return Some(Resolved::Node(child, child.embedded_resource));
                }
                let declares_fields = node.value_type.as_deref() == Some("object")
                    && !node.properties.is_empty()
                    && node.additional_properties.is_none()
                    && !node.preserve_unknown_fields;
                if declares_fields {
                    self.issue(id, format!("undefined field '{field}'"));
                }
                None
            }
        }
    }
}

/// The depth of an expression tree, without recursion.
pub fn nesting(expression: &IdedExpr) -> usize {
    let mut deepest = 0;
    let mut pending = vec![(expression, 1usize)];
    while let Some((expression, depth)) = pending.pop() {
        deepest = deepest.max(depth);
        let next = depth + 1;
        match &expression.expr {
            Expr::Call(call) => {
                pending.extend(call.target.iter().map(|target| (&**target, next)));
                pending.extend(call.args.iter().map(|argument| (argument, next)));
            }
            Expr::Comprehension(comprehension) => pending.extend(
                [
                    &comprehension.iter_range,
                    &comprehension.accu_init,
                    &comprehension.loop_cond,
                    &comprehension.loop_step,
                    &comprehension.result,
                ]
                .map(|part| (part, next)),
            ),
            Expr::List(list) => pending.extend(list.elements.iter().map(|element| (element, next))),
            Expr::Map(map) => {
                for entry in &map.entries {
                    if let EntryExpr::MapEntry(entry) = &entry.expr {
                        pending.push((&entry.key, next));
                        pending.push((&entry.value, next));
                    }
                }
            }
            Expr::Struct(structure) => {
                for entry in &structure.entries {
                    if let EntryExpr::StructField(field) = &entry.expr {
                        pending.push((&field.value, next));
                    }
                }
            }
            Expr::Select(select) => pending.push((&select.operand, next)),
            Expr::Ident(_) | Expr::Literal(_) | Expr::Unspecified => {}
        }
    }
    deepest
}
