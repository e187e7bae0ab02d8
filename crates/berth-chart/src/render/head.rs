//! The head of a rendered manifest document as Helm reads it to sort and to find hooks (releaseutil's
//! `SimpleHead`), through the YAML module's port of sigs.k8s.io/yaml, in the shape the output module sorts; for a
//! release, the document's JSON object read in the same pass.

use super::output::Head;
use berth_goyaml::{ManifestHead, read_manifest_head, read_manifest_object};

/// Reads `document`'s head.
///
/// # Errors
/// Helm's message for a document that is not YAML or has a field of the wrong type.
pub fn read_head(document: &str) -> Result<(Head, Option<serde_json::Value>), String> {
    let head = read_manifest_head(document).map_err(|error| error.to_string())?;
    Ok((shaped(head), None))
}

/// Reads `document`'s head as [`read_head`] does, and the document as a JSON object from the same parse (`None`
/// for the rare document the release reads from its text instead).
///
/// # Errors
/// As [`read_head`].
pub fn read_head_and_object(document: &str) -> Result<(Head, Option<serde_json::Value>), String> {
    let (head, object) = read_manifest_object(document).map_err(|error| error.to_string())?;
    Ok((shaped(head), object))
}

fn shaped(head: ManifestHead) -> Head {
    let (name, annotations) = match head.metadata {
        Some(metadata) => (metadata.name, metadata.annotations.unwrap_or_default()),
        None => (String::new(), Default::default()),
    };
    Head { api_version: head.api_version, kind: head.kind, name, annotations }
}

#[cfg(test)]
mod tests {
    use super::{read_head, read_head_and_object};

    #[test]
    fn reads_the_head_and_ignores_the_rest() {
        let document = "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate\n  annotations:\n    helm.sh/hook: pre-install\nspec: {}\n";
        let (head, object) = read_head(document).expect("head");
        assert_eq!((head.api_version.as_str(), head.kind.as_str(), head.name.as_str()), ("batch/v1", "Job", "migrate"));
        assert_eq!(head.annotations.get("helm.sh/hook").map(String::as_str), Some("pre-install"));
        assert_eq!(object, None, "the head read alone keeps no object");
        assert_eq!(read_head("# only a comment\n").expect("empty"), Default::default());
        let (same, object) = read_head_and_object(document).expect("head and object");
        assert_eq!(same, head);
        assert_eq!(object.and_then(|object| object.pointer("/metadata/name").cloned()), Some("migrate".into()));
    }

    #[test]
    fn a_number_where_helm_wants_a_string_is_read_as_its_text() {
        // sigs.k8s.io/yaml converts YAML scalars to the target field's type: an unquoted weight is a string.
        let document = "kind: Job\nmetadata:\n  name: j\n  annotations:\n    helm.sh/hook-weight: 5\n";
        let (head, _) = read_head(document).expect("head");
        assert_eq!(head.annotations.get("helm.sh/hook-weight").map(String::as_str), Some("5"));
        let (_, object) = read_head_and_object(document).expect("head and object");
        let weight = object.and_then(|object| object.pointer("/metadata/annotations/helm.sh~1hook-weight").cloned());
        assert_eq!(weight, Some(5.into()), "the object keeps the number, as kubectl reads it");
        assert!(read_head("kind: [Job]\n").is_err(), "a list where a string belongs is Helm's error");
        assert!(read_head_and_object("kind: [Job]\n").is_err(), "the same error reading the object too");
    }
}
