//! YAML as gonvenience/neat v1.3.20 writes a yaml.v3 node for dyff's report (`neatYAMLofNode` in
//! `output_yaml.go`): two spaces per level, a list under a key at the key's own indent, `{}` and `[]` for empty
//! collections, multi-line strings as `|` blocks, a string quoted with Go's `%q` only when it would read as
//! something else (`needsQuotes`), a key's head comment above it, anchors as `&name`, aliases as `*name`. Keys are
//! bold and, with a colour schema (dyff's reddish and greenish ones, `colors.go`), each part coloured by its kind
//! through bunt; indent lines stay off (helm-diff leaves `UseIndentLines` false).

use super::bunt::{Bunt, Rgb, StyleOption, colours};
use super::tree::{MAX_DEPTH, NodeId, Tree};
use berth_goyaml::NodeKind;

/// A colour schema's colours (`ColorSchema`); dyff's schemas name no colour for binary values, comments and
/// anchors, which neat then leaves plain.
#[derive(Debug, Clone, Copy)]
pub struct Schema {
    key: Rgb,
    indent_line: Rgb,
    scalar_default: Rgb,
    boolean: Rgb,
    float: Rgb,
    int: Rgb,
    multi_line_text: Rgb,
    null: Rgb,
    empty_structures: Rgb,
    dash: Rgb,
}

/// dyff's `YAMLInRedishColors`, for removed YAML.
pub const REDDISH: Schema = Schema {
    key: colours::FIRE_BRICK,
    indent_line: colours::DARK_RED_INDENT,
    scalar_default: colours::LIGHT_CORAL,
    boolean: colours::LIGHT_CORAL,
    float: colours::LIGHT_CORAL,
    int: colours::LIGHT_CORAL,
    multi_line_text: colours::DARK_SALMON,
    null: colours::SALMON,
    empty_structures: colours::LIGHT_SALMON,
    dash: colours::FIRE_BRICK,
};

/// dyff's `YAMLInGreenishColors`, for added YAML.
pub const GREENISH: Schema = Schema {
    key: colours::GREEN,
    indent_line: colours::DARK_GREEN_INDENT,
    scalar_default: colours::LIME_GREEN,
    boolean: colours::LIME_GREEN,
    float: colours::LIME_GREEN,
    int: colours::LIME_GREEN,
    multi_line_text: colours::OLIVE_DRAB,
    null: colours::OLIVE,
    empty_structures: colours::DARK_OLIVE_GREEN,
    dash: colours::GREEN,
};

/// How the YAML is written: bunt's setting and the colour schema, if any (`yamlString` sets none).
#[derive(Debug, Clone, Copy)]
pub struct Painting<'a> {
    pub bunt: Bunt,
    pub schema: Option<&'a Schema>,
}

impl Painting<'_> {
    /// `colorize`: the text in the schema's colour, as it is without a schema or that colour.
    fn colorize(&self, colour: impl Fn(&Schema) -> Option<Rgb>, text: &str) -> String {
        match self.schema.and_then(colour) {
            Some(rgb) => self.bunt.style(text, &[StyleOption::Foreground(rgb)], false),
            None => text.to_string(),
        }
    }

    /// `prefixAdd` without indent lines: two spaces in the indent line colour.
    fn step(&self) -> String {
        self.colorize(|schema| Some(schema.indent_line), "  ")
    }
}

/// `ToYAML` of a node.
pub fn to_yaml(tree: &Tree, node: NodeId, painting: &Painting) -> String {
    let mut out = String::new();
    write_node(tree, &mut out, "", false, node, 0, painting);
    out
}

fn anchor(tree: &Tree, node: NodeId) -> String {
    let anchor = &tree.get(node).anchor;
    if anchor.is_empty() { String::new() } else { format!(" &{anchor}") }
}

