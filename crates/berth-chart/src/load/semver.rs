//! Masterminds/semver v3.4.0 as the loader and dependency processing use it (`NewVersion` for
//! `Metadata.Validate`, `NewConstraint` + `Check` for `IsCompatibleRange`): berth-sprig's port, the one semver
//! implementation in berth.

use berth_sprig::semver::{Constraints, Version};

/// `semver.NewVersion(version)` succeeds.
pub(crate) fn is_valid(version: &str) -> bool {
    Version::parse(version).is_ok()
}

/// `IsCompatibleRange`: the version parses, the constraint parses, and the version meets it.
pub(crate) fn is_compatible_range(constraint: &str, version: &str) -> bool {
    match (Constraints::parse(constraint), Version::parse(version)) {
        (Ok(constraints), Ok(version)) => constraints.check(&version),
        _ => false,
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
