//! `berth plan` end to end: the real binary on the examples in `examples/plan/` and on inline input, whole
//! stdout and stderr compared, and exit codes (0 for a valid plan, 2 for bad input or a cycle).

use crate::run::{berth, stderr, stdout};
use serde_json::Value;

/// Runs berth and checks the exit code and the whole of both streams.
fn assert_run(args: &[&str], stdin: Option<&str>, code: i32, expected_stdout: &str, expected_stderr: &str) {
    let output = berth(args, stdin);
    assert_eq!(stdout(&output), expected_stdout, "stdout of berth {args:?}");
    assert_eq!(stderr(&output), expected_stderr, "stderr of berth {args:?}");
    assert_eq!(output.status.code(), Some(code), "exit code of berth {args:?}");
}

#[test]
fn migration_job_goes_before_the_deployment() {
    assert_run(
        &["plan", "-f", "examples/plan/migration.yaml"],
        None,
        0,
        "\
1. Namespace/shop  (step 1)
2. ConfigMap/shop/settings  (step 2)
     waits for Namespace/shop (implicit: Namespace before the objects in it)
3. Service/shop/web  (step 2)
     waits for Namespace/shop (implicit: Namespace before the objects in it)
4. Job/shop/migrate  (step 3)
     waits for Namespace/shop (implicit: Namespace before the objects in it)
     waits for ConfigMap/shop/settings (config.kubernetes.io/depends-on)
5. Deployment/shop/web  (step 4)
     waits for Namespace/shop (implicit: Namespace before the objects in it)
     waits for Job/shop/migrate (berth.dev/depends-on)

5 objects in 4 steps.
",
        "",
    );
}

#[test]
fn weights_and_sync_waves_are_one_scale() {
    assert_run(
        &["plan", "-f", "examples/plan/weights.yaml", "-o", "text"],
        None,
        0,
        "\
1. Secret/waves/api-token  (step 1)
2. ConfigMap/waves/feature-flags  (step 2)
     waits for Secret/waves/api-token (helm.sh/weight: 0 after -1)
3. Deployment/waves/api  (step 3)
     waits for ConfigMap/waves/feature-flags (argocd.argoproj.io/sync-wave: 1 after 0)
4. Ingress/waves/api  (step 4)
     waits for Deployment/waves/api (helm.sh/weight: 2 after 1)

4 objects in 4 steps.
",
        "",
    );
}

#[test]
fn resource_groups_and_external_dependencies() {
    assert_run(
        &["plan", "-f", "examples/plan/resource-groups.yaml", "examples/plan/external.yaml"],
        None,
        0,
        "\
1. Service/groups/postgres  (step 1)
2. Deployment/payments/billing  (step 1)
     waits for Secret/payments/db-credentials, external (berth.dev/depends-on)
3. StatefulSet/groups/postgres  (step 1)
4. Deployment/groups/orders  (step 2)
     waits for Service/groups/postgres (helm.sh/depends-on/resource-groups: database)
     waits for StatefulSet/groups/postgres (helm.sh/depends-on/resource-groups: database)
5. CronJob/groups/report  (step 3)
     waits for Service/groups/postgres (helm.sh/depends-on/resource-groups: database)
     waits for StatefulSet/groups/postgres (helm.sh/depends-on/resource-groups: database)
     waits for Deployment/groups/orders (helm.sh/depends-on/resource-groups: app)

5 objects in 3 steps.
1 external dependency, not in the input; berth waits until each exists and is Current:
  /namespaces/payments/Secret/db-credentials, for Deployment/payments/billing
",
        "",
    );
}

#[test]
fn crd_and_its_custom_resource_as_json() {
    assert_run(
        &["plan", "-f", "examples/plan/crd.yaml", "-o", "json"],
        None,
        0,
        r#"{
  "objects": [
    {
      "apiVersion": "apiextensions.k8s.io/v1",
      "kind": "CustomResourceDefinition",
      "namespace": "",
      "name": "widgets.example.com",
      "dependsOn": []
    },
    {
      "apiVersion": "example.com/v1",
      "kind": "Widget",
      "namespace": "default",
      "name": "gadget",
      "dependsOn": [
        {
          "apiVersion": "apiextensions.k8s.io/v1",
          "kind": "CustomResourceDefinition",
          "namespace": "",
          "name": "widgets.example.com",
          "reason": "implicit: CustomResourceDefinition before its custom resources"
        }
      ]
    }
  ]
}
"#,
        "",
    );
}

#[test]
fn external_dependency_as_json() {
    assert_run(
        &["plan", "-f", "examples/plan/external.yaml", "-o", "json"],
        None,
        0,
        r#"{
  "objects": [
    {
      "apiVersion": "apps/v1",
      "kind": "Deployment",
      "namespace": "payments",
      "name": "billing",
      "dependsOn": [
        {
          "apiVersion": "v1",
          "kind": "Secret",
          "namespace": "payments",
          "name": "db-credentials",
          "reason": "berth.dev/depends-on (external: not in the input)"
        }
      ]
    }
  ]
}
"#,
        "",
    );
}

#[test]
fn dot_output_is_a_labelled_digraph() {
    assert_run(
        &["plan", "-f", "examples/plan/migration.yaml", "-o", "dot"],
        None,
        0,
        r#"digraph plan {
  rankdir=LR;
  node [shape=box];
  o1 [label="Namespace/shop\nstep 1"];
  o2 [label="ConfigMap/shop/settings\nstep 2"];
  o3 [label="Service/shop/web\nstep 2"];
  o4 [label="Job/shop/migrate\nstep 3"];
  o5 [label="Deployment/shop/web\nstep 4"];
  o1 -> o2 [label="implicit: Namespace before the objects in it"];
  o1 -> o3 [label="implicit: Namespace before the objects in it"];
  o1 -> o4 [label="implicit: Namespace before the objects in it"];
  o2 -> o4 [label="config.kubernetes.io/depends-on"];
  o1 -> o5 [label="implicit: Namespace before the objects in it"];
  o4 -> o5 [label="berth.dev/depends-on"];
}
"#,
        "",
    );
}

