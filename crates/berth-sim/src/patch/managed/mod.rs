//! Server-side apply, and the `metadata.managedFields` bookkeeping every write does.
//!
//! This follows kube-apiserver's field manager (k8s.io/apimachinery `pkg/util/managedfields` over
//! sigs.k8s.io/structured-merge-diff): an apply merges the configuration into the live object, prunes what the
//! applier applied before and nobody owns now, and conflicts when it would change a field another manager
//! owns; any other write hands the fields it changed to its manager. Without a schema, lists are keyed by
//! field name (`list_keys`) and struct-ness is guessed (`compare::ALWAYS_PRESENT`), which is what makes the
//! `fieldsV1` tries match a real server's for the built-in kinds.

mod compare;
mod conflict;
mod entries;
mod fieldpath;
mod last_applied;
mod merge;
mod shape;
mod tracked;

use super::PatchError;
use compare::compare;
use conflict::{Conflict, conflict_error};
use entries::{Managed, ManagerId, Managers};
use last_applied::{KUBECTL, keep_annotation_in_step, upgradable_fields};
use merge::{equal_without_managed_fields, merge, prune, remove_managed_fields};
use serde_json::{Map, Value};
use shape::{check_keyed_lists, fields_of};
use tracked::{Scope, tracked};

/// The manager a real server records for fields an object had before its first apply.
const BEFORE_FIRST_APPLY: &str = "before-first-apply";

/// Server-side apply of `applied` (the user's configuration, already decoded from YAML/JSON) by `manager` onto
/// `live` (`None` = create). Returns the new object with managedFields updated. `force` takes ownership
/// instead of conflicting.
///
/// Fields that `manager` applied before and no longer applies, and that no other manager owns, are removed.
/// A conflict is a field in the applied set that another manager owns (Apply or Update) with a different
/// value; the same value is shared ownership. `status` is not applied (it belongs to the status subresource).
/// As on a real server, the `kubectl` manager takes over fields that the live object's last-applied
/// annotation still describes, and keeps that annotation up to date.
///
/// # Errors
/// [`PatchError::Conflict`] with kube-apiserver's message; [`PatchError::BadRequest`] when the configuration
/// is not an object, sets `metadata.managedFields` or names another API version; [`PatchError::Invalid`]
/// when a keyed list repeats or omits a key, or the live managedFields cannot be decoded.
pub fn apply(
    live: Option<&Value>,
    applied: &Value,
    manager: &str,
    force: bool,
    api_version: &str,
    now: &str,
) -> Result<Value, PatchError> {
    let manager = manager_name(manager);
    check_applied(applied, api_version)?;
    // Borrowed as it is: its managedFields are not content, and the comparisons and the merge leave them out.
    let empty = Value::Object(Map::new());
    let live_object = live.filter(|live| live.is_object()).unwrap_or(&empty);
    let mut managers = match live {
        Some(live) => entries::decode(live)
            .map_err(|error| PatchError::Invalid(format!("failed to decode managed fields: {error}")))?,
        None => Managers::new(),
    };
    if live.is_some() && managers.is_empty() {
        let before = ManagerId::update(BEFORE_FIRST_APPLY, api_version, None);
        record(&mut managers, &empty, live_object, before, api_version, now, Scope::Main);
    }
    let request = ApplyRequest { live: live_object, applied, manager, api_version, now };
    let outcome =
        if manager == KUBECTL { request.run_upgrading(managers, force) } else { request.run(managers, force) };
    let mut object = outcome.map_err(|conflicts| conflict_error(&conflicts))?;
    if manager == KUBECTL {
        keep_annotation_in_step(&mut object, applied);
    }
    Ok(object)
}

