//! Built-in health rules for popular custom resources: what "ready" and "failed" mean for cert-manager,
//! Flux, Argo, Crossplane, Knative, Cluster API and others, where kstatus alone reads a failure as progress or
//! a half-done object as ready.
//!
//! The rules are data: one file per API group (`<group>.yaml` beside this module, embedded in the binary),
//! written in the rules-file format (`rules.rs`), each opening with `# source:` lines that name the project's
//! API types or documentation the conditions were taken from. An object's own annotations and the user's rules
//! file come first; these rules come before kstatus (`--no-builtin-rules` turns them off).
//!
//! Nothing is done before it is needed, and nothing twice per process: the group index is built on the first
//! lookup, a group's file is read when an object of that group is first judged, and an entry's expressions are
//! compiled when an object of its kind is first judged. Files and compiled rules live in process-wide
//! statics, so every `HealthRules` of a run shares them.

mod catalog;
#[cfg(test)]
mod tests;

pub use catalog::{BuiltinRule, catalog};

use super::cel::CelRule;
use super::rules::{EntrySource, read_entries};
use super::table::{ANY_GROUP, Coverage, Covers, RuleTable, is_custom_group};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{LazyLock, OnceLock};

/// One embedded data file.
#[derive(Debug)]
struct DataFile {
    /// The API group every entry of the file covers, or [`ANY_GROUP`].
    group: &'static str,
    /// The file name under `src/health/builtin/`.
    name: &'static str,
    text: &'static str,
}

/// A data file named after its group.
macro_rules! group_file {
    ($group:literal) => {
        DataFile { group: $group, name: concat!($group, ".yaml"), text: include_str!(concat!($group, ".yaml")) }
    };
}

/// Every built-in data file. A group's file is found by its group; any-group files (Crossplane's managed and
/// composite resources, whose groups providers and users choose) are tried, in this order, for objects of
/// groups no file covers.
static FILES: &[DataFile] = &[
    group_file!("cert-manager.io"),
    group_file!("acme.cert-manager.io"),
    group_file!("kustomize.toolkit.fluxcd.io"),
    group_file!("helm.toolkit.fluxcd.io"),
    group_file!("source.toolkit.fluxcd.io"),
    group_file!("image.toolkit.fluxcd.io"),
    group_file!("argoproj.io"),
    group_file!("pkg.crossplane.io"),
    group_file!("apiextensions.crossplane.io"),
    group_file!("ops.crossplane.io"),
    DataFile { group: ANY_GROUP, name: "any.crossplane.yaml", text: include_str!("any.crossplane.yaml") },
    group_file!("serving.knative.dev"),
    group_file!("eventing.knative.dev"),
    group_file!("cluster.x-k8s.io"),
    group_file!("controlplane.cluster.x-k8s.io"),
    group_file!("keda.sh"),
    group_file!("kafka.strimzi.io"),
    group_file!("networking.istio.io"),
    group_file!("security.istio.io"),
    group_file!("gateway.networking.k8s.io"),
    group_file!("external-secrets.io"),
    group_file!("kyverno.io"),
    group_file!("monitoring.coreos.com"),
    group_file!("tekton.dev"),
    group_file!("velero.io"),
    group_file!("postgresql.cnpg.io"),
    group_file!("elasticsearch.k8s.elastic.co"),
    group_file!("kibana.k8s.elastic.co"),
    group_file!("apm.k8s.elastic.co"),
    group_file!("beat.k8s.elastic.co"),
    group_file!("agent.k8s.elastic.co"),
    group_file!("logstash.k8s.elastic.co"),
    group_file!("kubevirt.io"),
    group_file!("karpenter.sh"),
    group_file!("opentelemetry.io"),
];

/// A built-in entry: its source, compiled on first use.
#[derive(Debug)]
pub struct BuiltinEntry {
    source: EntrySource,
    compiled: OnceLock<Result<CelRule, String>>,
}

impl BuiltinEntry {
    /// The compiled rule, compiling it on the first call; the message when it does not compile (the tests
    /// compile every entry, so a release never meets one).
    pub fn rule(&self) -> Result<&CelRule, &str> {
        let compiled = self.compiled.get_or_init(|| {
            self.source.compile().map_err(|errors| {
                let first = errors.first().map(ToString::to_string).unwrap_or_default();
                format!("the built-in rule does not compile: {first}")
            })
        });
        compiled.as_ref().map_err(String::as_str)
    }
}

impl Covers for BuiltinEntry {
    fn coverage(&self) -> &Coverage {
        &self.source.coverage
    }

    fn index(&self) -> usize {
        self.source.index
    }
}

/// The files, the index by group, and each file's entries once read.
struct Builtin {
    by_group: HashMap<&'static str, usize>,
    any_group: Vec<usize>,
    tables: Vec<OnceLock<RuleTable<BuiltinEntry>>>,
}

static BUILTIN: LazyLock<Builtin> = LazyLock::new(|| {
    let mut by_group = HashMap::new();
    let mut any_group = Vec::new();
    for (position, file) in FILES.iter().enumerate() {
        if file.group == ANY_GROUP {
            any_group.push(position);
        } else {
            by_group.insert(file.group, position);
        }
    }
    Builtin { by_group, any_group, tables: FILES.iter().map(|_| OnceLock::new()).collect() }
});

impl Builtin {
    /// The entries of file `position`, reading the file on first use. Entries that do not read are left out
    /// with a warning (the tests read every file, so a release never meets one).
    fn table(&self, position: usize) -> Option<&RuleTable<BuiltinEntry>> {
        let file = FILES.get(position)?;
        let table = self.tables.get(position)?;
        Some(table.get_or_init(|| read_file(file)))
    }
}

fn read_file(file: &DataFile) -> RuleTable<BuiltinEntry> {
    let (entries, problems) = read_entries(file.text, file.name);
    let mut table = RuleTable::default();
    let mut warnings: Vec<String> = problems.iter().map(ToString::to_string).collect();
    for entry in entries {
        match entry {
            Ok(source) => {
                let origin = source.origin(file.name);
                if let Err(problem) =
                    super::rules::insert(&mut table, BuiltinEntry { source, compiled: OnceLock::new() }, origin)
                {
                    warnings.push(problem.to_string());
                }
            }
            Err(problems) => warnings.extend(problems.iter().map(ToString::to_string)),
        }
    }
    for warning in warnings {
        tracing::warn!("built-in health rules: {warning}");
    }
    table
}

/// The built-in entry for `object` of `group` and `kind`: its group's file, else the any-group files.
pub fn find(group: &str, kind: &str, object: &Value) -> Option<&'static BuiltinEntry> {
    let builtin: &'static Builtin = &BUILTIN;
    if !is_custom_group(group) {
        return None;
    }
    if let Some(position) = builtin.by_group.get(group) {
        return builtin.table(*position)?.find_exact(group, kind);
    }
    builtin.any_group.iter().find_map(|position| builtin.table(*position)?.find_any_group(kind, object))
}