#[test]
fn every_example_together_keeps_the_json_contract() {
    let output = berth(&["plan", "-f", "examples/plan/", "-o", "json"], None);
    assert_eq!(output.status.code(), Some(0), "stderr: {}", stderr(&output));
    let document: Value = serde_json::from_str(&stdout(&output)).expect("stdout is JSON");
    let keys = |value: &Value| -> Vec<String> {
        value.as_object().map(|object| object.keys().cloned().collect()).unwrap_or_default()
    };
    // serde_json sorts keys here; the order on stdout is checked by the whole-output tests above.
    assert_eq!(keys(&document), ["objects"]);
    let objects = document["objects"].as_array().expect("objects is a list");
    assert_eq!(objects.len(), 16);
    let mut placed: Vec<(String, String, String)> = Vec::new();
    for object in objects {
        assert_eq!(keys(object), ["apiVersion", "dependsOn", "kind", "name", "namespace"], "{object}");
        for dependency in object["dependsOn"].as_array().expect("dependsOn is a list") {
            assert_eq!(keys(dependency), ["apiVersion", "kind", "name", "namespace", "reason"], "{dependency}");
            let identity =
                |value: &Value| (value["kind"].to_string(), value["namespace"].to_string(), value["name"].to_string());
            let external =
                dependency["reason"].as_str().is_some_and(|reason| reason.ends_with("(external: not in the input)"));
            assert!(external || placed.contains(&identity(dependency)), "{dependency} is not placed before {object}");
        }
        placed.push((object["kind"].to_string(), object["namespace"].to_string(), object["name"].to_string()));
    }
}

const CYCLE: &str = "\
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  namespace: shop
  annotations:
    config.kubernetes.io/depends-on: apps/namespaces/shop/Deployment/web
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
  annotations:
    berth.dev/depends-on: batch/namespaces/shop/Job/migrate
";

#[test]
fn a_cycle_is_rejected_with_its_whole_path() {
    assert_run(
        &["plan", "-f", "-", "-o", "json"],
        Some(CYCLE),
        2,
        "",
        "\
error: cannot plan the order of writes; nothing was applied
  Caused by: dependency cycle: Job/shop/migrate -> Deployment/shop/web -> Job/shop/migrate
               Job/shop/migrate (<stdin>: document 1 (line 1)) waits for Deployment/shop/web (config.kubernetes.io/depends-on)
               Deployment/shop/web (<stdin>: document 2 (line 9)) waits for Job/shop/migrate (berth.dev/depends-on)
hint: remove one of these dependencies or change a weight to break the cycle
",
    );
}

#[test]
fn malformed_annotations_are_all_rejected() {
    let input = "\
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  annotations:
    helm.sh/weight: first
    helm.sh/depends-on/resource-groups: '[\"databse\"]'
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
  annotations:
    helm.sh/resource-group: database
    config.kubernetes.io/depends-on: v1/ConfigMap
";
    assert_run(
        &["plan", "-f", "-"],
        Some(input),
        2,
        "",
        "\
error: cannot plan the order of writes; nothing was applied
  Caused by: <stdin>: document 1 (line 1): ConfigMap/settings: annotation `helm.sh/weight`: `first` is not an integer; expected one such as \"-1\" or \"5\"
             <stdin>: document 1 (line 1): ConfigMap/settings: annotation `helm.sh/depends-on/resource-groups`: no object declares resource group `databse`; declared groups: database
             <stdin>: document 2 (line 9): StatefulSet/db: annotation `config.kubernetes.io/depends-on`: `v1/ConfigMap`: expected 3 or 5 fields separated by `/`, found 2: `<group>/<Kind>/<name>` or `<group>/namespaces/<namespace>/<Kind>/<name>`
",
    );
}

#[test]
fn cluster_lookup_without_a_cluster_exits_two() {
    let output =
        berth(&["plan", "-f", "examples/plan/external.yaml", "--cluster", "--kubeconfig", "examples/plan/none"], None);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(stdout(&output), "");
    assert!(
        stderr(&output).starts_with(
            "error: cannot connect to the cluster\n  Caused by: cannot read kubeconfig `examples/plan/none`"
        ),
        "{}",
        stderr(&output)
    );
}

#[test]
fn unreadable_input_exits_two() {
    assert_run(
        &["plan", "-f", "examples/plan/missing.yaml"],
        None,
        2,
        "",
        "error: cannot load manifests\n  Caused by: examples/plan/missing.yaml: cannot read: no such file or directory\n",
    );
}

#[test]
fn cluster_lookup_reports_external_dependencies_status() {
    let output = berth(&["plan", "-f", "examples/plan/external.yaml", "--cluster", "--sim"], None);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        text.ends_with("External dependencies in the cluster:\n  /namespaces/payments/Secret/db-credentials: NotFound (Resource not found)\n"),
        "{text}"
    );
    let output = berth(&["plan", "-f", "examples/plan/external.yaml", "--cluster", "--sim", "-o", "json"], None);
    let document: Value = serde_json::from_str(&stdout(&output)).expect("JSON");
    assert_eq!(document["externals"][0]["status"], "NotFound");
    assert!(document["objects"].is_array());
}
