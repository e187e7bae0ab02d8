//! Helm's rules for hooks, pure: which hooks run at an event and in what order, what their delete and
//! output-log policies ask, and how `helm test --filter` picks tests (`pkg/action/hooks.go`,
//! `pkg/action/release_testing.go`, `pkg/release/v1/util/kind_sorter.go`). The runner (`hook_runner.rs`) does
//! the I/O.

use super::record::Hook;
use crate::plan::INSTALL_ORDER;
use std::cmp::Ordering;

/// The events hooks run at (Helm's `release.HookEvent`): the chart renderer's type, which reads them from
/// `helm.sh/hook` and names them as Helm records them.
pub use berth_chart::render::output::HookEvent;

/// `helm.sh/hook-delete-policy` values.
pub const BEFORE_HOOK_CREATION: &str = "before-hook-creation";
pub const HOOK_SUCCEEDED: &str = "hook-succeeded";
pub const HOOK_FAILED: &str = "hook-failed";

/// `last_run.phase` values (Helm's `HookPhase`).
pub const PHASE_RUNNING: &str = "Running";
pub const PHASE_SUCCEEDED: &str = "Succeeded";
pub const PHASE_FAILED: &str = "Failed";
pub const PHASE_UNKNOWN: &str = "Unknown";

/// Indices of the hooks of `event`, in the order Helm runs them (`execHookWithDelayedShutdown`): a stable sort
/// by weight, then name (`hookByWeight`), over the recorded order, which is Helm's install order by kind. So
/// two hooks of one weight and name run in kind order.
pub fn executing(hooks: &[Hook], event: HookEvent) -> Vec<usize> {
    let mut selected: Vec<usize> = (0..hooks.len())
        .filter(|index| hooks[*index].events.iter().any(|recorded| recorded == event.as_str()))
        .collect();
    selected.sort_by(|a, b| by_weight(&hooks[*a], &hooks[*b]));
    selected
}

/// Helm's `hookByWeight.Less`: weight, then name.
fn by_weight(a: &Hook, b: &Hook) -> Ordering {
    a.weight.cmp(&b.weight).then_with(|| a.name.cmp(&b.name))
}

/// Helm's `hookSetDeletePolicy`: a hook with no delete policy gets `before-hook-creation`, recorded as such.
pub fn set_default_delete_policy(hook: &mut Hook) {
    if hook.delete_policies.is_empty() {
        hook.delete_policies = vec![BEFORE_HOOK_CREATION.to_string()];
    }
}

/// Whether the hook is deleted on `policy` (`hookHasDeletePolicy`). CustomResourceDefinitions never are, as
/// in Helm's `deleteHookByPolicy` (deleting one would cascade to every custom resource).
pub fn is_deleted_on(hook: &Hook, policy: &str) -> bool {
    hook.kind != "CustomResourceDefinition" && hook.delete_policies.iter().any(|recorded| recorded == policy)
}

/// Whether the hook's pod logs are printed on `policy` (`hook-succeeded` or `hook-failed`).
pub fn prints_logs_on(hook: &Hook, policy: &str) -> bool {
    hook.output_log_policies.iter().any(|recorded| recorded == policy)
}

/// Helm's `sortHooksByKind`: a stable sort by install order; kinds Helm does not list go last, alphabetically.
/// `record` finds each item's hook (the items are rendered hooks, or the records themselves).
pub fn sort_by_kind<T>(hooks: &mut [T], record: impl Fn(&T) -> &Hook) {
    hooks.sort_by(|a, b| kind_order(&record(a).kind, &record(b).kind));
}

/// Helm's `lessByKind` as an ordering (equal kinds and equal ranks keep their order).
fn kind_order(a: &str, b: &str) -> Ordering {
    let rank = |kind: &str| INSTALL_ORDER.iter().position(|listed| *listed == kind);
    match (rank(a), rank(b)) {
        (Some(a), Some(b)) => a.cmp(&b),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => a.cmp(b),
    }
}

/// `helm test --filter`: `name=X` runs only the named tests, `!name=X` skips them (both may be given).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TestFilter {
    pub include: Vec<String>,
    pub exclude: Vec<String>,
}

