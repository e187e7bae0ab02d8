//! Masterminds/semver v3 for the rest of berth (chart sources resolve `--version` constraints with it): the one
//! implementation Sprig's `semver` and `semverCompare` use, seen through a small typed interface.

use std::cmp::Ordering;
use std::fmt;

use crate::sprig::semver as port;

/// A version as Masterminds' `NewVersion` (or `StrictNewVersion`) parses it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version(port::Version);

impl Version {
    /// `semver.NewVersion`: the coercing grammar (`v1`, `1.2`, leading zeros accepted).
    ///
    /// # Errors
    ///
    /// Masterminds' message (`invalid semantic version`, ...).
    pub fn parse(text: &str) -> Result<Version, String> {
        port::Version::parse(text).map(Version)
    }

    /// `semver.StrictNewVersion`: exactly `MAJOR.MINOR.PATCH[-pre][+meta]`.
    ///
    /// # Errors
    ///
    /// Masterminds' message.
    pub fn parse_strict(text: &str) -> Result<Version, String> {
        port::Version::parse_strict(text).map(Version)
    }

    /// The text it was parsed from (`Original`).
    pub fn original(&self) -> &str {
        self.0.original()
    }

    /// The pre-release part (`Prerelease`), empty for a release.
    pub fn prerelease(&self) -> &str {
        self.0.prerelease()
    }

    /// Precedence (`Compare`): build metadata is ignored.
    pub fn precedence(&self, other: &Version) -> Ordering {
        self.0.precedence(&other.0)
    }
}

/// `Version.String`: `MAJOR.MINOR.PATCH[-pre][+meta]`, without a `v`.
impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.to_canonical())
    }
}

/// A constraint as `semver.NewConstraint` parses it (`>= 1.2, < 2`, `^1.2`, `~1.2.x`, `1.2 - 1.4 || 3.x`).
pub struct Constraints(port::Constraints);

impl Constraints {
    /// `semver.NewConstraint`.
    ///
    /// # Errors
    ///
    /// Masterminds' message (`improper constraint: x`).
    pub fn parse(text: &str) -> Result<Constraints, String> {
        match port::Constraints::parse(text) {
            Ok(Ok(constraints)) => Ok(Constraints(constraints)),
            Ok(Err(message)) => Err(message),
            Err(error) => Err(error.to_string()),
        }
    }

    /// `Check`: a pre-release satisfies only a group of comparisons that itself names a pre-release.
    pub fn check(&self, version: &Version) -> bool {
        self.0.check(&version.0)
    }
}

impl fmt::Debug for Constraints {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Constraints")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strict_versions_refuse_what_the_loose_grammar_coerces() {
        for text in ["1.2.3", "1.2.3-rc.1+b.5", "0.0.0"] {
            assert_eq!(Version::parse_strict(text).map(|v| v.to_string()).as_deref(), Ok(text));
        }
        for text in ["v1.2.3", "1.2", "01.2.3", "1.2.3-01", "", "1.2.x"] {
            assert!(Version::parse_strict(text).is_err(), "{text}");
            let _ = Version::parse(text);
        }
        assert_eq!(Version::parse("v1.2").map(|v| v.to_string()).as_deref(), Ok("1.2.0"));
    }

    #[test]
    fn pre_releases_only_when_the_constraint_names_one() {
        let check = |c: &str, v: &str| Constraints::parse(c).unwrap().check(&Version::parse(v).unwrap());
        assert!(check("^1.2", "1.9.0"));
        assert!(!check("^1.2", "1.10.0-rc.1"));
        assert!(check(">=1.10.0-0", "1.10.0-rc.1"));
        assert!(check("*", "3.0.0"));
        assert!(!check("*", "3.0.0-alpha"));
        assert!(Constraints::parse("not a constraint").is_err());
    }
}
