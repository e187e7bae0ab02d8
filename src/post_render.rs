//! Helm 4's post-rendering of a release's files (pkg/action/action.go `annotateAndMerge`, `splitAndDeannotate`):
//! every rendered document is marked with the file it came from (annotation
//! `postrenderer.helm.sh/postrender-filename`), all are merged into one stream for the post-renderer, and its
//! output is split back into files by that mark (a document without it is `generated-by-postrender-N.yaml`).
//!
//! Helm reads and writes the documents with kyaml, which re-indents sequences and comments; berth adds and
//! removes the annotation line in the text as written, so a document keeps its own formatting (the same bytes as
//! Helm's for charts written in kyaml's style: two-space indents, sequences not indented under their key). A
//! document whose `metadata` is not a block mapping is re-written through the YAML model instead.
//!
//! Pure: files in, a stream out, and back.

use std::collections::BTreeMap;

/// The annotation naming each document's file.
pub const FILENAME_ANNOTATION: &str = "postrenderer.helm.sh/postrender-filename";

/// Why the post-renderer's output could not be split into files.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StreamError {
    #[error("error merging manifests: annotating {file}: {reason}")]
    Annotate { file: String, reason: String },
}

/// `annotateAndMerge`: the documents of every file (partials and blank files skipped), in file-name order,
/// each annotated with its file, as one stream.
///
/// # Errors
/// [`StreamError::Annotate`] for a document that is no YAML mapping.
pub fn annotate_and_merge(files: &BTreeMap<String, String>) -> Result<String, StreamError> {
    let mut documents = Vec::new();
    for (name, content) in files {
        let base = name.rsplit('/').next().unwrap_or(name);
        if base.starts_with('_') || content.trim().is_empty() {
            continue;
        }
        for document in berth_goyaml::split_manifests(content) {
            let annotated =
                annotate(&document, name).map_err(|reason| StreamError::Annotate { file: name.clone(), reason })?;
            documents.push(annotated);
        }
    }
    Ok(join_documents(&documents))
}

/// `splitAndDeannotate`: the post-renderer's documents grouped by the file their annotation names, the
/// annotation taken out.
pub fn split_and_deannotate(stream: &str) -> BTreeMap<String, String> {
    let mut by_file: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (index, document) in berth_goyaml::split_manifests(stream).into_iter().enumerate() {
        let (file, document) = deannotate(&document);
        let file = file.unwrap_or_else(|| format!("generated-by-postrender-{index}.yaml"));
        by_file.entry(file).or_default().push(document);
    }
    by_file.into_iter().map(|(file, documents)| (file, join_documents(&documents))).collect()
}

/// kio's `StringAll`: documents separated by `---` lines, each ending in a newline.
fn join_documents(documents: &[String]) -> String {
    documents.iter().map(|document| format!("{}\n", document.trim_end_matches('\n'))).collect::<Vec<_>>().join("---\n")
}

/// Leading spaces of a line.
fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// Whether a line holds nothing for YAML's structure (blank, or a comment).
fn is_blank(line: &str) -> bool {
    let trimmed = line.trim();
    trimmed.is_empty() || trimmed.starts_with('#')
}

/// Whether `line` is `key:` opening a block (nothing after the colon but a comment), at `column`.
fn opens_block(line: &str, key: &str, column: usize) -> bool {
    if indent(line) != column {
        return false;
    }
    let rest = &line[column..];
    let Some(after) = rest.strip_prefix(key).and_then(|rest| rest.strip_prefix(':')) else { return false };
    let after = after.trim();
    after.is_empty() || after.starts_with('#')
}

/// The end (exclusive) of the block whose opening line is `start`: the next line that holds something at or
/// left of `column`; trailing blank lines are not part of it.
fn block_end(lines: &[&str], start: usize, column: usize) -> usize {
    let mut end = start + 1;
    let mut last = start + 1;
    while end < lines.len() {
        if !is_blank(lines[end]) {
            if indent(lines[end]) <= column {
                break;
            }
            last = end + 1;
        }
        end += 1;
    }
    last
}

/// The indentation of a block's first entry, if it has one.
fn child_indent(lines: &[&str], start: usize, end: usize) -> Option<usize> {
    lines[start + 1..end].iter().find(|line| !is_blank(line)).map(|line| indent(line))
}

