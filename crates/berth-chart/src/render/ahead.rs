//! Large rendered files read while the rest of the chart renders.
//!
//! A chart's output is read once rendering ends, on both cores (`side_by_side`). But one file can be most of
//! the output, and one document cannot be split: argo-cd's ApplicationSet CRD is 1.4 MB of its 1.8 MB, and
//! reading it takes about as long as rendering the whole chart. So a file of [`READ_AHEAD_FROM`] bytes or
//! more is handed to a reader thread as soon as it is rendered, and read while the rest renders; the sorting
//! takes its documents from there. The documents and their reads are the ones the sorting would make itself.

use super::engine::{RenderError, RenderOptions, render_templates};
use super::output::{DocumentRead, HEAD_READER_STACK_BYTES, ReadFiles, split_manifests};
use crate::chart::Chart;
use berth_go::Value;
use std::collections::BTreeMap;
use std::sync::mpsc;

/// Files this large are read ahead: a few large files in a chart, not the many small ones.
pub const READ_AHEAD_FROM: usize = 64 * 1024;

/// Renders `chart` as [`render_templates`] does, reading each large file with `read` while the rest renders.
/// When the reader thread cannot start, nothing is read ahead. `on_rendered` is called once every template has
/// rendered, while the last large files are still being read.
///
/// # Errors
/// As [`render_templates`].
pub fn render_reading_ahead(
    chart: &Chart,
    values: &Value,
    options: &RenderOptions,
    read: &(dyn Fn(&str) -> DocumentRead + Sync),
    on_rendered: &dyn Fn(),
) -> Result<(BTreeMap<String, String>, ReadFiles), RenderError> {
    std::thread::scope(|scope| {
        let (sender, receiver) = mpsc::channel::<(String, String)>();
        let reader = std::thread::Builder::new()
            .name("berth-read".to_string())
            .stack_size(HEAD_READER_STACK_BYTES)
            .spawn_scoped(scope, move || read_files(&receiver, read));
        let rendered = {
            let on_file = |name: &str, output: &str| {
                if output.len() >= READ_AHEAD_FROM {
                    // The reader is gone only when it could not start: the file is read with the rest then.
                    let _ = sender.send((name.to_string(), output.to_string()));
                }
            };
            render_templates(chart, values, options, &on_file)
        };
        drop(sender);
        if rendered.is_ok() {
            on_rendered();
        }
        let read_ahead = match reader {
            Ok(reader) => reader.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Err(_) => ReadFiles::new(),
        };
        Ok((rendered?, read_ahead))
    })
}

fn read_files(receiver: &mpsc::Receiver<(String, String)>, read: &(dyn Fn(&str) -> DocumentRead + Sync)) -> ReadFiles {
    receiver
        .iter()
        .map(|(name, output)| {
            let documents = split_manifests(&output)
                .into_iter()
                .map(|document| {
                    let read = read(&document);
                    (document, read)
                })
                .collect();
            (name, documents)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chart::{File, Metadata};
    use crate::render::engine::{Release, RenderBudget};
    use crate::render::head::read_head_and_object;
    use crate::render::offline;
    use crate::render::output::sort_manifests;

    fn chart(templates: &[(&str, String)]) -> Chart {
        let metadata = Metadata { name: "c".to_string(), version: "1.0.0".to_string(), ..Metadata::default() };
        let templates = templates.iter().map(|(name, text)| File::new(*name, text.as_bytes().to_vec())).collect();
        Chart { metadata, templates, ..Chart::default() }
    }

    fn options() -> RenderOptions {
        RenderOptions {
            release: Release::install("r", "default"),
            capabilities: offline(None, &[]),
            lookup: None,
            budget: RenderBudget::default(),
        }
    }

    fn large_config_map(name: &str) -> String {
        let lines: String =
            (0..4000).map(|index| format!("  key{index}: value {index} of {{{{ .Values.x }}}}\n")).collect();
        format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:\n{lines}")
    }

    #[test]
    fn large_files_are_read_while_rendering_and_sort_as_read_afterwards() {
        let chart = chart(&[
            (
                "templates/big.yaml",
                format!("{}---\nkind: Service\napiVersion: v1\nmetadata: {{name: s}}\n", large_config_map("big")),
            ),
            ("templates/small.yaml", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: small\n".to_string()),
            (
                "templates/big-hook.yaml",
                large_config_map("hooked")
                    .replace("  name: hooked\n", "  name: hooked\n  annotations:\n    helm.sh/hook: pre-install\n"),
            ),
        ]);
        let values = Value::map([("x", Value::from("x"))]);
        let (files, ahead) =
            render_reading_ahead(&chart, &values, &options(), &read_head_and_object, &|| {}).expect("rendered");
        let mut names: Vec<&String> = ahead.keys().collect();
        names.sort();
        assert_eq!(names, ["c/templates/big-hook.yaml", "c/templates/big.yaml"]);
        assert_eq!(ahead["c/templates/big.yaml"].len(), 2, "both documents of the file");
        let with = sort_manifests(&files, ahead, read_head_and_object).expect("sorted");
        let without = sort_manifests(&files, ReadFiles::new(), read_head_and_object).expect("sorted");
        assert_eq!(with, without);
        assert_eq!(with.1.len(), 3);
        assert_eq!(with.0.len(), 1);
    }

    #[test]
    fn a_large_file_that_does_not_read_fails_as_it_would_afterwards() {
        let broken = format!("{}  - [unclosed\n", large_config_map("broken"));
        let chart = chart(&[("templates/a.yaml", broken), ("templates/b.yaml", "kind: [Job]\n".to_string())]);
        let values = Value::map([("x", Value::from("x"))]);
        let (files, ahead) =
            render_reading_ahead(&chart, &values, &options(), &read_head_and_object, &|| {}).expect("rendered");
        assert_eq!(ahead.len(), 1);
        let with = sort_manifests(&files, ahead, read_head_and_object).expect_err("unreadable");
        let without = sort_manifests(&files, ReadFiles::new(), read_head_and_object).expect_err("unreadable");
        assert_eq!(with, without);
        assert_eq!(with.file, "c/templates/a.yaml");
    }
}
