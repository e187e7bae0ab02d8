//! YAML as gonvenience/neat v1.3.20 writes a yaml.v3 node for dyff's report (`neatYAMLofNode` in
//! `output_yaml.go`), without colours: two spaces per level, a list under a key at the key's own indent, `{}` and
//! `[]` for empty collections, multi-line strings as `|` blocks, a string quoted with Go's `%q` only when it would
//! read as something else (`needsQuotes`), a key's head comment above it, anchors as `&name`, aliases as `*name`.

use super::tree::{MAX_DEPTH, NodeId, Tree};
use berth_goyaml::NodeKind;

/// One indentation step (`prefixAdd` without indent lines).
const STEP: &str = "  ";

/// `ToYAML` of a node.
pub fn to_yaml(tree: &Tree, node: NodeId) -> String {
    let mut out = String::new();
    write_node(tree, &mut out, "", false, node, 0);
    out
}

fn anchor(tree: &Tree, node: NodeId) -> String {
    let anchor = &tree.get(node).anchor;
    if anchor.is_empty() { String::new() } else { format!(" &{anchor}") }
}

/// `neatYAMLofNode`.
fn write_node(tree: &Tree, out: &mut String, prefix: &str, skip_indent_on_first_line: bool, id: NodeId, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    let node = tree.get(id);
    match node.kind {
        NodeKind::Document => {
            for child in &node.content {
                write_node(tree, out, prefix, false, *child, depth + 1);
            }
        }
        NodeKind::Sequence => {
            for (index, entry) in node.content.iter().enumerate() {
                if index > 0 || !skip_indent_on_first_line {
                    out.push_str(prefix);
                }
                out.push_str("- ");
                write_node(tree, out, &format!("{prefix}{STEP}"), true, *entry, depth + 1);
            }
        }
        NodeKind::Mapping => {
            for (index, pair) in node.content.chunks(2).enumerate() {
                let [key, value] = pair else { continue };
                if index > 0 || !skip_indent_on_first_line {
                    out.push_str(prefix);
                }
                let comment = tree.head_comment(*key);
                if !comment.is_empty() {
                    out.push_str(comment);
                    out.push('\n');
                }
                out.push_str(&tree.get(*key).value);
                out.push(':');
                let value_node = tree.get(*value);
                match value_node.kind {
                    NodeKind::Mapping | NodeKind::Sequence if value_node.content.is_empty() => {
                        let empty = if value_node.kind == NodeKind::Mapping { "{}" } else { "[]" };
                        out.push_str(&format!("{} {empty}\n", anchor(tree, *value)));
                    }
                    NodeKind::Mapping => {
                        out.push_str(&format!("{}\n", anchor(tree, *value)));
                        write_node(tree, out, &format!("{prefix}{STEP}"), false, *value, depth + 1);
                    }
                    NodeKind::Sequence => {
                        out.push_str(&format!("{}\n", anchor(tree, *value)));
                        write_node(tree, out, prefix, false, *value, depth + 1);
                    }
                    NodeKind::Scalar => {
                        out.push_str(&format!("{} ", anchor(tree, *value)));
                        write_node(tree, out, &format!("{prefix}{STEP}"), false, *value, depth + 1);
                    }
                    NodeKind::Alias => out.push_str(&format!(" *{}\n", value_node.value)),
                    NodeKind::Document => {}
                }
            }
        }
        NodeKind::Scalar => {
            let lines: Vec<&str> = node.value.split('\n').collect();
            if let [line] = lines.as_slice() {
                if needs_quotes(&node.tag, line) {
                    out.push_str(&berth_go::strconv::quote(line));
                } else {
                    out.push_str(line);
                }
            } else {
                out.push_str("|\n");
                let body: Vec<String> = lines.iter().map(|line| format!("{prefix}{line}")).collect();
                out.push_str(&body.join("\n"));
            }
            out.push('\n');
        }
        NodeKind::Alias => {
            if let Some(target) = node.alias {
                write_node(tree, out, prefix, skip_indent_on_first_line, target, depth + 1);
            }
        }
    }
}

/// `needsQuotes`: a string that reads as a keyword, starts with a dash, looks like a number
/// (`^(-|\+)?[0-9.e+]+$`) or holds one of ` *&:,`.
fn needs_quotes(tag: &str, value: &str) -> bool {
    if tag != "!!str" {
        return false;
    }
    if ["true", "false", "null", ".nan", ".inf", "-.inf", "+.inf"].contains(&value) || value.starts_with('-') {
        return true;
    }
    // A leading `-` is quoted above; `+` is in the class itself.
    let number_like = !value.is_empty() && value.chars().all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | '+'));
    number_like || value.contains([' ', '*', '&', ':', ','])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_quoted_only_where_neat_quotes_them() {
        for (value, quoted) in [
            ("plain", false),
            ("true", true),
            ("-x", true),
            ("1.5e+3", true),
            ("+1", true),
            ("1-2", false),
            ("a b", true),
            ("a:b", true),
            ("", false),
            ("e", true),
            ("+", true),
        ] {
            assert_eq!(needs_quotes("!!str", value), quoted, "{value}");
        }
        assert!(!needs_quotes("!!int", "1"));
    }
}
