//! Unit tests of planning with inline YAML: every ordering source alone and combined, the kind tie-break,
//! cycle and annotation errors, external dependencies, rendering, the scheduler, and property tests that no
//! annotation value panics and that any acyclic graph plans in an order respecting every edge.

use super::*;
use crate::manifest::{Manifest, parse_text};
use proptest::prelude::*;
use serde_json::{Value, json};

fn load(yaml: &str) -> Vec<Manifest> {
    let mut problems = Vec::new();
    let manifests = parse_text(yaml, "test.yaml", false, &mut problems);
    assert!(problems.is_empty(), "{problems:?}");
    manifests
}

fn plan_of(yaml: &str) -> Plan {
    build(&load(yaml)).unwrap_or_else(|error| panic!("{error}"))
}

fn error_of(yaml: &str) -> String {
    match build(&load(yaml)) {
        Ok(plan) => panic!("expected an error, got the order {:?}", order(&plan)),
        Err(error) => error.to_string(),
    }
}

/// The planned order as `Kind/namespace/name`.
fn order(plan: &Plan) -> Vec<String> {
    plan.order().iter().map(|index| plan.objects()[*index].reference.to_string()).collect()
}

fn index_of(plan: &Plan, name: &str) -> usize {
    plan.objects()
        .iter()
        .position(|object| object.reference.to_string() == name)
        .unwrap_or_else(|| panic!("no object {name}"))
}

fn describe(plan: &Plan, target: Target) -> String {
    match target {
        Target::Object(index) => plan.objects()[index].reference.to_string(),
        Target::External(index) => format!("external {}", plan.externals()[index]),
    }
}

/// What `name` waits for, as `target: reasons`.
fn dependencies(plan: &Plan, name: &str) -> Vec<String> {
    plan.dependencies(index_of(plan, name))
        .into_iter()
        .map(|dependency| format!("{}: {}", describe(plan, dependency.target), reason::join(&dependency.reasons)))
        .collect()
}

fn object(api_version: &str, kind: &str, namespace: Option<&str>, name: &str, annotations: &[(&str, &str)]) -> String {
    let mut text = format!("---\napiVersion: {api_version}\nkind: {kind}\nmetadata:\n  name: {name}\n");
    if let Some(namespace) = namespace {
        text.push_str(&format!("  namespace: {namespace}\n"));
    }
    if !annotations.is_empty() {
        text.push_str("  annotations:\n");
        for (key, value) in annotations {
            text.push_str(&format!("    {key}: '{}'\n", value.replace('\'', "''")));
        }
    }
    text
}

// ---------------------------------------------------------------------------------------------------------
// Implicit rules

#[test]
fn namespace_goes_before_the_objects_in_it() {
    let plan = plan_of(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: shop}\n---\n\
         apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n---\n\
         apiVersion: v1\nkind: ConfigMap\nmetadata: {name: other, namespace: elsewhere}\n",
    );
    assert_eq!(order(&plan), ["Namespace/shop", "ConfigMap/shop/settings", "ConfigMap/elsewhere/other"]);
    assert_eq!(
        dependencies(&plan, "ConfigMap/shop/settings"),
        ["Namespace/shop: implicit: Namespace before the objects in it"]
    );
    // A namespace the input does not create is expected to exist: no edge, no external dependency.
    assert!(dependencies(&plan, "ConfigMap/elsewhere/other").is_empty());
    assert!(plan.externals().is_empty());
}

#[test]
fn crd_goes_before_its_custom_resources_matched_by_group_and_kind() {
    let plan = plan_of(
        "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: a, namespace: default}\n---\n\
         apiVersion: other.io/v1\nkind: Widget\nmetadata: {name: b, namespace: default}\n---\n\
         apiVersion: example.com/v2\nkind: Gadget\nmetadata: {name: c}\n---\n\
         apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: widgets.example.com}\n\
         spec: {group: example.com, names: {kind: Widget, plural: widgets}, scope: Namespaced}\n---\n\
         apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: broken.example.com}\n\
         spec: {group: example.com}\n",
    );
    assert_eq!(
        dependencies(&plan, "Widget/default/a"),
        [
            "CustomResourceDefinition/widgets.example.com: implicit: CustomResourceDefinition before its custom resources"
        ]
    );
    assert!(dependencies(&plan, "Widget/default/b").is_empty(), "another group's Widget");
    assert!(dependencies(&plan, "Gadget/c").is_empty(), "a CRD without spec.names.kind defines nothing");
    assert_eq!(
        order(&plan),
        [
            "CustomResourceDefinition/widgets.example.com",
            "CustomResourceDefinition/broken.example.com",
            "Gadget/c",
            "Widget/default/a",
            "Widget/default/b",
        ]
    );
}

// ---------------------------------------------------------------------------------------------------------
// Weights

#[test]
fn weights_order_ascending_with_default_zero() {
    let yaml = [
        object("v1", "ConfigMap", Some("w"), "two", &[("helm.sh/weight", "2")]),
        object("v1", "ConfigMap", Some("w"), "zero", &[]),
        object("v1", "ConfigMap", Some("w"), "minus", &[("helm.sh/weight", "-1")]),
        object("v1", "ConfigMap", Some("w"), "also-two", &[("argocd.argoproj.io/sync-wave", "+2")]),
        object("v1", "ConfigMap", Some("w"), "also-zero", &[("helm.sh/weight", " 0 ")]),
    ]
    .concat();
    let plan = plan_of(&yaml);
    assert_eq!(
        order(&plan),
        ["ConfigMap/w/minus", "ConfigMap/w/zero", "ConfigMap/w/also-zero", "ConfigMap/w/two", "ConfigMap/w/also-two"]
    );
    // Each object lists what it waits for directly: every object of the next lower weight.
    assert_eq!(
        dependencies(&plan, "ConfigMap/w/two"),
        ["ConfigMap/w/zero: helm.sh/weight: 2 after 0", "ConfigMap/w/also-zero: helm.sh/weight: 2 after 0"]
    );
    assert_eq!(
        dependencies(&plan, "ConfigMap/w/also-two"),
        [
            "ConfigMap/w/zero: argocd.argoproj.io/sync-wave: 2 after 0",
            "ConfigMap/w/also-zero: argocd.argoproj.io/sync-wave: 2 after 0"
        ]
    );
    // An object with the default weight names the annotation of what it waits for.
    assert_eq!(dependencies(&plan, "ConfigMap/w/zero"), ["ConfigMap/w/minus: helm.sh/weight: 0 after -1"]);
    assert!(dependencies(&plan, "ConfigMap/w/minus").is_empty());
    assert_eq!(plan.step(index_of(&plan, "ConfigMap/w/two")), Some(3));
    assert_eq!(plan.weight(index_of(&plan, "ConfigMap/w/also-two")).map(|weight| weight.value), Some(2));
}

