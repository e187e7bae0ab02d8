//! JSON as Go's `encoding/json` writes Helm's structs: fields in declaration order (not sorted, as maps are),
//! empty `omitempty` fields left out, `<`, `>`, `&` escaped. For the bytes Helm hashes and stores: the
//! `Chart.lock` digest (`chart.Dependency`) and an OCI chart's config blob (`chart.Metadata`). Strings and values
//! are written by berth-go's encoder; this module only lays out the structs. Pure.

use berth_chart::chart::{Dependency, Metadata};
use berth_go::json::quote;

/// An object of already-encoded fields, in order.
struct Object(Vec<(&'static str, String)>);

impl Object {
    fn text(&mut self, name: &'static str, value: &str, omit_empty: bool) {
        if !(omit_empty && value.is_empty()) {
            self.0.push((name, quote(value)));
        }
    }

    fn strings(&mut self, name: &'static str, values: &[String]) {
        if !values.is_empty() {
            self.0.push((name, format!("[{}]", values.iter().map(|value| quote(value)).collect::<Vec<_>>().join(","))));
        }
    }

    fn raw(&mut self, name: &'static str, value: String) {
        self.0.push((name, value));
    }

    fn finish(self) -> String {
        let fields: Vec<String> = self.0.into_iter().map(|(name, value)| format!("{}:{value}", quote(name))).collect();
        format!("{{{}}}", fields.join(","))
    }
}

/// `json.Marshal` of one template value (a Go map sorts its keys); what JSON cannot hold (NaN) gives "", as
/// Helm's `toJson` gives it.
fn value(value: &berth_go::Value) -> String {
    berth_go::json::marshal(value).unwrap_or_default()
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
            annotations.iter().map(|(key, value)| format!("{}:{}", quote(key), quote(value))).collect();
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
    use berth_go::Value;

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
