//! Evaluation of pipelines, commands, fields and variables (Go's `evalPipeline`, `evalCommand`,
//! `evalField`... in exec.go).

use crate::parse::number::NumberNode;
use crate::parse::{CommandNode, Operand, PipeNode, VariableNode};
use crate::slot::Slot;
use berth_go::strconv::quote;
use berth_go::{Kind, Value};

use super::{At, Exec, Walk};
use crate::env::MissingKey;

/// The arguments of a command when a field may turn out to be a method: Go's `args` (the command's
/// operands, the first being the field itself) or nothing.
pub(crate) type Args<'t> = Option<&'t [Operand]>;

impl<'t> Exec<'t, '_> {
    /// Go's `evalPipeline`: runs the commands, each result feeding the next as its final argument, then
    /// declares or assigns the pipeline's variables.
    pub fn eval_pipeline(&mut self, dot: &Slot, pipe: Option<&'t PipeNode>) -> Walk<Slot> {
        let Some(pipe) = pipe else {
            return Ok(Slot::Invalid);
        };
        self.at(At::Pipe(pipe));
        self.check_stack()?;
        let mut value: Option<Slot> = None;
        for cmd in &pipe.cmds {
            let result = self.eval_command(dot, cmd, value.take())?;
            // An interface{} result is unwrapped: a nil interface becomes no value.
            value = Some(result.unwrap_interface());
        }
        let value = value.unwrap_or_default();
        for variable in &pipe.decl {
            let name = &variable.ident[0];
            if pipe.is_assign {
                self.set_var(name, value.clone())?;
            } else {
                self.push(name, value.clone());
            }
        }
        Ok(value)
    }

    fn not_a_function(&self, args: &[Operand], fin: &Option<Slot>) -> Walk<()> {
        if args.len() > 1 || fin.is_some() {
            let first = args.first().map(ToString::to_string).unwrap_or_default();
            return self.fail(format!("can't give argument to non-function {first}"));
        }
        Ok(())
    }

    /// Go's `evalCommand`.
    fn eval_command(&mut self, dot: &Slot, cmd: &'t CommandNode, fin: Option<Slot>) -> Walk<Slot> {
        let Some(first) = cmd.args.first() else {
            return self.fail("empty command");
        };
        match first {
            Operand::Field { ident, .. } => {
                return self.eval_field_node(dot, first, ident, Some(&cmd.args), fin);
            }
            Operand::Chain { .. } => return self.eval_chain_node(dot, first, Some(&cmd.args), fin),
            Operand::Identifier { name, .. } => {
                return self.eval_function(dot, first, name, At::Command(cmd), Some(&cmd.args), fin);
            }
            Operand::Pipe(pipe) => {
                self.not_a_function(&cmd.args, &fin)?;
                return self.eval_pipeline(dot, Some(pipe));
            }
            Operand::Variable(v) => return self.eval_variable_node(dot, first, v, Some(&cmd.args), fin),
            _ => {}
        }
        self.at(At::Operand(first));
        self.not_a_function(&cmd.args, &fin)?;
        match first {
            Operand::Bool { value, .. } => Ok(Slot::Val(Value::Bool(*value))),
            Operand::Dot(_) => Ok(dot.clone()),
            Operand::Nil(_) => self.fail("nil is not a command"),
            Operand::Number(n) => self.ideal_constant(first, n),
            Operand::String { text, .. } => Ok(Slot::Val(Value::String(text.clone()))),
            _ => self.fail(format!("can't evaluate command {}", quote(&first.to_string()))),
        }
    }

    /// Go's `idealConstant`: a number literal where no type is known.
    pub fn ideal_constant(&mut self, node: &'t Operand, n: &NumberNode) -> Walk<Slot> {
        self.at(At::Operand(node));
        let text = &n.text;
        let is_hex_int = text.len() > 2
            && text.starts_with('0')
            && matches!(text.as_bytes()[1], b'x' | b'X')
            && !text.contains(['p', 'P']);
        let is_rune = text.starts_with('\'');
        if n.is_complex {
            return self.fail(format!("{text}: complex numbers are not supported"));
        }
        if n.is_float && !is_hex_int && !is_rune && text.contains(['.', 'e', 'E', 'p', 'P']) {
            return Ok(Slot::Val(Value::Float(n.float64)));
        }
        if n.is_int {
            return Ok(Slot::Val(Value::Int(n.int64)));
        }
        if n.is_uint {
            return self.fail(format!("{text} overflows int"));
        }
        Ok(Slot::Invalid)
    }

    /// Go's `evalFieldNode`.
    pub fn eval_field_node(
        &mut self,
        dot: &Slot,
        node: &'t Operand,
        ident: &'t [smol_str::SmolStr],
        args: Args<'t>,
        fin: Option<Slot>,
    ) -> Walk<Slot> {
        self.at(At::Operand(node));
        self.eval_field_chain(dot, dot.clone(), At::Operand(node), ident, args, fin)
    }

    /// Go's `evalChainNode`: `(pipe).a.b` or `fn.a`.
    pub fn eval_chain_node(&mut self, dot: &Slot, chain: &'t Operand, args: Args<'t>, fin: Option<Slot>) -> Walk<Slot> {
        self.at(At::Operand(chain));
        let Operand::Chain { node, fields, .. } = chain else {
            return self.fail("internal error: not a chain");
        };
        if fields.is_empty() {
            return self.fail("internal error: no fields in evalChainNode");
        }
        if matches!(node.as_ref(), Operand::Nil(_)) {
            return self.fail(format!("indirection through explicit nil in {chain}"));
        }
        let pipe = self.eval_arg(dot, None, node)?;
        self.eval_field_chain(dot, pipe, At::Operand(chain), fields, args, fin)
    }

    /// Go's `evalVariableNode`: `$x` or `$x.a.b`.
    pub fn eval_variable_node(
        &mut self,
        dot: &Slot,
        node: &'t Operand,
        variable: &'t VariableNode,
        args: Args<'t>,
        fin: Option<Slot>,
    ) -> Walk<Slot> {
        self.at(At::Operand(node));
        let value = self.var_value(&variable.ident[0])?;
        if variable.ident.len() == 1 {
            self.not_a_function(args.unwrap_or_default(), &fin)?;
            return Ok(value);
        }
        self.eval_field_chain(dot, value, At::Operand(node), &variable.ident[1..], args, fin)
    }

    /// Go's `evalFieldChain`: walks `.X.Y.Z`; only the last may be a method given the arguments.
    fn eval_field_chain(
        &mut self,
        dot: &Slot,
        mut receiver: Slot,
        node: At<'t>,
        ident: &'t [smol_str::SmolStr],
        args: Args<'t>,
        fin: Option<Slot>,
    ) -> Walk<Slot> {
        let Some((last, init)) = ident.split_last() else {
            return Ok(receiver);
        };
        for name in init {
            receiver = self.eval_field(dot, name, node, None, None, receiver)?;
        }
        self.eval_field(dot, last, node, args, fin, receiver)
    }

    /// Go's `evalField`: a method, a struct field, or a map key of `receiver`.
    fn eval_field(
        &mut self,
        dot: &Slot,
        field: &str,
        node: At<'t>,
        args: Args<'t>,
        fin: Option<Slot>,
        receiver: Slot,
    ) -> Walk<Slot> {
        let static_type = receiver.static_type().to_string();
        let value = match receiver {
            Slot::Invalid => {
                if self.env.options.missing_key == MissingKey::Error {
                    return self.fail(format!("nil data; no entry for key {}", quote(field)));
                }
                return Ok(Slot::Invalid);
            }
            Slot::Val(Value::Nil) | Slot::Elem(Value::Nil) => {
                return self.fail(format!("nil pointer evaluating interface {{}}.{field}"));
            }
            Slot::Val(v) | Slot::Elem(v) => v,
        };
        let has_args = args.is_some_and(|a| a.len() > 1) || fin.is_some();
        match &value {
            Value::Object(object) => {
                if let Some(signature) = object.method(field) {
                    let object = object.clone();
                    return self.eval_method(dot, object, field, signature, node, args, fin);
                }
                match object.kind() {
                    Kind::Map => {
                        if has_args {
                            return self.fail(format!("{field} is not a method but has arguments"));
                        }
                        match object.field(field) {
                            Some(v) => Ok(Slot::Val(v)),
                            None => self.missing_key(field),
                        }
                    }
                    Kind::Struct | Kind::Ptr => match object.field(field) {
                        Some(v) => {
                            if has_args {
                                return self.fail(format!("{field} has arguments but cannot be invoked as function"));
                            }
                            Ok(Slot::Val(v))
                        }
                        None => self.cant_evaluate(field, &static_type),
                    },
                    Kind::Slice | Kind::String => self.cant_evaluate(field, &static_type),
                }
            }
            Value::Map(map) => {
                if has_args {
                    return self.fail(format!("{field} is not a method but has arguments"));
                }
                match map.get(field) {
                    Some(v) => Ok(Slot::Elem(v)),
                    None => self.missing_key(field),
                }
            }
            _ => self.cant_evaluate(field, &static_type),
        }
    }

    fn missing_key(&self, field: &str) -> Walk<Slot> {
        match self.env.options.missing_key {
            MissingKey::Invalid => Ok(Slot::Invalid),
            MissingKey::ZeroValue => Ok(Slot::Elem(Value::Nil)),
            MissingKey::Error => self.fail(format!("map has no entry for key {}", quote(field))),
        }
    }

    fn cant_evaluate(&self, field: &str, static_type: &str) -> Walk<Slot> {
        self.fail(format!("can't evaluate field {field} in type {static_type}"))
    }
}