/// A scalar as kyaml writes an annotation value: plain when it is safe so, else double-quoted.
fn scalar(value: &str) -> String {
    let plain = !value.is_empty()
        && value.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '_' | '-'))
        && !value.starts_with(['-', '.']);
    if plain { value.to_string() } else { berth_go::json::quote(value) }
}

/// The document with the file annotation added as the last of `metadata.annotations` (kyaml's
/// `SetAnnotation`), creating `annotations` (and `metadata`) at the end of their parent when absent.
fn annotate(document: &str, file: &str) -> Result<String, String> {
    let lines: Vec<&str> = document.lines().collect();
    let entry = format!("{FILENAME_ANNOTATION}: {}", scalar(file));
    let Some(metadata) = lines.iter().position(|line| opens_block(line, "metadata", 0)) else {
        if lines.iter().any(|line| line.starts_with("metadata:")) || !is_block_mapping(&lines) {
            return annotate_through_model(document, file);
        }
        let mut out: Vec<String> = lines.iter().map(|line| line.to_string()).collect();
        out.extend(["metadata:".to_string(), "  annotations:".to_string(), format!("    {entry}")]);
        return Ok(out.join("\n"));
    };
    let metadata_end = block_end(&lines, metadata, 0);
    let Some(column) = child_indent(&lines, metadata, metadata_end) else {
        return annotate_through_model(document, file);
    };
    let annotations = (metadata + 1..metadata_end).find(|&index| opens_block(lines[index], "annotations", column));
    let mut out: Vec<String> = lines.iter().map(|line| line.to_string()).collect();
    match annotations {
        Some(annotations) => {
            let end = block_end(&lines, annotations, column);
            let Some(entry_column) = child_indent(&lines, annotations, end) else {
                return annotate_through_model(document, file);
            };
            out.insert(end, format!("{}{entry}", " ".repeat(entry_column)));
        }
        None => {
            if (metadata + 1..metadata_end)
                .any(|index| indent(lines[index]) == column && lines[index][column..].starts_with("annotations:"))
            {
                // `annotations: {...}` in flow style, or another form the text cannot safely take a line in.
                return annotate_through_model(document, file);
            }
            let pad = " ".repeat(column);
            out.insert(metadata_end, format!("{pad}annotations:\n{pad}  {entry}"));
        }
    }
    Ok(out.join("\n"))
}

/// Whether the document's top level is a block mapping (its first line of content is `key: ...` at column 0).
fn is_block_mapping(lines: &[&str]) -> bool {
    lines
        .iter()
        .find(|line| !is_blank(line) && !line.starts_with("---"))
        .is_some_and(|line| indent(line) == 0 && !line.starts_with(['{', '[', '-', '"', '\'']) && line.contains(':'))
}

/// The annotation added by reading the document into the YAML model and writing it again (its formatting and
/// comments are not kept).
fn annotate_through_model(document: &str, file: &str) -> Result<String, String> {
    use berth_go::Value;
    let value = berth_goyaml::parse_any(document).map_err(|error| error.to_string())?;
    let Value::Map(map) = value else { return Err("wrong node kind: expected MappingNode".to_string()) };
    let metadata = match map.get("metadata") {
        Some(Value::Map(metadata)) => metadata,
        _ => {
            let metadata = berth_go::Map::new();
            map.insert("metadata", Value::Map(metadata.clone()));
            metadata
        }
    };
    let annotations = match metadata.get("annotations") {
        Some(Value::Map(annotations)) => annotations,
        _ => {
            let annotations = berth_go::Map::new();
            metadata.insert("annotations", Value::Map(annotations.clone()));
            annotations
        }
    };
    annotations.insert(FILENAME_ANNOTATION, Value::String(file.into()));
    berth_goyaml::to_yaml(&Value::Map(map)).map_err(|error| error.to_string())
}