/// Records a non-apply write (create via POST, PUT, merge/json/strategic patch) by `manager`: the fields whose
/// value changed between `old` (`None` = create: all fields set) and `new` become owned by `manager` with
/// operation Update (merged into its existing Update entry for that API version), and are removed from other
/// managers' sets. Empty entries are dropped. `subresource` is `Some("status")` for status writes, which track
/// `status` only; main-resource writes do not track `status`.
///
/// As on a real server, managedFields sent in `new` replace the stored ones when they decode (`[]` clears
/// them), and an existing object without managedFields stays untracked.
pub fn record_update(
    old: Option<&Value>,
    new: &mut Value,
    manager: &str,
    api_version: &str,
    now: &str,
    subresource: Option<&str>,
) {
    if !new.is_object() {
        return;
    }
    let manager = manager_name(manager);
    let stored = || old.and_then(|old| entries::decode(old).ok()).unwrap_or_default();
    let mut managers = if subresource.is_some() {
        stored()
    } else if entries::is_reset(new) {
        Managers::new()
    } else {
        match entries::decode(new) {
            Ok(sent) if !sent.is_empty() => sent,
            _ => stored(),
        }
    };
    remove_managed_fields(new);
    if managers.is_empty() && old.is_some() {
        return;
    }
    // The comparison leaves the old object's managedFields out: no copy without them is needed.
    let empty = Value::Object(Map::new());
    let old_object = old.filter(|old| old.is_object()).unwrap_or(&empty);
    let id = ManagerId::update(manager, api_version, subresource);
    record(&mut managers, old_object, new, id, api_version, now, Scope::of(subresource));
    entries::store(new, managers);
}

/// Records a write through the `scale` subresource by `manager` onto `new` (the object `old` with its replicas
/// at `replicas_path` set), as kube-apiserver's `ScaleHandler.ToParent` maps the Scale's managedFields back:
/// when the replicas changed, every manager that owned them loses them and `manager` gains them in an Update
/// entry for `api_version` (the object's, not `autoscaling/v1`) with subresource `scale`. That entry has no
/// time: `ToParent` takes times from the object's old entries, where a new scale manager has none. An object
/// without managedFields stays untracked, as with other updates.
pub fn record_scale(old: &Value, new: &mut Value, manager: &str, api_version: &str, replicas_path: &[&str]) {
    let Ok(mut managers) = entries::decode(old) else { return };
    if managers.is_empty() {
        return;
    }
    let pointer: String = replicas_path.iter().map(|field| format!("/{field}")).collect();
    if old.pointer(&pointer) == new.pointer(&pointer) {
        return;
    }
    let path: fieldpath::Path =
        replicas_path.iter().map(|field| fieldpath::PathElement::Field((*field).to_string())).collect();
    let mut replicas = fieldpath::FieldSet::default();
    replicas.insert(&path);
    for managed in managers.values_mut() {
        managed.fields = managed.fields.difference(&replicas);
    }
    let id = ManagerId::update(manager_name(manager), api_version, Some("scale"));
    let entry = managers.entry(id).or_insert_with(|| Managed {
        fields: fieldpath::FieldSet::default(),
        api_version: api_version.to_string(),
        time: None,
    });
    entry.fields = entry.fields.union(&replicas);
    entries::store(new, managers);
}

/// Whether two objects' managedFields are the same but for their timestamps, which a real server does not count
/// as a change (apimachinery's `IgnoreManagedFieldsTimestampsTransformer`): a write that changes other fields of
/// the managedFields (client-go's `csaupgrade` hands fields from one entry to another) is written.
pub fn same_managers_but_time(old: &Value, new: &Value) -> bool {
    let entries = |object: &Value| {
        let entries = object.pointer("/metadata/managedFields").and_then(Value::as_array).cloned().unwrap_or_default();
        entries
            .into_iter()
            .map(|mut entry| {
                if let Some(entry) = entry.as_object_mut() {
                    entry.remove("time");
                }
                entry
            })
            .collect::<Vec<Value>>()
    };
    entries(old) == entries(new)
}

/// A real server names a write without a field manager `unknown`.
fn manager_name(manager: &str) -> &str {
    if manager.is_empty() { "unknown" } else { manager }
}

/// The Update half of structured-merge-diff's `Updater`: what changed leaves every other manager and joins
/// `id`'s set; what was removed leaves every set.
fn record(
    managers: &mut Managers,
    old: &Value,
    new: &Value,
    id: ManagerId,
    api_version: &str,
    now: &str,
    scope: Scope,
) {
    let comparison = compare(tracked(old, scope), tracked(new, scope));
    let changed = comparison.changed();
    for managed in managers.values_mut() {
        managed.fields = managed.fields.difference(&changed).difference(&comparison.removed);
    }
    if changed.is_empty() {
        return;
    }
    let previous = managers.remove(&id).map(|managed| managed.fields).unwrap_or_default();
    let fields = changed.union(&previous);
    managers.insert(id, Managed { fields, api_version: api_version.to_string(), time: Some(now.to_string()) });
}

