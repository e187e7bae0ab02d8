//! JSON as Go's `encoding/json` writes Helm's structs: fields in declaration order (not sorted, as maps are),
//! empty `omitempty` fields left out, `<`, `>`, `&` escaped. For the bytes Helm hashes and stores: the
//! `Chart.lock` digest (`chart.Dependency`) and an OCI chart's config blob (`chart.Metadata`). Pure.

use berth_chart::chart::{Dependency, Metadata};

/// A JSON string as Go's encoder writes it.
pub fn string(text: &str) -> String {
    let mut out = serde_json::to_string(text).unwrap_or_default();
    for (from, to) in
        [("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u{2028}", "\\u2028"), ("\u{2029}", "\\u2029")]
    {
        out = out.replace(from, to);
    }
    out
}

/// An object of already-encoded fields, in order.
struct Object(Vec<(&'static str, String)>);

impl Object {
    fn text(&mut self, name: &'static str, value: &str, omit_empty: bool) {
        if !(omit_empty && value.is_empty()) {
            self.0.push((name, string(value)));
        }
    }

    fn strings(&mut self, name: &'static str, values: &[String]) {
        if !values.is_empty() {
            self.0
                .push((name, format!("[{}]", values.iter().map(|value| string(value)).collect::<Vec<_>>().join(","))));
        }
    }

    fn raw(&mut self, name: &'static str, value: String) {
        self.0.push((name, value));
    }

    fn finish(self) -> String {
        let fields: Vec<String> = self.0.into_iter().map(|(name, value)| format!("{}:{value}", string(name))).collect();
        format!("{{{}}}", fields.join(","))
    }
}

/// `json.Marshal` of one template value (a Go map sorts its keys; Sprig's `toJson` is the same encoder).
fn value(value: &berth_template::Value) -> String {
    let functions = berth_template::helm_functions();
    match functions.get("toJson").map(|to_json| to_json(std::slice::from_ref(value))) {
        Some(Ok(berth_template::Value::String(text))) => text.to_string(),
        _ => "null".to_string(),
    }
}

/// `chart.Dependency`.
pub fn dependency(dependency: &Dependency) -> String {
    let mut object = Object(Vec::new());
    object.text("name", &dependency.name, false);
    object.text("version", &dependency.version, true);
    object.text("repository", &dependency.repository, false);
    object.text("condition", &dependency.condition, true);
    object.strings("tags", &dependency.tags);
    if dependency.enabled {
        object.raw("enabled", "true".to_string());
    }
    if !dependency.import_values.is_empty() {
        object.raw(
            "import-values",
            format!("[{}]", dependency.import_values.iter().map(value).collect::<Vec<_>>().join(",")),
        );
    }
    object.text("alias", &dependency.alias, true);
    object.finish()
}

/// `chart.Metadata`.
pub fn metadata(metadata: &Metadata) -> String {
    let mut object = Object(Vec::new());
    object.text("name", &metadata.name, true);
    object.text("home", &metadata.home, true);
    object.strings("sources", &metadata.sources);
    object.text("version", &metadata.version, true);
    object.text("description", &metadata.description, true);
    object.strings("keywords", &metadata.keywords);
    if !metadata.maintainers.is_empty() {
        let maintainers: Vec<String> = metadata
            .maintainers
            .iter()
            .map(|maintainer| {
                let mut entry = Object(Vec::new());
                entry.text("name", &maintainer.name, true);
                entry.text("email", &maintainer.email, true);
                entry.text("url", &maintainer.url, true);
                entry.finish()
            })
            .collect();
        object.raw("maintainers", format!("[{}]", maintainers.join(",")));
    }
    object.text("icon", &metadata.icon, true);
    object.text("apiVersion", &metadata.api_version, true);
    object.text("condition", &metadata.condition, true);
    object.text("tags", &metadata.tags, true);
    object.text("appVersion", &metadata.app_version, true);
    if metadata.deprecated {
        object.raw("deprecated", "true".to_string());
    }
    if !metadata.annotations.is_empty() {
        let mut annotations: Vec<&(String, String)> = metadata.annotations.iter().collect();
        annotations.sort();
        let entries: Vec<String> =
            annotations.iter().map(|(key, value)| format!("{}:{}", string(key), string(value))).collect();
        object.raw("annotations", format!("{{{}}}", entries.join(",")));
    }
    object.text("kubeVersion", &metadata.kube_version, true);
    if !metadata.dependencies.is_empty() {
        object.raw(
            "dependencies",
            format!("[{}]", metadata.dependencies.iter().map(dependency).collect::<Vec<_>>().join(",")),
        );
    }
    object.text("type", &metadata.chart_type, true);
    object.finish()
}

/// `[2][]*chart.Dependency{a, b}`.
pub fn dependency_pair(a: &[Dependency], b: &[Dependency]) -> String {
    let list = |items: &[Dependency]| format!("[{}]", items.iter().map(dependency).collect::<Vec<_>>().join(","));
    format!("[{},{}]", list(a), list(b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use berth_template::Value;

    #[test]
    fn struct_fields_keep_their_order() {
        let dependency = Dependency {
            name: "sub".into(),
            version: "^1".into(),
            repository: "https://r?a=1&b=2".into(),
            tags: vec!["t".into()],
            import_values: vec![
                Value::map([("parent", Value::from("p")), ("child", Value::from("c"))]),
                Value::from("x"),
            ],
            alias: "s".into(),
            ..Dependency::default()
        };
        assert_eq!(
            super::dependency(&dependency),
            r#"{"name":"sub","version":"^1","repository":"https://r?a=1\u0026b=2","tags":["t"],"import-values":[{"child":"c","parent":"p"},"x"],"alias":"s"}"#
        );
        let metadata = Metadata {
            name: "app".into(),
            version: "1.0.0".into(),
            api_version: "v2".into(),
            annotations: vec![("b".into(), "2".into()), ("a".into(), "1".into())],
            ..Metadata::default()
        };
        assert_eq!(
            super::metadata(&metadata),
            r#"{"name":"app","version":"1.0.0","apiVersion":"v2","annotations":{"a":"1","b":"2"}}"#
        );
    }
}
