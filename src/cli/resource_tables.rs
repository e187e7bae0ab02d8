//! The `RESOURCES:` section of `helm status`'s table output (Helm 4.1's `statusPrinter.WriteTable`,
//! `pkg/cmd/status.go`): under `==> VERSION/Kind` each object's server-side table, printed as kubectl's
//! `get.TablePrinter` over a `HumanReadablePrinter` prints a `meta.k8s.io/v1 Table` (k8s.io/cli-runtime
//! `printers/tableprinter.go`: upper-case headers, only priority-0 columns, a header again only when the columns
//! change), each object aligned on its own as Go's `text/tabwriter` aligns it (minimum width 6, padding 3: every
//! `PrintObj` flushes a tabwriter of its own).
//!
//! Helm walks a Go map, so the order of the kinds changes from run to run; berth sorts them.

use serde_json::Value;
use std::collections::BTreeMap;

/// kubectl's `GetNewTabWriter` settings.
const TABWRITER_MIN_WIDTH: usize = 6;
const TABWRITER_PADDING: usize = 3;

/// The section, or nothing when no object could be read (Helm prints it only when `Info.Resources` has entries).
pub fn section(resources: &BTreeMap<String, Vec<Value>>) -> String {
    if resources.is_empty() {
        return String::new();
    }
    let mut printer = TablePrinter::default();
    let mut text = String::new();
    for (key, objects) in resources {
        text.push_str(&format!("==> {key}\n"));
        for object in objects {
            text.push_str(&printer.print(object));
        }
        text.push('\n');
    }
    format!("RESOURCES:\n{text}\n")
}

/// `HumanReadablePrinter`'s memory between objects: the columns last printed and whether their header was.
#[derive(Default)]
struct TablePrinter {
    last_columns: Option<Value>,
    printed_headers: bool,
}

impl TablePrinter {
    /// `PrintObj` of one table (an answer that is no table prints nothing: the server gives tables for every
    /// kind, and kubectl's client-side fallback is not ported).
    fn print(&mut self, table: &Value) -> String {
        if table.get("kind").and_then(Value::as_str) != Some("Table") {
            return String::new();
        }
        let rows: &[Value] = table.get("rows").and_then(Value::as_array).map_or(&[], Vec::as_slice);
        let mut columns = table.get("columnDefinitions").cloned().unwrap_or(Value::Null);
        let has_columns = columns.as_array().is_some_and(|columns| !columns.is_empty());
        let no_headers = self.printed_headers && (!has_columns || self.last_columns.as_ref() == Some(&columns));
        if !has_columns {
            columns = self.last_columns.clone().unwrap_or(Value::Null);
        } else if self.last_columns.as_ref() != Some(&columns) {
            self.last_columns = Some(columns.clone());
            self.printed_headers = false;
        }
        if !rows.is_empty() {
            self.printed_headers = true;
        }
        let definitions: &[Value] = columns.as_array().map_or(&[], Vec::as_slice);
        // Only the columns `kubectl get` shows without `-o wide`.
        let shown: Vec<usize> = (0..definitions.len())
            .filter(|index| definitions[*index].get("priority").and_then(Value::as_i64).unwrap_or(0) == 0)
            .collect();
        let mut lines: Vec<Vec<String>> = Vec::new();
        if !no_headers {
            if rows.is_empty() {
                return String::new();
            }
            let header = shown.iter().map(|index| {
                definitions[*index].get("name").and_then(Value::as_str).unwrap_or_default().to_uppercase()
            });
            lines.push(header.collect());
        }
        for row in rows {
            let cells: &[Value] = row.get("cells").and_then(Value::as_array).map_or(&[], Vec::as_slice);
            lines.push(
                shown.iter().filter(|index| **index < cells.len()).map(|index| cell_text(&cells[*index])).collect(),
            );
        }
        tabwriter(&lines)
    }
}

/// A cell as `printTable` writes it: a string up to its first line break (then `...`), another value as Go's
/// `fmt.Sprint` of its JSON value, nothing for null.
fn cell_text(cell: &Value) -> String {
    match cell {
        Value::Null => String::new(),
        Value::String(text) => match text.find(['\u{c}', '\n', '\r']) {
            Some(at) => format!("{}...", &text[..at]),
            None => text.clone(),
        },
        Value::Bool(flag) => flag.to_string(),
        Value::Number(number) => number.to_string(),
        other => other.to_string(),
    }
}

/// Go's `text/tabwriter` over tab-separated cells (the last cell of a line is not padded): each column as wide as
/// its widest cell plus the padding, at least the minimum width.
fn tabwriter(lines: &[Vec<String>]) -> String {
    let columns = lines.iter().map(Vec::len).max().unwrap_or(0);
    let mut widths = vec![TABWRITER_MIN_WIDTH; columns];
    for line in lines {
        for (index, cell) in line.iter().enumerate().take(line.len().saturating_sub(1)) {
            widths[index] = widths[index].max(cell.chars().count() + TABWRITER_PADDING);
        }
    }
    let mut text = String::new();
    for line in lines {
        for (index, cell) in line.iter().enumerate() {
            text.push_str(cell);
            if index + 1 < line.len() {
                text.push_str(&" ".repeat(widths[index] - cell.chars().count()));
            }
        }
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn table(columns: &[(&str, i64)], rows: &[Vec<Value>]) -> Value {
        let columns: Vec<Value> = columns
            .iter()
            .map(|(name, priority)| json!({"name": name, "type": "string", "priority": priority}))
            .collect();
        let rows: Vec<Value> = rows.iter().map(|cells| json!({"cells": cells})).collect();
        json!({"kind": "Table", "apiVersion": "meta.k8s.io/v1", "columnDefinitions": columns, "rows": rows})
    }

    /// Each object aligned on its own; the header once per set of columns; wide columns left out; the kinds
    /// each under their key with an empty line after.
    #[test]
    fn tables_print_as_kubectl_prints_them_for_helm() {
        let config_columns = [("Name", 0), ("Data", 0), ("Age", 0)];
        let first = table(&config_columns, &[vec![json!("beta"), json!(1), json!("5s")]]);
        let second = table(&config_columns, &[vec![json!("a-longer-name"), json!(12), json!("7m3s")]]);
        let pods = table(
            &[("Name", 0), ("Ready", 0), ("Status", 0), ("Restarts", 0), ("Age", 0), ("IP", 1)],
            &[vec![json!("web-1"), json!("1/1"), json!("Running"), json!(0), json!("5s"), json!("10.0.0.1")]],
        );
        let resources = BTreeMap::from([
            ("v1/ConfigMap".to_string(), vec![first, second]),
            ("v1/Pod(related)".to_string(), vec![pods]),
        ]);
        assert_eq!(
            section(&resources),
            "RESOURCES:\n==> v1/ConfigMap\nNAME   DATA   AGE\nbeta   1      5s\na-longer-name   12    7m3s\n\n\
             ==> v1/Pod(related)\nNAME    READY   STATUS    RESTARTS   AGE\nweb-1   1/1     Running   0          5s\n\n\n"
        );
        assert_eq!(section(&BTreeMap::new()), "");
    }

    #[test]
    fn a_cell_stops_at_its_first_line_break() {
        assert_eq!(cell_text(&json!("one\ntwo")), "one...");
        assert_eq!(cell_text(&Value::Null), "");
        assert_eq!(cell_text(&json!(true)), "true");
    }
}
