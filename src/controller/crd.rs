//! The CustomResourceDefinition `releases.berth.dev`, as `berth controller crd` prints it and `deploy/crd.yaml`
//! holds it. It is written by hand (readable, with descriptions) and a test holds it to the API types in
//! `api.rs`: every field the types write is in the schema with the same JSON type, and every field of the
//! schema is one the types know.

use serde_json::Value;

/// The CRD as YAML.
pub const CRD_YAML: &str = include_str!("crd.yaml");

/// The CRD as JSON.
///
/// # Errors
/// The YAML parser's message; the test below makes sure this does not happen.
pub fn crd() -> Result<Value, String> {
    serde_saphyr::from_str::<Value>(CRD_YAML).map_err(|error| error.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::controller::api::*;
    use serde_json::{Map, json};

    /// A spec and a status with every field set, so serializing them shows every field the types have.
    fn full_release() -> Value {
        let spec = ReleaseSpec {
            chart: ChartSource {
                config_map_ref: Some(ConfigMapChartReference { name: "c".into(), key: Some("chart.tgz".into()) }),
                oci: Some("oci://r/c".into()),
                repository: Some("https://charts.example".into()),
                name: Some("c".into()),
                version: Some("1.x".into()),
                tag: Some("1.0.0".into()),
                digest: Some("sha256:0".into()),
                secret_ref: Some(LocalObjectReference { name: "s".into() }),
                cert_secret_ref: Some(LocalObjectReference { name: "t".into() }),
                plain_http: true,
                insecure_skip_tls_verify: true,
            },
            values: Some(Map::from_iter([("a".to_string(), json!({"free": ["form"]}))])),
            values_from: vec![ValuesReference {
                kind: ValuesKind::Secret,
                name: "v".into(),
                key: Some("values.yaml".into()),
                optional: true,
            }],
            release_name: Some("r".into()),
            target_namespace: Some("t".into()),
            timeout: Some("1m".into()),
            hook_timeout: Some("30s".into()),
            wait_for_jobs: Some(true),
            rollback_on_failure: true,
            retries: Some(1),
            max_history: Some(3),
            depends_on: vec![DependencyReference { name: "d".into(), namespace: Some("n".into()) }],
            suspend: true,
            chart_ref: Some(FluxChartReference {
                kind: "OCIRepository".into(),
                name: "f".into(),
                namespace: Some("n".into()),
                api_version: Some("source.toolkit.fluxcd.io/v1".into()),
            }),
            service_account_name: Some("deployer".into()),
            install: Some(InstallSpec {
                adopt: true,
                remediation: Some(InstallRemediation {
                    retries: Some(-1),
                    ignore_test_failures: Some(true),
                    remediate_last_failure: Some(true),
                }),
                strategy: Some(RolloutStrategy {
                    name: RolloutStrategyName::RetryOnFailure,
                    retry_interval: Some("1m".into()),
                }),
                disable_wait: true,
                disable_wait_for_jobs: true,
                disable_hooks: true,
                crds: Some(CrdPolicy::CreateReplace),
                create_namespace: true,
                replace: true,
            }),
            upgrade: Some(UpgradeSpec {
                remediation: Some(UpgradeRemediation {
                    retries: Some(2),
                    ignore_test_failures: Some(false),
                    remediate_last_failure: Some(false),
                    strategy: Some(RemediationStrategy::Uninstall),
                }),
                strategy: Some(RolloutStrategy {
                    name: RolloutStrategyName::RemediateOnFailure,
                    retry_interval: Some("1m".into()),
                }),
                disable_wait: true,
                disable_wait_for_jobs: true,
                disable_hooks: true,
                crds: Some(CrdPolicy::Skip),
                force: true,
                preserve_values: true,
                cleanup_on_fail: true,
            }),
            test: Some(TestSpec {
                enable: true,
                timeout: Some("1m".into()),
                ignore_failures: true,
                filters: vec![TestFilter { name: "smoke".into(), exclude: true }],
            }),
            uninstall: Some(UninstallSpec {
                keep_history: true,
                disable_hooks: true,
                timeout: Some("1m".into()),
                deletion_propagation: Some(DeletionPropagation::Orphan),
                disable_wait: true,
            }),
            storage_namespace: Some("records".into()),
            post_renderers: vec![PostRenderer {
                kustomize: Some(KustomizePostRenderer {
                    patches: vec![KustomizePatch { patch: "kind: Deployment".into(), target: Some(selector()) }],
                    patches_strategic_merge: vec![json!({"kind": "Deployment"})],
                    patches_json6902: vec![Json6902Patch {
                        target: selector(),
                        patch: vec![json!({"op": "remove", "path": "/spec/replicas"})],
                    }],
                    images: vec![KustomizeImage {
                        name: "nginx".into(),
                        new_name: Some("registry.example/nginx".into()),
                        new_tag: Some("1.29".into()),
                        digest: Some("sha256:0".into()),
                    }],
                }),
            }],
            interval: Some("5m".into()),
            drift_detection: Some(DriftDetection {
                mode: DriftDetectionMode::Warn,
                ignore: vec![IgnoreRule { paths: vec!["/spec/replicas".into()], target: Some(selector()) }],
            }),
            rollback: Some(RollbackSpec {
                timeout: Some("1m".into()),
                disable_wait: true,
                disable_wait_for_jobs: true,
                disable_hooks: true,
                recreate: true,
                force: true,
                cleanup_on_fail: true,
            }),
        };
        let attempt = Attempt {
            generation: 1,
            revision: 1,
            action: "install".into(),
            chart_name: "c".into(),
            chart_version: "1.0.0".into(),
            digest: "sha256:0".into(),
            outcome: AttemptOutcome::Succeeded,
            release_status: "deployed".into(),
            message: "m".into(),
            started_at: "t".into(),
            finished_at: "t".into(),
        };
        let status = ReleaseStatus {
            observed_generation: Some(1),
            conditions: vec![Condition {
                condition_type: "Ready".into(),
                status: "True".into(),
                observed_generation: Some(1),
                last_transition_time: "t".into(),
                reason: "r".into(),
                message: "m".into(),
            }],
            release_name: Some("r".into()),
            target_namespace: Some("t".into()),
            storage_namespace: Some("s".into()),
            current_revision: Some(1),
            last_attempted_generation: Some(1),
            last_attempted_revision: Some(1),
            last_attempted_digest: Some("sha256:0".into()),
            last_attempted_outcome: Some(AttemptOutcome::Succeeded),
            failures: 1,
            install_failures: 1,
            upgrade_failures: 1,
            last_attempted_release_action: Some(Action::Upgrade),
            history: vec![attempt],
            last_handled_reconcile_at: Some("t".into()),
            last_handled_force_at: Some("t".into()),
        };
        json!({"spec": spec, "status": status})
    }

    fn selector() -> PatchSelector {
        PatchSelector {
            group: Some("apps".into()),
            version: Some("v1".into()),
            kind: Some("Deployment".into()),
            name: Some("web".into()),
            namespace: Some("shop".into()),
            label_selector: Some("app=web".into()),
            annotation_selector: Some("team".into()),
        }
    }

    fn json_type(value: &Value) -> &'static str {
        match value {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(_) => "integer",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        }
    }

    /// Every field of `value` is in `schema` with its type; returns the problems.
    fn fields_in_schema(value: &Value, schema: &Value, path: &str, problems: &mut Vec<String>) {
        let wanted = schema.get("type").and_then(Value::as_str).unwrap_or("?");
        if json_type(value) != wanted {
            problems.push(format!("{path}: the types write {}, the schema says {wanted}", json_type(value)));
            return;
        }
        if schema.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true)) {
            return;
        }
        match value {
            Value::Object(map) => {
                for (key, item) in map {
                    match schema.pointer(&format!("/properties/{key}")) {
                        Some(property) => fields_in_schema(item, property, &format!("{path}.{key}"), problems),
                        None => problems.push(format!("{path}.{key}: not in the schema")),
                    }
                }
            }
            Value::Array(items) => {
                for item in items {
                    fields_in_schema(item, &schema["items"], &format!("{path}[]"), problems);
                }
            }
            _ => {}
        }
    }

    /// Every property of `schema` is a field of `value`; returns the problems.
    fn schema_in_fields(schema: &Value, value: &Value, path: &str, problems: &mut Vec<String>) {
        if schema.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true)) {
            return;
        }
        if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
            for (key, property) in properties {
                match value.get(key) {
                    Some(item) => schema_in_fields(property, item, &format!("{path}.{key}"), problems),
                    None => problems.push(format!("{path}.{key}: in the schema, but the types have no such field")),
                }
            }
        }
        if let (Some(items), Some(first)) = (schema.get("items"), value.as_array().and_then(|items| items.first())) {
            schema_in_fields(items, first, &format!("{path}[]"), problems);
        }
    }

    fn root_schema() -> Value {
        let crd = crd().expect("the CRD parses");
        crd.pointer("/spec/versions/0/schema/openAPIV3Schema").cloned().expect("a schema")
    }

    #[test]
    fn the_types_and_the_schema_have_the_same_fields() {
        let schema = root_schema();
        let full = full_release();
        let mut problems = Vec::new();
        for part in ["spec", "status"] {
            fields_in_schema(&full[part], &schema["properties"][part], part, &mut problems);
            schema_in_fields(&schema["properties"][part], &full[part], part, &mut problems);
        }
        assert!(problems.is_empty(), "{problems:#?}");
    }

    #[test]
    fn the_checks_catch_a_field_missing_on_either_side() {
        let schema = root_schema();
        let mut extra = full_release();
        extra["spec"]["intervall"] = json!("1m");
        let mut problems = Vec::new();
        fields_in_schema(&extra["spec"], &schema["properties"]["spec"], "spec", &mut problems);
        assert_eq!(problems, vec!["spec.intervall: not in the schema".to_string()]);
        let mut missing = full_release();
        missing["status"].as_object_mut().map(|status| status.remove("failures"));
        let mut problems = Vec::new();
        schema_in_fields(&schema["properties"]["status"], &missing["status"], "status", &mut problems);
        assert_eq!(problems, vec!["status.failures: in the schema, but the types have no such field".to_string()]);
    }

    #[test]
    fn names_scope_and_subresources_are_the_contracts() {
        let crd = crd().expect("the CRD parses");
        assert_eq!(crd["metadata"]["name"], format!("{PLURAL}.{GROUP}"));
        assert_eq!(crd["spec"]["group"], GROUP);
        assert_eq!(crd["spec"]["names"]["kind"], KIND);
        assert_eq!(crd["spec"]["scope"], "Namespaced");
        let version = &crd["spec"]["versions"][0];
        assert_eq!(version["name"], VERSION);
        assert_eq!(version["subresources"]["status"], json!({}));
        let columns: Vec<&str> = version["additionalPrinterColumns"]
            .as_array()
            .expect("printer columns")
            .iter()
            .filter_map(|column| column["name"].as_str())
            .collect();
        assert_eq!(columns, ["Ready", "Status", "Revision", "Age"]);
    }
}
