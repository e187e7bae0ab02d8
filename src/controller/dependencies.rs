//! `spec.dependsOn`: a Release starts its rollout only once every Release it names is Ready, as Flux checks it:
//! the dependency's status speaks of its latest generation and says `Ready=True`. (kstatus alone would call a
//! Release no controller has touched yet Current, having nothing to go by.) Dependencies that come back to the
//! Release itself are a cycle, which no wait resolves. Pure: objects come from the controller's cache through a
//! lookup.

use super::api::ReleaseKey;
use serde_json::Value;
use std::collections::HashSet;

/// How far the cycle search goes (Releases visited) before it gives up looking.
const MAX_VISITED: usize = 10_000;

/// Whether a Release may go ahead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Dependencies {
    Ready,
    /// The first dependency that is not ready, and why.
    NotReady {
        dependency: ReleaseKey,
        message: String,
    },
    /// The chain of Releases leading back to the Release itself.
    Cycle(Vec<ReleaseKey>),
}

/// The keys a Release object's `spec.dependsOn` names (read leniently: entries without a name are skipped).
pub fn depends_on(object: &Value) -> Vec<ReleaseKey> {
    let namespace = object.pointer("/metadata/namespace").and_then(Value::as_str).unwrap_or_default();
    object
        .pointer("/spec/dependsOn")
        .and_then(Value::as_array)
        .map(|entries| {
            entries
                .iter()
                .filter_map(|entry| {
                    Some(ReleaseKey {
                        namespace: entry.get("namespace").and_then(Value::as_str).unwrap_or(namespace).to_string(),
                        name: entry.get("name").and_then(Value::as_str)?.to_string(),
                    })
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Whether a Release is Ready for its latest generation; otherwise why not.
pub fn readiness(object: &Value) -> Result<(), String> {
    let generation = object.pointer("/metadata/generation").and_then(Value::as_i64);
    let observed = object.pointer("/status/observedGeneration").and_then(Value::as_i64);
    if observed.is_none() || observed != generation {
        return Err("its controller has not reported on its latest generation yet".to_string());
    }
    let ready = object
        .pointer("/status/conditions")
        .and_then(Value::as_array)
        .and_then(|conditions| conditions.iter().find(|condition| condition["type"] == "Ready"));
    match ready {
        Some(ready) if ready["status"] == "True" => Ok(()),
        Some(ready) => Err(format!(
            "Ready={} ({}): {}",
            ready["status"].as_str().unwrap_or_default(),
            ready["reason"].as_str().unwrap_or_default(),
            ready["message"].as_str().unwrap_or_default()
        )),
        None => Err("it has no Ready condition".to_string()),
    }
}

/// Checks the dependencies of `key` (`direct`), looking Releases up in the cache.
pub fn check(key: &ReleaseKey, direct: &[ReleaseKey], lookup: &dyn Fn(&ReleaseKey) -> Option<Value>) -> Dependencies {
    if let Some(cycle) = find_cycle(key, direct, lookup) {
        return Dependencies::Cycle(cycle);
    }
    for dependency in direct {
        let Some(object) = lookup(dependency) else {
            return Dependencies::NotReady {
                dependency: dependency.clone(),
                message: format!("dependency Release `{dependency}` does not exist"),
            };
        };
        if let Err(why) = readiness(&object) {
            return Dependencies::NotReady {
                dependency: dependency.clone(),
                message: format!("dependency Release `{dependency}` is not ready: {why}"),
            };
        }
    }
    Dependencies::Ready
}

/// A path from `key` through `dependsOn` back to `key`, if there is one (depth-first, bounded).
fn find_cycle(
    key: &ReleaseKey,
    direct: &[ReleaseKey],
    lookup: &dyn Fn(&ReleaseKey) -> Option<Value>,
) -> Option<Vec<ReleaseKey>> {
    let mut visited: HashSet<ReleaseKey> = HashSet::new();
    // Each stack entry: a Release and the path that reached it.
    let mut stack: Vec<(ReleaseKey, Vec<ReleaseKey>)> =
        direct.iter().map(|dependency| (dependency.clone(), vec![key.clone(), dependency.clone()])).collect();
    while let Some((current, path)) = stack.pop() {
        if &current == key {
            return Some(path);
        }
        if !visited.insert(current.clone()) || visited.len() > MAX_VISITED {
            continue;
        }
        if let Some(object) = lookup(&current) {
            for next in depends_on(&object) {
                let mut longer = path.clone();
                longer.push(next.clone());
                stack.push((next, longer));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::collections::HashMap;

    fn key(name: &str) -> ReleaseKey {
        ReleaseKey { namespace: "shop".into(), name: name.into() }
    }

    fn release(name: &str, depends: &[&str], ready: Option<&str>) -> Value {
        let depends: Vec<Value> = depends.iter().map(|name| json!({"name": name})).collect();
        let mut object = json!({
            "apiVersion": "berth.dev/v1alpha1", "kind": "Release",
            "metadata": {"name": name, "namespace": "shop", "generation": 2},
            "spec": {"chart": {"configMapRef": {"name": name}}, "dependsOn": depends},
        });
        if let Some(ready) = ready {
            object["status"] = json!({
                "observedGeneration": 2,
                "conditions": [{"type": "Ready", "status": ready, "reason": "r", "message": "m"}],
            });
        }
        object
    }

    fn lookup_in(objects: Vec<Value>) -> impl Fn(&ReleaseKey) -> Option<Value> {
        let map: HashMap<ReleaseKey, Value> =
            objects.into_iter().filter_map(|object| Some((ReleaseKey::of(&object)?, object))).collect();
        move |key: &ReleaseKey| map.get(key).cloned()
    }

    #[test]
    fn ready_when_every_dependency_is_current() {
        let lookup = lookup_in(vec![release("db", &[], Some("True")), release("cache", &[], Some("True"))]);
        let verdict = check(&key("web"), &[key("db"), key("cache")], &lookup);
        assert_eq!(verdict, Dependencies::Ready);
    }

    #[test]
    fn the_first_dependency_not_ready_is_named_with_its_status() {
        let lookup = lookup_in(vec![release("db", &[], Some("True")), release("cache", &[], Some("False"))]);
        let verdict = check(&key("web"), &[key("db"), key("cache"), key("gone")], &lookup);
        assert_eq!(
            verdict,
            Dependencies::NotReady {
                dependency: key("cache"),
                message: "dependency Release `shop/cache` is not ready: Ready=False (r): m".into()
            }
        );
        let verdict = check(&key("web"), &[key("gone")], &lookup);
        assert!(matches!(verdict, Dependencies::NotReady { message, .. } if message.contains("does not exist")));
    }

    #[test]
    fn a_dependency_without_status_or_with_an_older_one_is_not_ready() {
        let lookup = lookup_in(vec![release("db", &[], None)]);
        let verdict = check(&key("web"), &[key("db")], &lookup);
        let expected =
            "dependency Release `shop/db` is not ready: its controller has not reported on its latest generation yet";
        assert_eq!(verdict, Dependencies::NotReady { dependency: key("db"), message: expected.into() });
        let mut newer = release("db", &[], Some("True"));
        newer["metadata"]["generation"] = json!(3);
        assert!(readiness(&newer).is_err());
        newer["status"]["observedGeneration"] = json!(3);
        assert_eq!(readiness(&newer), Ok(()));
    }

    #[test]
    fn cycles_are_found_with_their_path() {
        let lookup = lookup_in(vec![
            release("web", &["api"], None),
            release("api", &["db"], None),
            release("db", &["web"], Some("True")),
        ]);
        let verdict = check(&key("web"), &[key("api")], &lookup);
        assert_eq!(verdict, Dependencies::Cycle(vec![key("web"), key("api"), key("db"), key("web")]));
        let itself = check(&key("web"), &[key("web")], &lookup);
        assert_eq!(itself, Dependencies::Cycle(vec![key("web"), key("web")]));
    }

    #[test]
    fn a_cycle_elsewhere_is_not_this_releases() {
        let lookup = lookup_in(vec![release("a", &["b"], None), release("b", &["a"], None)]);
        let verdict = check(&key("web"), &[key("a")], &lookup);
        assert!(matches!(verdict, Dependencies::NotReady { .. }), "{verdict:?}");
    }
}
