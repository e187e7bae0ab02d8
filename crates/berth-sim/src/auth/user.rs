//! Who made a request, as kube-apiserver's `user.Info` says it: a name, a uid, groups and extra values, with
//! the well-known system names and the ServiceAccount naming rules (`k8s.io/apiserver/pkg/authentication/user`
//! and `.../serviceaccount`).

use crate::validation::names::{label_problems, subdomain_problems};
use std::collections::BTreeMap;

/// The group that may do anything (kube-apiserver's `system:masters`, the loopback client's group).
pub const SYSTEM_MASTERS: &str = "system:masters";
/// Every authenticated user is in this group.
pub const ALL_AUTHENTICATED: &str = "system:authenticated";
/// Every request without credentials is in this group.
pub const ALL_UNAUTHENTICATED: &str = "system:unauthenticated";
/// The user of a request without credentials.
pub const ANONYMOUS: &str = "system:anonymous";
/// Every ServiceAccount is in this group.
pub const ALL_SERVICE_ACCOUNTS: &str = "system:serviceaccounts";

const SERVICE_ACCOUNT_PREFIX: &str = "system:serviceaccount:";

/// One authenticated (or anonymous) identity.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct UserInfo {
    pub name: String,
    pub uid: String,
    pub groups: Vec<String>,
    pub extra: BTreeMap<String, Vec<String>>,
}

impl UserInfo {
    /// A user with these groups and no uid or extra values.
    pub fn new(name: impl Into<String>, groups: Vec<String>) -> UserInfo {
        UserInfo { name: name.into(), groups, ..UserInfo::default() }
    }

    /// The identity of a request without credentials.
    pub fn anonymous() -> UserInfo {
        UserInfo::new(ANONYMOUS, vec![ALL_UNAUTHENTICATED.to_string()])
    }

    pub fn is_in(&self, group: &str) -> bool {
        self.groups.iter().any(|member| member == group)
    }

    /// Adds `system:authenticated` unless it (or `system:unauthenticated`) is there, as the authenticator
    /// chain's `AuthenticatedGroupAdder` does.
    pub fn with_authenticated_group(mut self) -> UserInfo {
        if !self.is_in(ALL_AUTHENTICATED) && !self.is_in(ALL_UNAUTHENTICATED) {
            self.groups.push(ALL_AUTHENTICATED.to_string());
        }
        self
    }
}

/// `serviceaccount.MakeUsername`: `system:serviceaccount:NAMESPACE:NAME`.
pub fn service_account_username(namespace: &str, name: &str) -> String {
    format!("{SERVICE_ACCOUNT_PREFIX}{namespace}:{name}")
}

/// `serviceaccount.MakeGroupNames`: `system:serviceaccounts` and `system:serviceaccounts:NAMESPACE`.
pub fn service_account_groups(namespace: &str) -> Vec<String> {
    vec![ALL_SERVICE_ACCOUNTS.to_string(), format!("{ALL_SERVICE_ACCOUNTS}:{namespace}")]
}

/// `serviceaccount.SplitUsername`: the namespace and name of a ServiceAccount username, when both are valid
/// names (a DNS label and a DNS subdomain); anything else is a plain user name.
pub fn split_service_account_username(username: &str) -> Option<(&str, &str)> {
    let rest = username.strip_prefix(SERVICE_ACCOUNT_PREFIX)?;
    let mut parts = rest.split(':');
    let (namespace, name) = (parts.next()?, parts.next()?);
    let valid = parts.next().is_none() && label_problems(namespace).is_empty() && subdomain_problems(name).is_empty();
    valid.then_some((namespace, name))
}

/// `serviceaccount.MatchesUsername` without building the username.
pub fn matches_service_account(namespace: &str, name: &str, username: &str) -> bool {
    username
        .strip_prefix(SERVICE_ACCOUNT_PREFIX)
        .and_then(|rest| rest.strip_prefix(namespace))
        .and_then(|rest| rest.strip_prefix(':'))
        .is_some_and(|rest| rest == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn service_account_usernames_split_only_when_both_names_are_valid() {
        // (username, expected split) as serviceaccount.SplitUsername answers.
        let cases: [(&str, Option<(&str, &str)>); 6] = [
            ("system:serviceaccount:team-a:deployer", Some(("team-a", "deployer"))),
            ("system:serviceaccount:team-a:build.bot", Some(("team-a", "build.bot"))),
            ("system:serviceaccount:team-a", None),
            ("system:serviceaccount:team-a:deployer:extra", None),
            ("system:serviceaccount:Team:deployer", None),
            ("alice", None),
        ];
        for (username, expected) in cases {
            assert_eq!(split_service_account_username(username), expected, "{username}");
        }
    }

    #[test]
    fn service_account_names_match_exactly() {
        assert!(matches_service_account("team-a", "deployer", "system:serviceaccount:team-a:deployer"));
        assert!(!matches_service_account("team-a", "deploy", "system:serviceaccount:team-a:deployer"));
        assert!(!matches_service_account("team", "a:deployer", "system:serviceaccount:team-b:deployer"));
    }

    #[test]
    fn the_authenticated_group_is_added_once() {
        let user = UserInfo::new("alice", vec![ALL_AUTHENTICATED.to_string()]).with_authenticated_group();
        assert_eq!(user.groups, [ALL_AUTHENTICATED]);
        assert_eq!(UserInfo::new("bob", Vec::new()).with_authenticated_group().groups, [ALL_AUTHENTICATED]);
    }
}
