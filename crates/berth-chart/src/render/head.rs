//! The head of a rendered manifest document as Helm reads it to sort and to find hooks (releaseutil's
//! `SimpleHead`), through the YAML module's port of sigs.k8s.io/yaml, in the shape the output module sorts.

use super::output::Head;

/// Reads `document`'s head.
///
/// # Errors
/// Helm's message for a document that is not YAML or has a field of the wrong type.
pub fn read_head(document: &str) -> Result<Head, String> {
    let head = berth_template::yaml::read_manifest_head(document).map_err(|error| error.to_string())?;
    let (name, annotations) = match head.metadata {
        Some(metadata) => (metadata.name, metadata.annotations.unwrap_or_default()),
        None => (String::new(), Default::default()),
    };
    Ok(Head { api_version: head.api_version, kind: head.kind, name, annotations })
}

#[cfg(test)]
mod tests {
    use super::read_head;

    #[test]
    fn reads_the_head_and_ignores_the_rest() {
        let head = read_head(
            "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate\n  annotations:\n    helm.sh/hook: pre-install\nspec: {}\n",
        )
        .expect("head");
        assert_eq!((head.api_version.as_str(), head.kind.as_str(), head.name.as_str()), ("batch/v1", "Job", "migrate"));
        assert_eq!(head.annotations.get("helm.sh/hook").map(String::as_str), Some("pre-install"));
        assert_eq!(read_head("# only a comment\n").expect("empty"), Default::default());
    }

    #[test]
    fn a_number_where_helm_wants_a_string_is_read_as_its_text() {
        // sigs.k8s.io/yaml converts YAML scalars to the target field's type: an unquoted weight is a string.
        let head =
            read_head("kind: Job\nmetadata:\n  name: j\n  annotations:\n    helm.sh/hook-weight: 5\n").expect("head");
        assert_eq!(head.annotations.get("helm.sh/hook-weight").map(String::as_str), Some("5"));
        assert!(read_head("kind: [Job]\n").is_err(), "a list where a string belongs is Helm's error");
    }
}