impl TestFilter {
    /// Reads `--filter` values as `helm test` does: `name=X` includes, `!name=X` (or `! name=X`) excludes;
    /// anything else is ignored, as Helm ignores it. Each value may hold several, comma-separated.
    pub fn parse<'a>(values: impl IntoIterator<Item = &'a str>) -> TestFilter {
        let mut filter = TestFilter::default();
        for value in values.into_iter().flat_map(|value| value.split(',')) {
            if let Some(name) = value.strip_prefix("name=") {
                filter.include.push(name.to_string());
            } else if let Some(rest) = value.strip_prefix('!') {
                // Helm's `^!\s?name=`: one optional RE2 space (`[\t\n\f\r ]`).
                let rest = rest.strip_prefix([' ', '\t', '\n', '\r', '\u{c}']).unwrap_or(rest);
                if let Some(name) = rest.strip_prefix("name=") {
                    filter.exclude.push(name.to_string());
                }
            }
        }
        filter
    }

    /// Splits the release's hooks as `ReleaseTesting.Run` does: (skipped, kept), each in recorded order.
    /// Exclusions apply first, then, if any inclusion is given, only included hooks are kept.
    pub fn split(&self, hooks: Vec<Hook>) -> (Vec<Hook>, Vec<Hook>) {
        let mut skipped = Vec::new();
        let mut kept = hooks;
        if !self.exclude.is_empty() {
            let (out, rest): (Vec<Hook>, Vec<Hook>) =
                kept.into_iter().partition(|hook| self.exclude.contains(&hook.name));
            skipped.extend(out);
            kept = rest;
        }
        if !self.include.is_empty() {
            let (rest, out): (Vec<Hook>, Vec<Hook>) =
                kept.into_iter().partition(|hook| self.include.contains(&hook.name));
            skipped.extend(out);
            kept = rest;
        }
        (skipped, kept)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hook(name: &str, kind: &str, weight: i32, events: &[&str]) -> Hook {
        Hook {
            name: name.to_string(),
            kind: kind.to_string(),
            weight,
            events: events.iter().map(|event| (*event).to_string()).collect(),
            ..Hook::default()
        }
    }

    fn names(hooks: &[Hook], indices: &[usize]) -> Vec<String> {
        indices.iter().map(|index| format!("{}/{}", hooks[*index].kind, hooks[*index].name)).collect()
    }

    #[test]
    fn hooks_run_by_weight_then_name_keeping_kind_order_for_ties() {
        // Recorded in kind order (ConfigMap before Job), as Helm records them.
        let hooks = [
            hook("b", "ConfigMap", 0, &["pre-install"]),
            hook("same", "ConfigMap", 0, &["pre-install"]),
            hook("z", "ConfigMap", -5, &["pre-install", "pre-upgrade"]),
            hook("a", "Job", 0, &["pre-install"]),
            hook("same", "Job", 0, &["pre-install"]),
            hook("c", "Job", 10, &["post-install"]),
        ];
        assert_eq!(
            names(&hooks, &executing(&hooks, HookEvent::PreInstall)),
            ["ConfigMap/z", "Job/a", "ConfigMap/b", "ConfigMap/same", "Job/same"]
        );
        assert_eq!(names(&hooks, &executing(&hooks, HookEvent::PostInstall)), ["Job/c"]);
        assert_eq!(names(&hooks, &executing(&hooks, HookEvent::PreUpgrade)), ["ConfigMap/z"]);
        assert!(executing(&hooks, HookEvent::Test).is_empty());
    }

    #[test]
    fn hooks_are_recorded_in_helms_install_order_by_kind() {
        let rendered = |kind: &str, name: &str| hook(name, kind, 0, &["pre-install"]);
        let mut hooks = vec![
            rendered("Job", "1"),
            rendered("Widget", "2"),
            rendered("ConfigMap", "3"),
            rendered("Apple", "4"),
            rendered("Job", "5"),
            rendered("ServiceAccount", "6"),
        ];
        sort_by_kind(&mut hooks, |hook| hook);
        let order: Vec<String> = hooks.iter().map(|hook| format!("{}/{}", hook.kind, hook.name)).collect();
        assert_eq!(order, ["ServiceAccount/6", "ConfigMap/3", "Job/1", "Job/5", "Apple/4", "Widget/2"]);
    }

    #[test]
    fn a_hook_without_delete_policy_is_deleted_before_it_is_created_again() {
        let mut plain = hook("a", "Job", 0, &["pre-install"]);
        set_default_delete_policy(&mut plain);
        assert_eq!(plain.delete_policies, [BEFORE_HOOK_CREATION]);
        let mut chosen = Hook { delete_policies: vec![HOOK_SUCCEEDED.to_string()], ..plain.clone() };
        set_default_delete_policy(&mut chosen);
        assert_eq!(chosen.delete_policies, [HOOK_SUCCEEDED]);
        assert!(is_deleted_on(&chosen, HOOK_SUCCEEDED));
        assert!(!is_deleted_on(&chosen, HOOK_FAILED));
        let crd = Hook { kind: "CustomResourceDefinition".to_string(), ..chosen };
        assert!(!is_deleted_on(&crd, HOOK_SUCCEEDED), "CRDs are never deleted by policy");
    }

    #[test]
    fn test_filters_read_as_helm_reads_them() {
        let filter = TestFilter::parse(["name=a,name=b", "!name=c", "! name=d", "kind=Pod"]);
        assert_eq!(filter.include, ["a", "b"]);
        assert_eq!(filter.exclude, ["c", "d"]);
        let hooks =
            vec![hook("a", "Pod", 0, &["test"]), hook("c", "Pod", 0, &["test"]), hook("e", "Pod", 0, &["test"])];
        let (skipped, kept) = filter.split(hooks.clone());
        assert_eq!(kept.iter().map(|hook| hook.name.as_str()).collect::<Vec<_>>(), ["a"]);
        assert_eq!(skipped.iter().map(|hook| hook.name.as_str()).collect::<Vec<_>>(), ["c", "e"]);
        let (skipped, kept) = TestFilter::parse(["!name=a"]).split(hooks);
        assert_eq!(kept.iter().map(|hook| hook.name.as_str()).collect::<Vec<_>>(), ["c", "e"]);
        assert_eq!(skipped.len(), 1);
    }
}
