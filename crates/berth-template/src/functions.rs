//! The function map Helm's engine gives every template: Go's builtins (in the engine), Sprig without `env` and
//! `expandenv`, and Helm's extras. Context-bound functions (`include`, `tpl`, `required`, `fail`, `lookup`) are
//! added by the chart renderer, which owns the template set and the cluster connection.

use crate::FuncMap;

/// Every context-free function Helm registers, by name.
pub fn helm_functions() -> FuncMap {
    let mut functions = FuncMap::new();
    crate::sprig::register(&mut functions);
    crate::yaml::register(&mut functions);
    crate::crypto::register(&mut functions);
    functions
}
