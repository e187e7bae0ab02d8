//! Calls: functions, builtins, methods and context functions, with Go's argument checks (`evalCall`,
//! `evalArg`, `validateType` in exec.go).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use crate::budget::built_by;
use crate::builtins::Builtin;
use crate::env::{Callable, Context, Function};
use crate::parse::Operand;
use crate::slot::Slot;
use berth_go::TemplateError;
use berth_go::strconv::quote;
use berth_go::{GoType, List, Map, Object, Signature, Value};

use super::eval::Args;
use super::{At, Exec, Flow, Walk};

/// What is being called.
enum Target {
    Function(Function),
    Method(Arc<dyn Object>),
}

impl<'t> Exec<'t, '_> {
    /// Go's `evalFunction`.
    pub fn eval_function(
        &mut self,
        dot: &Slot,
        node: &'t Operand,
        name: &str,
        cmd: At<'t>,
        args: Args<'t>,
        fin: Option<Slot>,
    ) -> Walk<Slot> {
        self.at(At::Operand(node));
        let Some(function) = self.env.funcs.get(name).cloned() else {
            return self.fail(format!("{} is not a defined function", quote(name)));
        };
        let signature = function.signature.unwrap_or(Signature::variadic(&[], GoType::Any));
        self.eval_call(dot, Target::Function(function), signature, cmd, name, args, fin)
    }

    /// A method of a host object (Go's `evalField` finding `MethodByName`).
    #[allow(clippy::too_many_arguments, reason = "mirrors Go's evalField/evalCall parameters")]
    pub fn eval_method(
        &mut self,
        dot: &Slot,
        object: Arc<dyn Object>,
        name: &str,
        signature: Signature,
        node: At<'t>,
        args: Args<'t>,
        fin: Option<Slot>,
    ) -> Walk<Slot> {
        self.eval_call(dot, Target::Method(object), signature, node, name, args, fin)
    }

    /// Go's `evalCall`: checks the argument count, evaluates and checks the arguments against the
    /// parameter types, calls, and wraps a failure as `error calling NAME: ...`.
    #[allow(clippy::too_many_arguments, reason = "mirrors Go's evalCall parameters")]
    fn eval_call(
        &mut self,
        dot: &Slot,
        target: Target,
        signature: Signature,
        node: At<'t>,
        name: &str,
        args: Args<'t>,
        fin: Option<Slot>,
    ) -> Walk<Slot> {
        let args: &'t [Operand] = match args {
            Some(all) => all.get(1..).unwrap_or_default(),
            None => &[],
        };
        let num_params = signature.params.len() + usize::from(signature.variadic.is_some());
        let num_in = args.len() + usize::from(fin.is_some());
        let num_fixed = if signature.variadic.is_some() {
            let fixed = signature.params.len();
            if num_in < fixed {
                return self.fail(format!("wrong number of args for {name}: want at least {fixed} got {}", args.len()));
            }
            fixed
        } else {
            if num_in != num_params {
                return self.fail(format!("wrong number of args for {name}: want {num_params} got {num_in}"));
            }
            args.len()
        };

        let builtin = match &target {
            Target::Function(Function { callable: Callable::Builtin(b), .. }) => Some(*b),
            _ => None,
        };

        // Builtin and/or short-circuit.
        if let Some(b @ (Builtin::And | Builtin::Or)) = builtin {
            let want = b == Builtin::Or;
            let mut v = Slot::Invalid;
            for arg in args {
                v = self.eval_arg(dot, Some(GoType::Reflect), arg)?;
                if v.is_true() == want {
                    return Ok(v);
                }
            }
            if let Some(fin) = fin {
                v = self.validate_type(fin, Some(GoType::Reflect))?;
            }
            return Ok(v);
        }

        let mut argv: Vec<Slot> = Vec::with_capacity(num_in);
        let mut i = 0;
        while i < num_fixed && i < args.len() {
            argv.push(self.eval_arg(dot, Some(signature.params[i]), &args[i])?);
            i += 1;
        }
        if let Some(rest) = signature.variadic {
            while i < args.len() {
                argv.push(self.eval_arg(dot, Some(rest), &args[i])?);
                i += 1;
            }
        }
        if let Some(fin) = fin {
            let typ = match signature.variadic {
                Some(rest) if num_in > num_fixed => rest,
                _ => signature.params.get(num_in - 1).copied().unwrap_or(GoType::Any),
            };
            argv.push(self.validate_type(fin, Some(typ))?);
        }

        self.check_budget()?;
        // What the call built is counted against the render's bytes: a context function's output was counted as
        // it was written.
        let mut counted: Option<Vec<Value>> = None;
        let result = match target {
            Target::Function(function) => match function.callable {
                Callable::Builtin(b) => {
                    let callee = match args.first() {
                        Some(first) => first.to_string(),
                        None => argv.first().map(slot_text).unwrap_or_default(),
                    };
                    let result = b.call(&argv, &callee);
                    counted = Some(argv.into_iter().map(Slot::into_value).collect());
                    result
                }
                Callable::Plain(f) => {
                    let values: Vec<Value> = argv.into_iter().map(Slot::into_value).collect();
                    let result = guarded(name, || f(&values)).map(Slot::from_result);
                    counted = Some(values);
                    result
                }
                Callable::Context(f) => {
                    // A context function executes templates: the recursion the stack guard must see.
                    self.check_stack()?;
                    let values: Vec<Value> = argv.into_iter().map(Slot::into_value).collect();
                    let mut context = Context::new(self.env, self.depth, self.budget);
                    guarded(name, || f(&mut context, &values)).map(Slot::from_result)
                }
            },
            Target::Method(object) => {
                let values: Vec<Value> = argv.into_iter().map(Slot::into_value).collect();
                let result = guarded(name, || object.call_method(name, &values)).map(Slot::from_result);
                counted = Some(values);
                result
            }
        };
        // A function that met the end of the budget may have swallowed it (Go's `toJson` returns "" on any error).
        let result = match (self.budget.exhausted(), result) {
            (_, Err(error)) => Err(error),
            (Some(exhausted), Ok(_)) => Err(TemplateError::from(exhausted)),
            (None, Ok(value)) => {
                let built = match (&value, &counted) {
                    (Slot::Val(result) | Slot::Elem(result), Some(args)) => built_by(result, args),
                    _ => 0,
                };
                self.budget.charge(built).map(|()| value).map_err(TemplateError::from)
            }
        };
        match result {
            Ok(v) => Ok(v),
            Err(e) => {
                self.at(node);
                Err(self.error_with_cause(format!("error calling {name}"), Some(Box::new(e))).into())
            }
        }
    }

    /// Go's `evalArg`: evaluates an operand for a parameter of type `typ` (`None`: no type, for the term
    /// of a chain).
    pub fn eval_arg(&mut self, dot: &Slot, typ: Option<GoType>, n: &'t Operand) -> Walk<Slot> {
        self.at(At::Operand(n));
        match n {
            Operand::Dot(_) => return self.validate_type(dot.clone(), typ),
            Operand::Nil(_) => {
                return match typ {
                    Some(t) if t.can_be_nil() => Ok(zero_of(t)),
                    Some(t) => self.fail(format!("cannot assign nil to {}", t.go_name())),
                    None => Ok(Slot::Invalid),
                };
            }
            Operand::Field { ident, .. } => {
                let v = self.eval_field_node(dot, n, ident, Some(std::slice::from_ref(n)), None)?;
                return self.validate_type(v, typ);
            }
            Operand::Variable(variable) => {
                let v = self.eval_variable_node(dot, n, variable, None, None)?;
                return self.validate_type(v, typ);
            }
            Operand::Pipe(pipe) => {
                let v = self.eval_pipeline(dot, Some(pipe))?;
                return self.validate_type(v, typ);
            }
            Operand::Identifier { name, .. } => {
                let v = self.eval_function(dot, n, name, At::Operand(n), None, None)?;
                return self.validate_type(v, typ);
            }
            Operand::Chain { .. } => {
                let v = self.eval_chain_node(dot, n, None, None)?;
                return self.validate_type(v, typ);
            }
            Operand::Bool { .. } | Operand::Number(_) | Operand::String { .. } => {}
        }
        let Some(typ) = typ else {
            return self.eval_empty_interface(dot, n);
        };
        match typ {
            GoType::Bool => match n {
                Operand::Bool { value, .. } => Ok(Slot::Val(Value::Bool(*value))),
                _ => self.fail(format!("expected bool; found {n}")),
            },
            GoType::Float64 => match n {
                Operand::Number(num) if num.is_float => Ok(Slot::Val(Value::Float(num.float64))),
                _ => self.fail(format!("expected float; found {n}")),
            },
            GoType::Int | GoType::Int64 => match n {
                Operand::Number(num) if num.is_int => {
                    Ok(Slot::Val(if typ == GoType::Int { Value::Int(num.int64) } else { Value::Int64(num.int64) }))
                }
                _ => self.fail(format!("expected integer; found {n}")),
            },
            GoType::Uint64 | GoType::Uint32 => match n {
                Operand::Number(num) if num.is_uint => Ok(Slot::Val(Value::Uint(num.uint64))),
                _ => self.fail(format!("expected unsigned integer; found {n}")),
            },
            GoType::String => match n {
                Operand::String { text, .. } => Ok(Slot::Val(Value::String(text.clone()))),
                _ => self.fail(format!("expected string; found {n}")),
            },
            GoType::Any | GoType::Reflect => self.eval_empty_interface(dot, n),
            GoType::List | GoType::StringList | GoType::Map | GoType::Named(_) => {
                self.fail(format!("can't handle {n} for arg of type {}", typ.go_name()))
            }
        }
    }

    /// Go's `evalEmptyInterface` for the literals `evalArg` leaves to it.
    fn eval_empty_interface(&mut self, dot: &Slot, n: &'t Operand) -> Walk<Slot> {
        self.at(At::Operand(n));
        match n {
            Operand::Bool { value, .. } => Ok(Slot::Val(Value::Bool(*value))),
            Operand::Dot(_) => Ok(dot.clone()),
            Operand::Number(num) => self.ideal_constant(n, num),
            Operand::String { text, .. } => Ok(Slot::Val(Value::String(text.clone()))),
            _ => self.fail(format!("can't handle assignment of {n} to empty interface argument")),
        }
    }

    /// Go's `validateType`: the value must be valid and assignable to `typ`.
    pub fn validate_type(&self, value: Slot, typ: Option<GoType>) -> Walk<Slot> {
        let Some(typ) = typ else {
            return Ok(value);
        };
        let value = match value {
            Slot::Invalid => {
                if typ.can_be_nil() {
                    return Ok(zero_of(typ));
                }
                return self.fail(format!("invalid value; expected {}", typ.go_name()));
            }
            Slot::Val(v) | Slot::Elem(v) => v,
        };
        if assignable(&value, typ) {
            return Ok(if matches!(typ, GoType::Any | GoType::Reflect) {
                Slot::from_result(value)
            } else {
                Slot::Val(value)
            });
        }
        let got = match &value {
            // A nil held in a map or list has the map's element type.
            Value::Nil => "interface {}",
            other => other.type_name(),
        };
        Err(Flow::from(self.error(format!("wrong type for value; expected {}; got {got}", typ.go_name()))))
    }
}

