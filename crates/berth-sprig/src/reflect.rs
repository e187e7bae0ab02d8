//! Sprig's reflection functions (reflect.go): `typeOf` (`%T`), `typeIs`, `typeIsLike`, `kindOf`
//! (`reflect.Kind`), `kindIs` and `deepEqual` (`reflect.DeepEqual`: types must match, so 1 and 1.0 differ).
//! Values from a values file are float64, string, bool, `map[string]interface {}` and `[]interface {}`.

use crate::args::SprigFn;
use crate::args::{fixed, string};
use berth_go::Result;
use berth_go::Value;

pub(super) const FUNCTIONS: &[(&str, SprigFn)] = &[
    ("typeOf", type_of),
    ("typeIs", type_is),
    ("typeIsLike", type_is_like),
    ("kindOf", kind_of),
    ("kindIs", kind_is),
    ("deepEqual", deep_equal),
];

fn type_of(args: &[Value]) -> Result<Value> {
    let [value] = fixed("typeOf", args)?;
    Ok(Value::from(value.type_name()))
}

fn type_is(args: &[Value]) -> Result<Value> {
    let [target, value] = fixed("typeIs", args)?;
    Ok(Value::Bool(string(target)? == value.type_name()))
}

/// `typeIsLike`: the type, or a pointer to it.
fn type_is_like(args: &[Value]) -> Result<Value> {
    let [target, value] = fixed("typeIsLike", args)?;
    let (target, actual) = (string(target)?, value.type_name());
    Ok(Value::Bool(target == actual || actual.strip_prefix('*') == Some(target)))
}

fn kind_of(args: &[Value]) -> Result<Value> {
    let [value] = fixed("kindOf", args)?;
    Ok(Value::from(value.kind_name()))
}

fn kind_is(args: &[Value]) -> Result<Value> {
    let [target, value] = fixed("kindIs", args)?;
    Ok(Value::Bool(string(target)? == value.kind_name()))
}

fn deep_equal(args: &[Value]) -> Result<Value> {
    let [a, b] = fixed("deepEqual", args)?;
    Ok(Value::Bool(a == b))
}