/// The checks a real server makes before merging an applied configuration.
fn check_applied(applied: &Value, api_version: &str) -> Result<(), PatchError> {
    let Some(configuration) = applied.as_object() else {
        return Err(PatchError::BadRequest(format!(
            "error decoding patch: the applied configuration must be an object, got {applied}"
        )));
    };
    if applied.pointer("/metadata/managedFields").is_some_and(|fields| !fields.is_null()) {
        return Err(PatchError::BadRequest("metadata.managedFields must be nil".to_string()));
    }
    if let Some(version) = configuration.get("apiVersion").and_then(Value::as_str)
        && version != api_version
    {
        return Err(PatchError::BadRequest(format!(
            "Incorrect version specified in apply patch. Specified patch version: {version}, expected: {api_version}"
        )));
    }
    check_keyed_lists(tracked(applied, Scope::Main)).map_err(|error| {
        let kind = configuration.get("kind").and_then(Value::as_str).unwrap_or_default();
        let group_version = if api_version.contains('/') { api_version.to_string() } else { format!("/{api_version}") };
        PatchError::Invalid(format!("failed to create typed patch object ({group_version}, Kind={kind}): {error}"))
    })
}

/// One apply, runnable again with `force` (kubectl's upgrade path retries a conflicting apply forced).
struct ApplyRequest<'a> {
    /// The live object (`{}` for a create); its managedFields are left out wherever it is read.
    live: &'a Value,
    applied: &'a Value,
    manager: &'a str,
    api_version: &'a str,
    now: &'a str,
}

impl ApplyRequest<'_> {
    /// structured-merge-diff's `Updater.Apply`: merge, prune, then compare the result with the live object to
    /// find conflicts and hand over ownership. The configuration's `status` and managedFields are neither
    /// merged nor tracked; the result is the one copy made (the merge's).
    fn run(&self, mut managers: Managers, force: bool) -> Result<Value, Vec<Conflict>> {
        let applier = ManagerId::apply(self.manager);
        let previous = managers.remove(&applier);
        let applied_fields = fields_of(tracked(self.applied, Scope::Main));
        let mut object = merge(self.live, self.applied);
        if let Some(previous) = &previous {
            let owned = managers.values().fold(applied_fields.clone(), |owned, managed| owned.union(&managed.fields));
            prune(&mut object, &previous.fields, &owned);
        }
        let comparison = compare(tracked(self.live, Scope::Main), tracked(&object, Scope::Main));
        let changed = comparison.changed();
        let conflicts: Vec<Conflict> = managers
            .iter()
            .flat_map(|(id, managed)| {
                let owned_and_changed = managed.fields.intersection(&changed);
                owned_and_changed.paths().into_iter().map(|path| Conflict { manager: id.clone(), path })
            })
            .collect();
        if !force && !conflicts.is_empty() {
            return Err(conflicts);
        }
        for managed in managers.values_mut() {
            managed.fields = managed.fields.difference(&changed).difference(&comparison.removed);
        }
        // A real server stamps the applier's entry only when the object changed.
        let time = match previous {
            Some(previous) if equal_without_managed_fields(&object, self.live) && previous.time.is_some() => {
                previous.time
            }
            _ => Some(self.now.to_string()),
        };
        managers.insert(applier, Managed { fields: applied_fields, api_version: self.api_version.to_string(), time });
        entries::store(&mut object, managers);
        Ok(object)
    }

    /// The apply of the `kubectl` manager: conflicts on fields that the last-applied annotation still
    /// describes are taken over (the apply runs again forced) instead of reported.
    fn run_upgrading(&self, managers: Managers, force: bool) -> Result<Value, Vec<Conflict>> {
        match self.run(managers.clone(), force) {
            Err(conflicts) => {
                let upgradable = upgradable_fields(self.live, self.api_version).unwrap_or_default();
                let remaining: Vec<Conflict> =
                    conflicts.into_iter().filter(|conflict| !upgradable.contains(&conflict.path)).collect();
                if remaining.is_empty() { self.run(managers, true) } else { Err(remaining) }
            }
            outcome => outcome,
        }
    }
}
