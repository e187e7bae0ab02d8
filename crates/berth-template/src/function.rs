//! The plain functions a set is given (Go's `template.FuncMap`), as Sprig's and Helm's function maps are handed
//! to [`Template::funcs`](crate::Template::funcs). Once registered they join the set's function table (`env`).

use std::collections::BTreeMap;

use berth_go::ValueFunc;

/// A map from function names to plain functions (Go's `template.FuncMap`).
///
/// ```
/// use std::sync::Arc;
/// use berth_go::Value;
/// use berth_template::FuncMap;
///
/// let mut fm = FuncMap::new();
/// fm.insert("double".into(), Arc::new(|args: &[Value]| {
///     let n = args.first().and_then(Value::as_int).unwrap_or(0);
///     Ok(Value::Int(n * 2))
/// }));
/// ```
pub type FuncMap = BTreeMap<String, ValueFunc>;