#[test]
fn equal_weights_and_no_weights_add_no_edges() {
    let yaml = [
        object("v1", "ConfigMap", None, "a", &[("helm.sh/weight", "5")]),
        object("v1", "ConfigMap", None, "b", &[("argocd.argoproj.io/sync-wave", "5")]),
        object("v1", "ConfigMap", None, "c", &[("helm.sh/weight", "5"), ("argocd.argoproj.io/sync-wave", "5")]),
    ]
    .concat();
    let plan = plan_of(&yaml);
    assert_eq!(plan.graph.forward.of(0).len() + plan.graph.forward.of(1).len() + plan.graph.forward.of(2).len(), 0);
    assert_eq!(plan.graph.gates.len(), 0);
    assert_eq!(plan.step_count(), 1);
}

#[test]
fn weight_edges_grow_linearly_through_gates() {
    // 2,000 objects in two weights would be 1,000,000 pairwise edges; through one gate it is 2,000.
    let yaml: String = (0..2000)
        .map(|index| {
            let weight = if index % 2 == 0 { "0" } else { "1" };
            object("v1", "ConfigMap", None, &format!("cm-{index}"), &[("helm.sh/weight", weight)])
        })
        .collect();
    let plan = plan_of(&yaml);
    let edges: usize = (0..plan.graph.nodes()).map(|node| plan.graph.forward.of(node).len()).sum();
    assert_eq!(edges, 2000);
    assert_eq!(plan.dependencies(1).len(), 1000, "an object of weight 1 still lists all 1,000 of weight 0");
    assert_eq!(plan.dependents(0).len(), 1000);
    let position = |index: usize| plan.position(index).unwrap_or(usize::MAX);
    assert!((0..2000).step_by(2).all(|zero| position(zero) < 1000));
}

#[test]
fn helm_weight_and_sync_wave_must_agree() {
    let yaml = object("v1", "ConfigMap", None, "a", &[("helm.sh/weight", "1"), ("argocd.argoproj.io/sync-wave", "2")]);
    assert_eq!(
        error_of(&yaml),
        "test.yaml: document 1 (line 2): ConfigMap/a: annotation `helm.sh/weight`: `1` disagrees with \
         `argocd.argoproj.io/sync-wave: \"2\"`; both are read as one weight: remove one or make them equal"
    );
}

#[test]
fn weight_values_are_integers() {
    let cases: [(&str, Result<i64, &str>); 9] = [
        ("0", Ok(0)),
        ("-5", Ok(-5)),
        ("+7", Ok(7)),
        (" 3\n", Ok(3)),
        ("", Err("the value is empty; expected an integer such as \"-1\" or \"5\"")),
        ("1.5", Err("`1.5` is not an integer; expected one such as \"-1\" or \"5\"")),
        ("one", Err("`one` is not an integer; expected one such as \"-1\" or \"5\"")),
        ("99999999999999999999", Err("`99999999999999999999` is out of range (a 64-bit integer)")),
        ("--1", Err("`--1` is not an integer; expected one such as \"-1\" or \"5\"")),
    ];
    for (text, expected) in cases {
        assert_eq!(parse_weight(text), expected.map_err(str::to_string), "{text:?}");
    }
}

// ---------------------------------------------------------------------------------------------------------
// HIP-0025 resource groups