/// The file a document's annotation names, and the document without it (the `annotations` line too when
/// nothing else is left under it, as kyaml's `ClearAnnotation` leaves no empty map).
fn deannotate(document: &str) -> (Option<String>, String) {
    let lines: Vec<&str> = document.lines().collect();
    let found = lines.iter().position(|line| {
        let key = line.trim_start();
        key.starts_with(FILENAME_ANNOTATION) && key[FILENAME_ANNOTATION.len()..].trim_start().starts_with(':')
            || key.starts_with(&format!("\"{FILENAME_ANNOTATION}\":"))
            || key.starts_with(&format!("'{FILENAME_ANNOTATION}':"))
    });
    let Some(position) = found else { return (None, document.to_string()) };
    let line = lines[position];
    let value = line.split_once(':').map(|(_, value)| value).unwrap_or_default();
    let value = value.split(" #").next().unwrap_or_default().trim();
    let file = if value.len() >= 2 && (value.starts_with('"') && value.ends_with('"')) {
        serde_json::from_str::<String>(value).unwrap_or_else(|_| value[1..value.len() - 1].to_string())
    } else if value.len() >= 2 && value.starts_with('\'') && value.ends_with('\'') {
        value[1..value.len() - 1].replace("''", "'")
    } else {
        value.to_string()
    };
    let mut out: Vec<&str> = lines.clone();
    out.remove(position);
    // `annotations:` above, then `metadata:`, when nothing is left under them (berth added both to a document
    // that had neither).
    let mut column = indent(line);
    let mut removed_at = position;
    for key in ["annotations:", "metadata:"] {
        let Some(parent) = (0..removed_at).rev().find(|&index| !is_blank(out[index]) && indent(out[index]) < column)
        else {
            break;
        };
        let text = out[parent].trim_start();
        if !(text.starts_with(key) && text[key.len()..].trim().is_empty()) {
            break;
        }
        let parent_column = indent(out[parent]);
        let has_entries = out[parent + 1..]
            .iter()
            .take_while(|line| is_blank(line) || indent(line) > parent_column)
            .any(|line| !is_blank(line));
        if has_entries {
            break;
        }
        out.remove(parent);
        column = parent_column;
        removed_at = parent;
    }
    (Some(file), out.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annotations_go_where_kyaml_puts_them_and_come_out_again() {
        let table = [
            (
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: v",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n    \
                 postrenderer.helm.sh/postrender-filename: c/templates/a.yaml\ndata:\n  k: v",
            ),
            (
                "kind: Pod\nmetadata:\n  annotations:\n    \"helm.sh/hook\": test\n  name: p\nspec: {}",
                "kind: Pod\nmetadata:\n  annotations:\n    \"helm.sh/hook\": test\n    \
                 postrenderer.helm.sh/postrender-filename: c/templates/a.yaml\n  name: p\nspec: {}",
            ),
            (
                "kind: X\nspec: 1",
                "kind: X\nspec: 1\nmetadata:\n  annotations:\n    postrenderer.helm.sh/postrender-filename: \
                 c/templates/a.yaml",
            ),
            (
                "kind: X\nmetadata:\n    name: wide\n    labels:\n        a: b",
                "kind: X\nmetadata:\n    name: wide\n    labels:\n        a: b\n    annotations:\n      \
                 postrenderer.helm.sh/postrender-filename: c/templates/a.yaml",
            ),
        ];
        for (document, annotated) in table {
            assert_eq!(annotate(document, "c/templates/a.yaml").unwrap(), annotated, "{document}");
            assert_eq!(deannotate(annotated), (Some("c/templates/a.yaml".to_string()), document.to_string()));
        }
        let flow = annotate("kind: X\nmetadata: {name: f}", "c/t.yaml").unwrap();
        assert!(flow.contains("postrenderer.helm.sh/postrender-filename: c/t.yaml"), "{flow}");
        assert!(annotate("- a\n- b", "c/t.yaml").is_err());
    }

    #[test]
    fn files_are_merged_and_split_back() {
        let files = BTreeMap::from([
            (
                "c/templates/a.yaml".to_string(),
                "kind: A\nmetadata:\n  name: a\n---\nkind: B\nmetadata:\n  name: b\n".to_string(),
            ),
            ("c/templates/_helpers.tpl".to_string(), "{{/* nothing */}}".to_string()),
            ("c/templates/empty.yaml".to_string(), "\n  \n".to_string()),
        ]);
        let stream = annotate_and_merge(&files).unwrap();
        assert_eq!(stream.matches(FILENAME_ANNOTATION).count(), 2);
        let extra = format!("{stream}---\nkind: C\nmetadata:\n  name: new\n");
        let split = split_and_deannotate(&extra);
        assert_eq!(split.len(), 2, "{split:?}");
        assert_eq!(split["c/templates/a.yaml"], "kind: A\nmetadata:\n  name: a\n---\nkind: B\nmetadata:\n  name: b\n");
        assert_eq!(split["generated-by-postrender-2.yaml"], "kind: C\nmetadata:\n  name: new\n");
    }
}