/// Whether a value of this dynamic type can be passed for a parameter of type `typ`.
fn assignable(value: &Value, typ: GoType) -> bool {
    match typ {
        GoType::Any | GoType::Reflect => true,
        GoType::String => value.go_string_bytes().is_some(),
        GoType::Bool => matches!(value, Value::Bool(_)),
        GoType::Int => matches!(value, Value::Int(_)),
        GoType::Int64 => matches!(value, Value::Int64(_)),
        GoType::Uint64 => matches!(value, Value::Uint(_)),
        // No value has type uint32; a literal is converted by `eval_arg`.
        GoType::Uint32 => false,
        GoType::Float64 => matches!(value, Value::Float(_)),
        GoType::List => matches!(value, Value::List(_)),
        // Lists do not record their element type: a list of strings stands for a Go []string.
        GoType::StringList => {
            matches!(value, Value::List(l) if l.iter().all(|v| matches!(v, Value::String(_))))
        }
        GoType::Map => matches!(value, Value::Map(_)),
        GoType::Named(name) => matches!(value, Value::Object(o) if o.type_name() == name),
    }
}

/// Go's `reflect.Zero(typ)` for the types that can be nil.
fn zero_of(typ: GoType) -> Slot {
    match typ {
        GoType::Reflect => Slot::Invalid,
        GoType::List | GoType::StringList => Slot::Val(Value::List(List::default())),
        GoType::Map => Slot::Val(Value::Map(Map::new())),
        _ => Slot::Elem(Value::Nil),
    }
}

/// Go's `reflect.Value.String()` of a piped value, as `call` names its callee.
fn slot_text(slot: &Slot) -> String {
    match slot {
        Slot::Invalid => "<invalid Value>".into(),
        Slot::Val(Value::String(s)) | Slot::Elem(Value::String(s)) => s.to_string(),
        Slot::Val(v) | Slot::Elem(v) => format!("<{} Value>", v.type_name()),
    }
}

/// Calls a host function, turning a panic into an error (Go's `safeCall` recovers panics too).
fn guarded<T>(name: &str, call: impl FnOnce() -> Result<T, TemplateError>) -> Result<T, TemplateError> {
    match catch_unwind(AssertUnwindSafe(call)) {
        Ok(result) => result,
        Err(payload) => {
            let message = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "panic".into());
            Err(TemplateError::msg(format!("function {name} panicked: {message}")))
        }
    }
}