#[test]
fn resource_groups_wait_for_every_member() {
    let yaml = [
        object(
            "apps/v1",
            "Deployment",
            None,
            "app",
            &[
                ("helm.sh/resource-group", "app"),
                ("helm.sh/depends-on/resource-groups", r#"["database", "queue", "database"]"#),
            ],
        ),
        object("apps/v1", "StatefulSet", None, "db", &[("helm.sh/resource-group", " database ")]),
        object("v1", "Service", None, "db", &[("helm.sh/resource-group", "database")]),
        object("apps/v1", "StatefulSet", None, "rabbit", &[("helm.sh/resource-group", "queue")]),
        object("batch/v1", "Job", None, "smoke", &[("helm.sh/depends-on/resource-groups", r#"["app"]"#)]),
        object("v1", "ConfigMap", None, "unrelated", &[("helm.sh/depends-on/resource-groups", "[]")]),
    ]
    .concat();
    let plan = plan_of(&yaml);
    assert_eq!(
        dependencies(&plan, "Deployment/app"),
        [
            "Service/db: helm.sh/depends-on/resource-groups: database",
            "StatefulSet/db: helm.sh/depends-on/resource-groups: database",
            "StatefulSet/rabbit: helm.sh/depends-on/resource-groups: queue",
        ]
    );
    assert_eq!(dependencies(&plan, "Job/smoke"), ["Deployment/app: helm.sh/depends-on/resource-groups: app"]);
    assert!(dependencies(&plan, "ConfigMap/unrelated").is_empty());
    assert_eq!(
        order(&plan),
        ["ConfigMap/unrelated", "Service/db", "StatefulSet/db", "StatefulSet/rabbit", "Deployment/app", "Job/smoke"]
    );
    let dependents: Vec<String> = plan
        .dependents(index_of(&plan, "Service/db"))
        .iter()
        .map(|dependent| format!("{}: {}", plan.objects()[dependent.index].reference, reason::join(&dependent.reasons)))
        .collect();
    assert_eq!(dependents, ["Deployment/app: helm.sh/depends-on/resource-groups: database"]);
}

#[test]
fn resource_group_errors_name_the_object() {
    let yaml = [
        object("v1", "ConfigMap", None, "a", &[("helm.sh/resource-group", "db")]),
        object("v1", "ConfigMap", None, "b", &[("helm.sh/depends-on/resource-groups", r#"["dbb"]"#)]),
        object("v1", "ConfigMap", None, "c", &[("helm.sh/depends-on/resource-groups", "db")]),
        object("v1", "ConfigMap", None, "d", &[("helm.sh/depends-on/resource-groups", r#"["db", " "]"#)]),
        object("v1", "ConfigMap", None, "e", &[("helm.sh/resource-group", "  ")]),
    ]
    .concat();
    assert_eq!(
        error_of(&yaml),
        "test.yaml: document 2 (line 9): ConfigMap/b: annotation `helm.sh/depends-on/resource-groups`: no object \
         declares resource group `dbb`; declared groups: db\n\
         test.yaml: document 3 (line 16): ConfigMap/c: annotation `helm.sh/depends-on/resource-groups`: `db` is not \
         a JSON list of group names such as '[\"database\", \"queue\"]': expected value at line 1 column 1\n\
         test.yaml: document 4 (line 23): ConfigMap/d: annotation `helm.sh/depends-on/resource-groups`: group name 2 \
         of the list is empty\n\
         test.yaml: document 5 (line 30): ConfigMap/e: annotation `helm.sh/resource-group`: the group name is empty"
    );
}

#[test]
fn depending_on_its_own_group_is_a_cycle() {
    let yaml = object(
        "v1",
        "ConfigMap",
        None,
        "a",
        &[("helm.sh/resource-group", "db"), ("helm.sh/depends-on/resource-groups", r#"["db"]"#)],
    );
    assert_eq!(
        error_of(&yaml),
        "dependency cycle: ConfigMap/a -> ConfigMap/a\n  \
         ConfigMap/a (test.yaml: document 1 (line 2)) waits for ConfigMap/a (helm.sh/depends-on/resource-groups: db)"
    );
}

// ---------------------------------------------------------------------------------------------------------
// depends-on

#[test]
fn depends_on_references_in_the_cli_utils_format() {
    let yaml = [
        object(
            "apps/v1",
            "Deployment",
            Some("shop"),
            "web",
            &[
                (
                    "config.kubernetes.io/depends-on",
                    "batch/namespaces/shop/Job/migrate, /namespaces/shop/ConfigMap/settings",
                ),
                (
                    "berth.dev/depends-on",
                    "batch/namespaces/shop/Job/migrate,rbac.authorization.k8s.io/ClusterRole/reader",
                ),
            ],
        ),
        object("batch/v1", "Job", Some("shop"), "migrate", &[]),
        object("v1", "ConfigMap", Some("shop"), "settings", &[]),
        object("rbac.authorization.k8s.io/v1", "ClusterRole", None, "reader", &[]),
    ]
    .concat();
    let plan = plan_of(&yaml);
    assert_eq!(
        dependencies(&plan, "Deployment/shop/web"),
        [
            "ConfigMap/shop/settings: config.kubernetes.io/depends-on",
            "ClusterRole/reader: berth.dev/depends-on",
            "Job/shop/migrate: config.kubernetes.io/depends-on; berth.dev/depends-on",
        ]
    );
    assert_eq!(
        order(&plan),
        ["ConfigMap/shop/settings", "ClusterRole/reader", "Job/shop/migrate", "Deployment/shop/web"]
    );
}

#[test]
fn a_namespaced_reference_finds_an_object_that_names_no_namespace() {
    let yaml = [
        object("v1", "ConfigMap", None, "settings", &[]),
        object("v1", "Pod", None, "p", &[("berth.dev/depends-on", "/namespaces/default/ConfigMap/settings")]),
        // The reverse is not done: a reference without a namespace names a cluster-scoped object (of a kind
        // whose scope the plan cannot know; one it knows to be namespaced is refused, below).
        object("example.com/v1", "Widget", Some("shop"), "other", &[]),
        object("v1", "Pod", None, "q", &[("berth.dev/depends-on", "example.com/Widget/other")]),
    ]
    .concat();
    let plan = plan_of(&yaml);
    assert_eq!(dependencies(&plan, "Pod/p"), ["ConfigMap/settings: berth.dev/depends-on"]);
    assert_eq!(dependencies(&plan, "Pod/q"), ["external example.com/Widget/other: berth.dev/depends-on"]);
}

#[test]
fn a_reference_whose_form_does_not_fit_its_kind_is_refused_as_cli_utils_refuses_it() {
    // Issue 29: `/ConfigMap/high` names a cluster-scoped ConfigMap, which cannot exist. With a weight making a
    // cycle through it, `berth plan` reported the cycle while `berth apply` (namespaces defaulted) wrote `low`
    // and then waited for `high` as an external dependency until its timeout.
    let yaml = [
        object("v1", "ConfigMap", None, "low", &[("config.kubernetes.io/depends-on", "/ConfigMap/high")]),
        object("v1", "ConfigMap", None, "high", &[("helm.sh/weight", "1")]),
        object("rbac.authorization.k8s.io/v1", "ClusterRole", None, "reader", &[]),
        object(
            "v1",
            "ServiceAccount",
            None,
            "robot",
            &[("berth.dev/depends-on", "rbac.authorization.k8s.io/namespaces/default/ClusterRole/reader")],
        ),
        object("apiextensions.k8s.io/v1", "CustomResourceDefinition", None, "widgets.example.com", &[]),
        object("v1", "Pod", None, "p", &[("berth.dev/depends-on", "example.com/Widget/w")]),
    ]
    .concat()
    .replace(
        "name: widgets.example.com\n",
        "name: widgets.example.com\nspec: {group: example.com, scope: Namespaced, names: {kind: Widget, plural: widgets}}\n",
    );
    let refused = [
        "test.yaml: document 1 (line 2): ConfigMap/low: annotation `config.kubernetes.io/depends-on`: \
         `/ConfigMap/high`: ConfigMap is namespaced, so a reference to it names its namespace \
         (`/namespaces/<namespace>/ConfigMap/high`); without one it names a cluster-scoped ConfigMap, which cannot \
         exist",
        "test.yaml: document 4 (line 21): ServiceAccount/robot: annotation `berth.dev/depends-on`: \
         `rbac.authorization.k8s.io/namespaces/default/ClusterRole/reader`: ClusterRole is cluster-scoped, so a \
         reference to it names no namespace (`rbac.authorization.k8s.io/ClusterRole/reader`)",
        "test.yaml: document 6 (line 34): Pod/p: annotation `berth.dev/depends-on`: `example.com/Widget/w`: Widget \
         is namespaced, so a reference to it names its namespace (`example.com/namespaces/<namespace>/Widget/w`); \
         without one it names a cluster-scoped Widget, which cannot exist",
    ];
    let manifests = load(&yaml);
    // Offline (Kubernetes' own kinds and the input's CRDs) and with the namespaces and scopes of a cluster,
    // the same refusals and no cycle: the refused reference adds no edge.
    let offline = build(&manifests).expect_err("refused").to_string();
    assert_eq!(offline, refused.join("\n"));
    let namespaces = vec![Some("default"), Some("default"), None, Some("default"), None, Some("default")];
    let served = |group: &str, kind: &str| match (group, kind) {
        ("", "ConfigMap" | "ServiceAccount" | "Pod") => Some(Scope::Namespaced),
        ("rbac.authorization.k8s.io", "ClusterRole") => Some(Scope::Cluster),
        _ => None,
    };
    let online = build_in_namespaces(&manifests, namespaces, &served).expect_err("refused").to_string();
    assert_eq!(online, refused.join("\n"));
    // What the cluster says comes first: a kind it serves cluster-scoped takes the form without a namespace.
    let cluster_widgets = |group: &str, _: &str| (group == "example.com").then_some(Scope::Cluster);
    let namespaces = vec![Some("default"), Some("default"), None, Some("default"), None, Some("default")];
    let error = build_in_namespaces(&manifests, namespaces, &cluster_widgets).expect_err("refused").to_string();
    assert!(!error.contains("Widget"), "{error}");
}

#[test]
fn references_outside_the_input_are_external_dependencies() {
    let yaml = [
        object(
            "apps/v1",
            "Deployment",
            Some("pay"),
            "billing",
            &[(
                "berth.dev/depends-on",
                "/namespaces/pay/Secret/db-credentials,postgresql.cnpg.io/namespaces/pay/Cluster/db",
            )],
        ),
        object(
            "batch/v1",
            "Job",
            Some("pay"),
            "report",
            &[("config.kubernetes.io/depends-on", "/namespaces/pay/Secret/db-credentials")],
        ),
        object("v1", "Secret", Some("pay"), "other", &[]),
    ]
    .concat();
    let plan = plan_of(&yaml);
    let externals: Vec<String> = plan.externals().iter().map(ToString::to_string).collect();
    assert_eq!(externals, ["/namespaces/pay/Secret/db-credentials", "postgresql.cnpg.io/namespaces/pay/Cluster/db"]);
    assert_eq!(
        dependencies(&plan, "Job/pay/report"),
        ["external /namespaces/pay/Secret/db-credentials: config.kubernetes.io/depends-on"]
    );
    let wanted_by: Vec<usize> = plan.external_dependents(0).iter().map(|dependent| dependent.index).collect();
    assert_eq!(wanted_by, [0, 1], "in planned order: the Deployment before the Job (Helm's kind order)");
    // In JSON an external dependency borrows the apiVersion of an input object of its group and kind.
    let document = document(&plan);
    let billing = &document.objects[1];
    assert_eq!(billing.name, "billing");
    let versions: Vec<(&str, &str)> =
        billing.depends_on.iter().map(|entry| (entry.api_version.as_str(), entry.reason.as_str())).collect();
    assert_eq!(
        versions,
        [
            ("v1", "berth.dev/depends-on (external: not in the input)"),
            ("postgresql.cnpg.io", "berth.dev/depends-on (external: not in the input)")
        ]
    );
}

#[test]
fn dependency_references_parse_as_cli_utils_parses_them() {
    let reference = |group: &str, kind: &str, namespace: Option<&str>, name: &str| DependencyRef {
        group: group.into(),
        kind: kind.into(),
        namespace: namespace.map(Into::into),
        name: name.into(),
    };
    let good = [
        ("test-group/test-kind/cluster-obj", reference("test-group", "test-kind", None, "cluster-obj")),
        (
            "  test-group/namespaces/test-namespace/test-kind/namespaced-obj\n",
            reference("test-group", "test-kind", Some("test-namespace"), "namespaced-obj"),
        ),
        ("/namespaces/default/ConfigMap/cm", reference("", "ConfigMap", Some("default"), "cm")),
        ("/Namespace/shop", reference("", "Namespace", None, "shop")),
        ("/namespaces//ClusterRole/x", reference("", "ClusterRole", None, "x")),
        ("apps/namespaces/a/Deployment/ web ", reference("apps", "Deployment", Some("a"), "web")),
    ];
    for (text, expected) in good {
        assert_eq!(DependencyRef::parse(text), Ok(expected), "{text:?}");
    }
    let bad = [
        ("", "``: expected 3 or 5 fields separated by `/`, found 1"),
        ("test-group/test-namespace/test-kind/namespaced-obj", "found 4"),
        ("test-group/namespace/ns/test-kind/obj", "the second of 5 fields must be `namespaces`, found `namespace`"),
        ("apps//web", "the kind is empty"),
        ("apps/Deployment/ ", "the name is empty"),
        ("a/b/c/d/e/f", "found 6"),
        ("/ConfigMap/..", "the name may not be '..'"),
        ("/namespaces/%2e%2e/ConfigMap/a", "the namespace may not contain '%'"),
    ];
    for (text, message) in bad {
        let error = DependencyRef::parse(text).err().unwrap_or_else(|| panic!("{text:?} parsed"));
        assert!(error.contains(message), "{text:?}: {error}");
    }
    assert_eq!(DependencyRef::parse_list("/ConfigMap/a,"), Err("entry 2 is empty (a stray comma?)".to_string()));
    assert_eq!(DependencyRef::parse_list("/ConfigMap/a, /ConfigMap/a"), Err("`/ConfigMap/a` is listed twice".into()));
    assert!(DependencyRef::parse_list(" ").is_err_and(|error| error.starts_with("the value is empty")));
    let round_trip = "apps/namespaces/a/Deployment/web";
    assert_eq!(DependencyRef::parse(round_trip).map(|reference| reference.to_string()), Ok(round_trip.to_string()));
}

// ---------------------------------------------------------------------------------------------------------
// Tie-break and combination

#[test]
fn unordered_objects_follow_helm_install_order_then_input_order() {
    let yaml = [
        object("example.com/v1", "Zebra", None, "z", &[]),
        object("apps/v1", "Deployment", None, "d2", &[]),
        object("example.com/v1", "Apple", None, "a", &[]),
        object("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration", None, "v", &[]),
        object("v1", "Service", None, "s", &[]),
        object("apps/v1", "Deployment", None, "d1", &[]),
        object("v1", "Namespace", None, "ns", &[]),
        object("scheduling.k8s.io/v1", "PriorityClass", None, "p", &[]),
    ]
    .concat();
    assert_eq!(
        order(&plan_of(&yaml)),
        [
            "PriorityClass/p",
            "Namespace/ns",
            "Service/s",
            "Deployment/d2",
            "Deployment/d1",
            "ValidatingWebhookConfiguration/v",
            "Apple/a",
            "Zebra/z",
        ]
    );
}

#[test]
fn edges_win_over_the_kind_order() {
    // A Namespace that waits for a Deployment goes after it, though Helm's order puts Namespaces first; the
    // ConfigMap in that namespace follows its Namespace.
    let yaml = [
        object("v1", "Namespace", None, "late", &[("berth.dev/depends-on", "apps/namespaces/early/Deployment/web")]),
        object("v1", "ConfigMap", Some("late"), "settings", &[]),
        object("apps/v1", "Deployment", Some("early"), "web", &[]),
    ]
    .concat();
    let plan = plan_of(&yaml);
    assert_eq!(order(&plan), ["Deployment/early/web", "Namespace/late", "ConfigMap/late/settings"]);
    assert_eq!(plan.step_count(), 3);
}

const COMBINED: &str = r#"
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
  annotations:
    helm.sh/weight: "1"
    helm.sh/depends-on/resource-groups: '["cache"]'
    berth.dev/depends-on: batch/namespaces/shop/Job/migrate, /namespaces/shop/Secret/tls
---
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  namespace: shop
---
apiVersion: cache.example.com/v1
kind: Redis
metadata:
  name: sessions
  namespace: shop
  annotations:
    helm.sh/resource-group: cache
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: redis.cache.example.com
spec:
  group: cache.example.com
  names: {kind: Redis, plural: redis}
  scope: Namespaced
---
apiVersion: v1
kind: Namespace
metadata:
  name: shop
"#;

#[test]
fn every_source_combines_in_one_graph() {
    let plan = plan_of(COMBINED);
    assert_eq!(
        to_text(&plan),
        "1. Namespace/shop  (step 1)\n\
         2. CustomResourceDefinition/redis.cache.example.com  (step 1)\n\
         3. Job/shop/migrate  (step 2)\n     \
              waits for Namespace/shop (implicit: Namespace before the objects in it)\n\
         4. Redis/shop/sessions  (step 2)\n     \
              waits for Namespace/shop (implicit: Namespace before the objects in it)\n     \
              waits for CustomResourceDefinition/redis.cache.example.com (implicit: CustomResourceDefinition before its custom resources)\n\
         5. Deployment/shop/web  (step 3)\n     \
              waits for Namespace/shop (implicit: Namespace before the objects in it; helm.sh/weight: 1 after 0)\n     \
              waits for CustomResourceDefinition/redis.cache.example.com (helm.sh/weight: 1 after 0)\n     \
              waits for Job/shop/migrate (helm.sh/weight: 1 after 0; berth.dev/depends-on)\n     \
              waits for Redis/shop/sessions (helm.sh/weight: 1 after 0; helm.sh/depends-on/resource-groups: cache)\n     \
              waits for Secret/shop/tls, external (berth.dev/depends-on)\n\
         \n\
         5 objects in 3 steps.\n\
         1 external dependency, not in the input; berth waits until each exists and is Current:\n  \
           /namespaces/shop/Secret/tls, for Deployment/shop/web\n"
    );
}

#[test]
fn json_follows_the_design_contract() {
    let plan = plan_of(
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n---\n\
         apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: shop\n  annotations:\n    \
         berth.dev/depends-on: /namespaces/shop/Secret/tls\n",
    );
    let value: Value = serde_json::from_str(&to_json(&plan)).unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(
        value,
        json!({"objects": [
            {"apiVersion": "v1", "kind": "Namespace", "namespace": "", "name": "shop", "dependsOn": []},
            {"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "shop", "name": "web", "dependsOn": [
                {"apiVersion": "v1", "kind": "Namespace", "namespace": "", "name": "shop",
                 "reason": "implicit: Namespace before the objects in it"},
                {"apiVersion": "v1", "kind": "Secret", "namespace": "shop", "name": "tls",
                 "reason": "berth.dev/depends-on (external: not in the input)"}
            ]}
        ]})
    );
}

#[test]
fn dot_is_a_digraph_from_dependencies_to_dependents() {
    let plan = plan_of(
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: \"a\\\"b\"}\n---\n\
         apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: \"a\\\"b\"\n  annotations:\n    \
         berth.dev/depends-on: /Node/n1\n",
    );
    assert_eq!(
        to_dot(&plan),
        "digraph plan {\n  rankdir=LR;\n  node [shape=box];\n  \
         o1 [label=\"Namespace/a\\\"b\\nstep 1\"];\n  \
         o2 [label=\"ConfigMap/a\\\"b/c\\nstep 2\"];\n  \
         x1 [label=\"Node/n1\\nexternal\", style=dashed];\n  \
         o1 -> o2 [label=\"implicit: Namespace before the objects in it\"];\n  \
         x1 -> o2 [label=\"berth.dev/depends-on\", style=dashed];\n}\n"
    );
}

// ---------------------------------------------------------------------------------------------------------
// Cycles and malformed input

#[test]
fn a_cycle_is_reported_whole_with_every_source() {
    let yaml = [
        object("batch/v1", "Job", Some("shop"), "migrate", &[("helm.sh/weight", "1")]),
        // Behind the cycle, not on it.
        object(
            "v1",
            "ConfigMap",
            Some("shop"),
            "blocked",
            &[("helm.sh/weight", "2"), ("berth.dev/depends-on", "batch/namespaces/shop/Job/migrate")],
        ),
        object(
            "apps/v1",
            "Deployment",
            Some("shop"),
            "web",
            &[("config.kubernetes.io/depends-on", "/namespaces/shop/Service/web")],
        ),
        object(
            "v1",
            "Service",
            Some("shop"),
            "web",
            &[("helm.sh/weight", "1"), ("berth.dev/depends-on", "batch/namespaces/shop/Job/migrate")],
        ),
    ]
    .concat();
    assert_eq!(
        error_of(&yaml),
        "dependency cycle: Job/shop/migrate -> Deployment/shop/web -> Service/shop/web -> Job/shop/migrate\n  \
         Job/shop/migrate (test.yaml: document 1 (line 2)) waits for Deployment/shop/web (helm.sh/weight: 1 after 0)\n  \
         Deployment/shop/web (test.yaml: document 3 (line 19)) waits for Service/shop/web (config.kubernetes.io/depends-on)\n  \
         Service/shop/web (test.yaml: document 4 (line 27)) waits for Job/shop/migrate (berth.dev/depends-on)"
    );
}

#[test]
fn every_cycle_is_reported_with_the_other_problems() {
    let yaml = [
        object("v1", "ConfigMap", None, "a", &[("berth.dev/depends-on", "/namespaces/default/ConfigMap/b")]),
        object("v1", "ConfigMap", None, "b", &[("berth.dev/depends-on", "/namespaces/default/ConfigMap/a")]),
        object("v1", "ConfigMap", None, "self", &[("berth.dev/depends-on", "/namespaces/default/ConfigMap/self")]),
        object("v1", "ConfigMap", None, "bad", &[("helm.sh/weight", "x")]),
    ]
    .concat();
    let manifests = load(&yaml);
    let error = build(&manifests).err().unwrap_or_else(|| panic!("expected errors"));
    let kinds: Vec<(Option<usize>, bool)> =
        error.problems.iter().map(|problem| (problem.index(), matches!(problem, PlanProblem::Cycle(_)))).collect();
    assert_eq!(kinds, [(Some(3), false), (Some(0), true), (Some(2), true)]);
    let PlanProblem::Cycle(cycle) = &error.problems[1] else { panic!("a cycle") };
    let names: Vec<String> = cycle.steps.iter().map(|step| step.object.to_string()).collect();
    assert_eq!(names, ["ConfigMap/a", "ConfigMap/b"]);
    assert_eq!(cycle.steps[1].source.document, 2);
}

#[test]
fn objects_behind_a_cycle_are_not_reported_as_cycles() {
    let yaml = [
        object("v1", "ConfigMap", None, "waits", &[("berth.dev/depends-on", "/namespaces/default/ConfigMap/a")]),
        object("v1", "ConfigMap", None, "a", &[("berth.dev/depends-on", "/namespaces/default/ConfigMap/b")]),
        object("v1", "ConfigMap", None, "b", &[("berth.dev/depends-on", "/namespaces/default/ConfigMap/a")]),
    ]
    .concat();
    let error = error_of(&yaml);
    assert!(error.starts_with("dependency cycle: ConfigMap/a -> ConfigMap/b -> ConfigMap/a\n"), "{error}");
    assert_eq!(error.matches("dependency cycle").count(), 1);
}

#[test]
fn malformed_annotations_are_all_reported_in_input_order() {
    let yaml = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: numbers\n  annotations:\n    \
                helm.sh/weight: 1\n    argocd.argoproj.io/sync-wave: wave\n    \
                helm.sh/depends-on/resource-groups: [a]\n---\n\
                apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: listy\n  annotations: [a, b]\n---\n\
                apiVersion: v1\nkind: Secret\nmetadata:\n  name: refs\n  namespace: shop\n  annotations:\n    \
                config.kubernetes.io/depends-on: apps/Deployment/\n    berth.dev/depends-on: ''\n---\n\
                apiVersion: v1\nkind: Secret\nmetadata: {name: refs, namespace: shop}\n";
    assert_eq!(
        error_of(yaml),
        "test.yaml: document 1 (line 1): ConfigMap/numbers: annotation `helm.sh/weight`: the value must be a \
         string; quote it: `helm.sh/weight: '1'`\n\
         test.yaml: document 1 (line 1): ConfigMap/numbers: annotation `argocd.argoproj.io/sync-wave`: `wave` is \
         not an integer; expected one such as \"-1\" or \"5\"\n\
         test.yaml: document 1 (line 1): ConfigMap/numbers: annotation `helm.sh/depends-on/resource-groups`: the \
         value must be a string; quote it: `helm.sh/depends-on/resource-groups: '[\"a\"]'`\n\
         test.yaml: document 2 (line 10): ConfigMap/listy: metadata.annotations must be a mapping\n\
         test.yaml: document 3 (line 16): Secret/shop/refs: annotation `config.kubernetes.io/depends-on`: \
         `apps/Deployment/`: the name is empty; expected `<group>/<Kind>/<name>` or \
         `<group>/namespaces/<namespace>/<Kind>/<name>`\n\
         test.yaml: document 3 (line 16): Secret/shop/refs: annotation `berth.dev/depends-on`: the value is empty; \
         expected `<group>/<Kind>/<name>` or `<group>/namespaces/<namespace>/<Kind>/<name>`, separated by commas\n\
         test.yaml: document 4 (line 25): Secret/shop/refs: the same object is declared again (first at test.yaml: \
         document 3 (line 16))"
    );
}

#[test]
fn an_empty_input_is_an_empty_plan() {
    let plan = build(&[]).unwrap_or_else(|error| panic!("{error}"));
    assert!(plan.is_empty());
    assert_eq!(plan.step_count(), 0);
    assert_eq!(to_text(&plan), "\n0 objects in 0 steps.\n");
    assert_eq!(to_json(&plan), "{\n  \"objects\": []\n}\n");
    assert!(Scheduler::new(&plan).is_finished());
}

// ---------------------------------------------------------------------------------------------------------
// Scheduler

#[test]
fn scheduler_hands_out_objects_as_their_dependencies_finish() {
    let plan = plan_of(COMBINED);
    let namespace = index_of(&plan, "Namespace/shop");
    let crd = index_of(&plan, "CustomResourceDefinition/redis.cache.example.com");
    let job = index_of(&plan, "Job/shop/migrate");
    let redis = index_of(&plan, "Redis/shop/sessions");
    let web = index_of(&plan, "Deployment/shop/web");
    let mut scheduler = Scheduler::new(&plan);
    assert_eq!(scheduler.ready(), [namespace, crd]);
    assert_eq!(scheduler.ready(), Vec::<usize>::new(), "each object is handed out once");
    assert!(!scheduler.mark_done(job), "not ready yet");
    assert!(scheduler.mark_done(crd));
    assert_eq!(scheduler.ready(), Vec::<usize>::new(), "Redis also waits for the Namespace");
    assert!(scheduler.mark_done(namespace));
    assert_eq!(scheduler.ready(), [job, redis]);
    assert!(scheduler.mark_done(job));
    assert!(scheduler.mark_done(redis));
    assert_eq!(scheduler.ready(), Vec::<usize>::new(), "the web Deployment waits for an external Secret");
    assert_eq!(scheduler.waiting_for(web), [Target::External(0)]);
    assert!(scheduler.mark_external_done(0));
    assert!(!scheduler.mark_external_done(0));
    assert_eq!(scheduler.ready(), [web]);
    assert!(!scheduler.is_finished());
    assert!(scheduler.mark_done(web));
    assert!(!scheduler.mark_done(web));
    assert!(!scheduler.mark_done(999));
    assert!(scheduler.is_finished());
    assert_eq!(scheduler.state(web), Some(ObjectState::Done));
}

#[test]
fn a_failure_skips_everything_that_waits_for_it() {
    let yaml = [
        object("batch/v1", "Job", None, "migrate", &[]),
        object(
            "apps/v1",
            "Deployment",
            None,
            "web",
            &[("berth.dev/depends-on", "batch/namespaces/default/Job/migrate")],
        ),
        object("v1", "Service", None, "web", &[("helm.sh/weight", "1")]),
        object("v1", "ConfigMap", None, "independent", &[("helm.sh/weight", "-1")]),
    ]
    .concat();
    let plan = plan_of(&yaml);
    let mut scheduler = Scheduler::new(&plan);
    assert_eq!(scheduler.ready(), [3]);
    assert!(scheduler.mark_done(3));
    assert_eq!(scheduler.ready(), [0]);
    let skipped = scheduler.mark_failed(0);
    assert_eq!(
        skipped,
        [
            // The Service waits for the weight-0 objects, the Job among them.
            Skipped { index: 1, waited_for: Target::Object(0), cause: Target::Object(0) },
            Skipped { index: 2, waited_for: Target::Object(0), cause: Target::Object(0) },
        ]
    );
    assert!(scheduler.mark_failed(0).is_empty(), "already failed");
    assert_eq!(scheduler.ready(), Vec::<usize>::new());
    assert!(scheduler.is_finished());
    assert_eq!(scheduler.state(1), Some(ObjectState::Skipped));
    assert_eq!(scheduler.state(0), Some(ObjectState::Failed));
}

#[test]
fn a_failed_external_dependency_skips_its_dependents_transitively() {
    let yaml = [
        object("apps/v1", "Deployment", None, "web", &[("berth.dev/depends-on", "/namespaces/default/Secret/missing")]),
        object("v1", "Service", None, "web", &[("berth.dev/depends-on", "apps/namespaces/default/Deployment/web")]),
    ]
    .concat();
    let plan = plan_of(&yaml);
    let mut scheduler = Scheduler::new(&plan);
    assert!(scheduler.ready().is_empty());
    assert_eq!(
        scheduler.mark_external_failed(0),
        [
            Skipped { index: 0, waited_for: Target::External(0), cause: Target::External(0) },
            Skipped { index: 1, waited_for: Target::Object(0), cause: Target::External(0) },
        ]
    );
    assert_eq!(scheduler.external_state(0), Some(ExternalState::Failed));
    assert!(scheduler.is_finished());
}

// ---------------------------------------------------------------------------------------------------------
// Properties

fn annotation_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<String>().prop_map(Value::String),
        "[-+ 0-9a-z/,\\[\\]\"]{0,40}".prop_map(Value::String),
        any::<i64>().prop_map(|number| json!(number)),
        Just(Value::Null),
        Just(json!(["a", 1])),
        Just(json!({"a": "b"})),
        // Well-formed values, so that edges, gates and cycles between the random objects happen often.
        "-?[0-2]".prop_map(Value::String),
        "[ab]".prop_map(Value::String),
        "\\[(\"[ab]\"(, \"[ab]\")?)?\\]".prop_map(Value::String),
        "(apps|example.com)?(/namespaces/o1)?/(ConfigMap|Namespace|Deployment|Widget)/o[0-7](,/ConfigMap/o[0-7])?"
            .prop_map(Value::String),
    ]
}

fn random_object(index: usize, kind: usize, annotations: Vec<(usize, Value)>) -> Manifest {
    const KEYS: [&str; 6] =
        [WEIGHT, SYNC_WAVE, RESOURCE_GROUP, DEPENDS_ON_RESOURCE_GROUPS, CONFIG_DEPENDS_ON, BERTH_DEPENDS_ON];
    const KINDS: [(&str, &str); 4] =
        [("v1", "ConfigMap"), ("v1", "Namespace"), ("apps/v1", "Deployment"), ("example.com/v1", "Widget")];
    let (api_version, kind_name) = KINDS[kind % KINDS.len()];
    let map: serde_json::Map<String, Value> =
        annotations.into_iter().map(|(key, value)| (KEYS[key % KEYS.len()].to_string(), value)).collect();
    let object = json!({"apiVersion": api_version, "kind": kind_name,
        "metadata": {"name": format!("o{index}"), "namespace": if kind.is_multiple_of(3) { Value::Null } else { json!("o1") },
                     "annotations": map}});
    let manifests = parse_text(&object.to_string(), "random.json", true, &mut Vec::new());
    manifests.into_iter().next().unwrap_or_else(|| panic!("random object {object} does not load"))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_annotation_values_never_panic(
        objects in proptest::collection::vec(
            (0usize..4, proptest::collection::vec((0usize..6, annotation_value()), 0..5)),
            0..8,
        )
    ) {
        let manifests: Vec<Manifest> = objects
            .into_iter()
            .enumerate()
            .map(|(index, (kind, annotations))| random_object(index, kind, annotations))
            .collect();
        let built = build(&manifests);
        if let Err(error) = &built {
            prop_assert!(!error.problems.is_empty());
            let _ = error.to_string();
        }
        if let Ok(plan) = built {
            let _ = (to_text(&plan), to_json(&plan), to_dot(&plan));
            let mut scheduler = Scheduler::new(&plan);
            let mut rounds = 0;
            while !scheduler.is_finished() && rounds <= manifests.len() + plan.externals().len() + 1 {
                for index in scheduler.ready() {
                    scheduler.mark_done(index);
                }
                for external in 0..plan.externals().len() {
                    scheduler.mark_external_done(external);
                }
                rounds += 1;
            }
            prop_assert!(scheduler.is_finished());
        }
    }

    #[test]
    fn any_acyclic_graph_plans_in_an_order_respecting_every_edge(
        count in 1usize..40,
        seeds in proptest::collection::vec(any::<u64>(), 40),
        weight_steps in proptest::collection::vec(0i64..2, 40),
        shuffle in any::<u64>(),
    ) {
        // Objects are created in a hidden topological rank; every dependency points to a lower rank and weights
        // never decrease with rank, so the graph is acyclic. The input order is a shuffle of the ranks.
        let mut weights = Vec::with_capacity(count);
        let mut weight = -3i64;
        for step in weight_steps.iter().take(count) {
            weight += step;
            weights.push(weight);
        }
        let mut input_of_rank: Vec<usize> = (0..count).collect();
        let mut state = shuffle | 1;
        for position in (1..count).rev() {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17;
            input_of_rank.swap(position, (state % (position as u64 + 1)) as usize);
        }
        let kinds = ["ConfigMap", "Deployment", "Service", "Widget", "Namespace"];
        let mut edges: Vec<(usize, usize)> = Vec::new();
        let mut texts = vec![String::new(); count];
        for rank in 0..count {
            let seed = seeds[rank];
            let mut references = Vec::new();
            if rank > 0 {
                for pick in 0..(seed % 3) {
                    let target = ((seed >> (8 * (pick + 1))) % rank as u64) as usize;
                    if !edges.contains(&(rank, target)) {
                        edges.push((rank, target));
                        // Each reference in the form its kind's scope takes (`Deployment` and `Widget` of the
                        // core group are no built-in kinds: either form finds them).
                        let kind = kinds[target % kinds.len()];
                        let namespace = if kind == "Namespace" { "" } else { "/namespaces/default" };
                        references.push(format!("{namespace}/{kind}/r{target}"));
                    }
                }
            }
            let mut annotations: Vec<(&str, String)> = vec![("helm.sh/weight", weights[rank].to_string())];
            if !references.is_empty() {
                annotations.push(("berth.dev/depends-on", references.join(",")));
            }
            let annotations: Vec<(&str, &str)> = annotations.iter().map(|(key, value)| (*key, value.as_str())).collect();
            texts[input_of_rank[rank]] = object("v1", kinds[rank % kinds.len()], None, &format!("r{rank}"), &annotations);
        }
        let manifests = load(&texts.concat());
        let plan = build(&manifests).map_err(|error| TestCaseError::fail(error.to_string()))?;
        prop_assert_eq!(plan.order().len(), count);
        let position = |rank: usize| plan.position(input_of_rank[rank]).unwrap_or(usize::MAX);
        for (from, to) in &edges {
            prop_assert!(position(*to) < position(*from), "r{} must follow r{}", from, to);
        }
        for a in 0..count {
            for b in 0..count {
                if weights[a] < weights[b] {
                    prop_assert!(position(a) < position(b), "weight {} before {}", weights[a], weights[b]);
                }
            }
        }
        // Every listed dependency is placed earlier, and the scheduler hands out each object once, after its
        // dependencies.
        for index in 0..count {
            for dependency in plan.dependencies(index) {
                if let Target::Object(target) = dependency.target {
                    prop_assert!(plan.position(target) < plan.position(index));
                }
            }
        }
        let mut scheduler = Scheduler::new(&plan);
        let mut done = vec![false; count];
        let mut handed_out = 0;
        loop {
            let ready = scheduler.ready();
            if ready.is_empty() { break; }
            for index in ready {
                for dependency in plan.dependencies(index) {
                    if let Target::Object(target) = dependency.target {
                        prop_assert!(done[target]);
                    }
                }
                done[index] = true;
                handed_out += 1;
                prop_assert!(scheduler.mark_done(index));
            }
        }
        prop_assert_eq!(handed_out, count);
        prop_assert!(scheduler.is_finished());
    }
}

#[test]
fn objects_defaulted_into_a_namespace_of_the_input_wait_for_it() {
    let yaml = [
        object("v1", "ConfigMap", None, "settings", &[]),
        object("v1", "Namespace", None, "team-a", &[]),
        object("rbac.authorization.k8s.io/v1", "ClusterRole", None, "reader", &[]),
    ]
    .concat();
    let manifests = load(&yaml);
    // As the cluster will have them: the ConfigMap lands in `team-a` (`-n team-a`); the others are cluster-scoped.
    let plan = build_in_namespaces(&manifests, vec![Some("team-a"), None, None], &|_, _| None).expect("plan");
    assert_eq!(plan.dependencies(0).len(), 1, "the ConfigMap waits for its Namespace");
    assert_eq!(plan.dependencies(0)[0].target, Target::Object(1));
    assert!(plan.dependencies(2).is_empty(), "a cluster-scoped object waits for nothing");
    // Without the defaulted namespaces nothing links them.
    assert!(build(&manifests).expect("plan").dependencies(0).is_empty());
}

#[test]
fn an_object_given_with_and_without_its_default_namespace_is_declared_twice() {
    let yaml =
        [object("v1", "ConfigMap", None, "settings", &[]), object("v1", "ConfigMap", Some("default"), "settings", &[])]
            .concat();
    let manifests = load(&yaml);
    let error =
        build_in_namespaces(&manifests, vec![Some("default"), Some("default")], &|_, _| None).expect_err("a duplicate");
    assert!(matches!(error.problems[..], [PlanProblem::DuplicateObject { index: 1, .. }]), "{error}");
    assert!(build(&manifests).is_ok(), "without defaulting the plan cannot tell");
}

// ---------------------------------------------------------------------------------------------------------
// Implicit: admission webhooks

/// A cert-manager-like set: its webhook (Deployment, Service, configuration), the Issuer CRD, Issuers in a
/// plain namespace and in one the webhook's namespace selector leaves out, and objects it does not match.
fn webhook_set(webhook: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Namespace\nmetadata: {{name: cert-manager}}\n---\n\
         apiVersion: v1\nkind: Namespace\nmetadata: {{name: exempt, labels: {{cert-manager.io/disable-validation: 'true'}}}}\n---\n\
         apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {{name: issuers.cert-manager.io}}\n\
         spec: {{group: cert-manager.io, names: {{kind: Issuer, plural: issuers}}, scope: Namespaced}}\n---\n\
         apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: cert-manager-webhook, namespace: cert-manager}}\n\
         spec: {{template: {{metadata: {{labels: {{app: webhook, tier: x}}}}}}}}\n---\n\
         apiVersion: v1\nkind: Service\nmetadata: {{name: cert-manager-webhook, namespace: cert-manager}}\n\
         spec: {{selector: {{app: webhook}}}}\n---\n\
         apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\n\
         metadata: {{name: cert-manager-webhook}}\n{webhook}\n---\n\
         apiVersion: cert-manager.io/v1\nkind: Issuer\nmetadata: {{name: letsencrypt, namespace: shop}}\n---\n\
         apiVersion: cert-manager.io/v1\nkind: Issuer\nmetadata: {{name: skipped, namespace: exempt}}\n---\n\
         apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: settings, namespace: shop}}\n"
    )
}

const CERT_MANAGER_WEBHOOK: &str = "webhooks:\n- name: webhook.cert-manager.io\n  failurePolicy: Fail\n  \
    namespaceSelector: {matchExpressions: [{key: cert-manager.io/disable-validation, operator: NotIn, values: ['true']}]}\n  \
    rules: [{apiGroups: [cert-manager.io, acme.cert-manager.io], apiVersions: [v1], operations: [CREATE, UPDATE], resources: ['*/*']}]\n  \
    clientConfig: {service: {name: cert-manager-webhook, namespace: cert-manager, path: /validate}}";

#[test]
fn objects_a_webhook_matches_wait_for_the_workload_serving_it() {
    let plan = plan_of(&webhook_set(CERT_MANAGER_WEBHOOK));
    let webhook_edge = "Deployment/cert-manager/cert-manager-webhook: implicit: admission webhook webhook.cert-manager.io \
                        is served by Deployment/cert-manager/cert-manager-webhook";
    assert_eq!(
        dependencies(&plan, "Issuer/shop/letsencrypt"),
        [
            "CustomResourceDefinition/issuers.cert-manager.io: implicit: CustomResourceDefinition before its custom resources",
            webhook_edge,
        ]
    );
    assert!(
        !dependencies(&plan, "Issuer/exempt/skipped").iter().any(|edge| edge.contains("webhook")),
        "namespace selector"
    );
    assert!(dependencies(&plan, "ConfigMap/shop/settings").is_empty(), "rules match cert-manager.io only");
    assert_eq!(
        dependencies(&plan, "Deployment/cert-manager/cert-manager-webhook"),
        ["Namespace/cert-manager: implicit: Namespace before the objects in it"]
    );
    let position = |name: &str| order(&plan).iter().position(|entry| entry == name);
    assert!(position("Deployment/cert-manager/cert-manager-webhook") < position("Issuer/shop/letsencrypt"));
}

#[test]
fn webhook_matching_follows_rules_selectors_and_the_service() {
    let issuer_waits = |webhook: &str| {
        let plan = plan_of(&webhook_set(webhook));
        dependencies(&plan, "Issuer/shop/letsencrypt").iter().any(|edge| edge.contains("admission webhook"))
    };
    let rules = |rules: &str, extra: &str| {
        format!(
            "webhooks:\n- name: w.example.com\n  rules: [{rules}]\n  clientConfig: {{service: {{name: cert-manager-webhook, namespace: cert-manager}}}}\n{extra}"
        )
    };
    let all = "{apiGroups: ['*'], apiVersions: ['*'], operations: ['*'], resources: ['*']}";
    let cases = [
        (rules(all, ""), true),
        (rules("{apiGroups: ['*'], apiVersions: ['*'], operations: [DELETE], resources: ['*']}", ""), false),
        (
            rules("{apiGroups: [cert-manager.io], apiVersions: ['*'], operations: [CREATE], resources: [issuers]}", ""),
            true,
        ),
        (
            rules(
                "{apiGroups: [cert-manager.io], apiVersions: ['*'], operations: [CREATE], resources: [certificates]}",
                "",
            ),
            false,
        ),
        (
            rules(
                "{apiGroups: [cert-manager.io], apiVersions: ['*'], operations: [CREATE], resources: [issuers/status]}",
                "",
            ),
            false,
        ),
        (
            rules("{apiGroups: ['*'], apiVersions: ['*'], operations: ['*'], resources: ['*'], scope: Cluster}", ""),
            false,
        ),
        (rules(all, "  objectSelector: {matchLabels: {validate: 'yes'}}"), false),
        (rules(all, "  namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: shop}}"), true),
        (rules(all, "  namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: other}}"), false),
        (rules(all, "").replace("name: cert-manager-webhook,", "name: missing-service,"), false),
    ];
    for (webhook, expected) in cases {
        assert_eq!(issuer_waits(&webhook), expected, "{webhook}");
    }
}

#[test]
fn a_webhook_on_everything_leaves_out_its_own_workload_and_what_it_waits_for() {
    let everything = "webhooks:\n- name: all.example.com\n  \
        rules: [{apiGroups: ['*'], apiVersions: ['*'], operations: ['*'], resources: ['*/*']}]\n  \
        clientConfig: {service: {name: cert-manager-webhook, namespace: cert-manager}}";
    let plan = plan_of(&webhook_set(everything));
    let webhook_edges = |name: &str| dependencies(&plan, name).iter().filter(|edge| edge.contains("webhook")).count();
    for exempt in [
        "Deployment/cert-manager/cert-manager-webhook",
        "Service/cert-manager/cert-manager-webhook",
        "ValidatingWebhookConfiguration/cert-manager-webhook",
        "Namespace/cert-manager",
    ] {
        assert_eq!(webhook_edges(exempt), 0, "{exempt}");
    }
    for matched in ["Namespace/exempt", "CustomResourceDefinition/issuers.cert-manager.io", "ConfigMap/shop/settings"] {
        assert_eq!(webhook_edges(matched), 1, "{matched}");
    }
}
