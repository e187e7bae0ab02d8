//! Masterminds/semver v3.4.0 as the loader and dependency processing use it (`NewVersion` for
//! `Metadata.Validate`, `NewConstraint` + `Check` for `IsCompatibleRange`), reached through the Sprig port's
//! `semver` and `semverCompare` functions so there is one semver implementation in berth.

use std::sync::{Arc, OnceLock};

use berth_template::{FuncMap, Value, ValueFunc};

fn function(name: &str) -> Option<ValueFunc> {
    static FUNCTIONS: OnceLock<FuncMap> = OnceLock::new();
    let functions = FUNCTIONS.get_or_init(|| {
        let mut functions = FuncMap::new();
        berth_template::sprig::register(&mut functions);
        functions
    });
    functions.get(name).map(Arc::clone)
}

/// `semver.NewVersion(version)` succeeds.
pub(crate) fn is_valid(version: &str) -> bool {
    match function("semver") {
        Some(semver) => semver(&[Value::from(version)]).is_ok(),
        None => false,
    }
}

/// `IsCompatibleRange`: the version parses, the constraint parses, and the version meets it.
pub(crate) fn is_compatible_range(constraint: &str, version: &str) -> bool {
    match function("semverCompare") {
        Some(compare) => matches!(compare(&[Value::from(constraint), Value::from(version)]), Ok(Value::Bool(true))),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_and_ranges() {
        assert!(is_valid("1.2.3"));
        assert!(is_valid("v1.2"));
        assert!(!is_valid("x.y"));
        assert!(is_compatible_range("^1.0.0", "1.4.0"));
        assert!(!is_compatible_range("~2.0", "1.4.0"));
        assert!(!is_compatible_range("^1.0.0", "not-a-version"));
        assert!(!is_compatible_range("not a constraint", "1.0.0"));
    }
}