/// `neatYAMLofNode`.
fn write_node(
    tree: &Tree,
    out: &mut String,
    prefix: &str,
    skip_indent_on_first_line: bool,
    id: NodeId,
    depth: usize,
    painting: &Painting,
) {
    if depth > MAX_DEPTH {
        return;
    }
    let node = tree.get(id);
    match node.kind {
        NodeKind::Document => {
            for child in &node.content {
                write_node(tree, out, prefix, false, *child, depth + 1, painting);
            }
        }
        NodeKind::Sequence => {
            let nested = format!("{prefix}{}", painting.step());
            for (index, entry) in node.content.iter().enumerate() {
                if index > 0 || !skip_indent_on_first_line {
                    out.push_str(prefix);
                }
                out.push_str(&painting.colorize(|schema| Some(schema.dash), "-"));
                out.push(' ');
                write_node(tree, out, &nested, true, *entry, depth + 1, painting);
            }
        }
        NodeKind::Mapping => {
            let nested = format!("{prefix}{}", painting.step());
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
                let key_text = painting.colorize(|schema| Some(schema.key), &format!("{}:", tree.get(*key).value));
                out.push_str(&painting.bunt.style(&key_text, &[StyleOption::Bold], false));
                let value_node = tree.get(*value);
                match value_node.kind {
                    NodeKind::Mapping | NodeKind::Sequence if value_node.content.is_empty() => {
                        let empty = if value_node.kind == NodeKind::Mapping { "{}" } else { "[]" };
                        let empty = painting.colorize(|schema| Some(schema.empty_structures), empty);
                        out.push_str(&format!("{} {empty}\n", anchor(tree, *value)));
                    }
                    NodeKind::Mapping => {
                        out.push_str(&format!("{}\n", anchor(tree, *value)));
                        write_node(tree, out, &nested, false, *value, depth + 1, painting);
                    }
                    NodeKind::Sequence => {
                        out.push_str(&format!("{}\n", anchor(tree, *value)));
                        write_node(tree, out, prefix, false, *value, depth + 1, painting);
                    }
                    NodeKind::Scalar => {
                        out.push_str(&format!("{} ", anchor(tree, *value)));
                        write_node(tree, out, &nested, false, *value, depth + 1, painting);
                    }
                    NodeKind::Alias => out.push_str(&format!(" *{}\n", value_node.value)),
                    NodeKind::Document => {}
                }
            }
        }
        NodeKind::Scalar => {
            let lines: Vec<&str> = node.value.split('\n').collect();
            if let [line] = lines.as_slice() {
                let colour = scalar_colour(&node.tag);
                if needs_quotes(&node.tag, line) {
                    out.push_str(&painting.colorize(colour, &berth_go::strconv::quote(line)));
                } else {
                    out.push_str(&painting.colorize(colour, line));
                }
            } else {
                let colour = |schema: &Schema| Some(schema.multi_line_text);
                out.push_str(&painting.colorize(colour, "|"));
                out.push('\n');
                let body: Vec<String> =
                    lines.iter().map(|line| format!("{prefix}{}", painting.colorize(colour, line))).collect();
                out.push_str(&body.join("\n"));
            }
            out.push('\n');
        }
        NodeKind::Alias => {
            if let Some(target) = node.alias {
                write_node(tree, out, prefix, skip_indent_on_first_line, target, depth + 1, painting);
            }
        }
    }
}

/// The colour of a one-line scalar by its tag (`neatYAMLofNode`'s switch): binary values have none in dyff's
/// schemas; other tags (timestamps, custom ones) take the default.
fn scalar_colour(tag: &str) -> fn(&Schema) -> Option<Rgb> {
    match tag {
        "!!binary" => |_| None,
        "!!float" => |schema| Some(schema.float),
        "!!int" => |schema| Some(schema.int),
        "!!bool" => |schema| Some(schema.boolean),
        "!!null" => |schema| Some(schema.null),
        _ => |schema| Some(schema.scalar_default),
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
