//! The encoders: `toYaml` as sigs.k8s.io/yaml `Marshal` (Go `json.Marshal`, then `JSONToYAML`: yaml.v2 reads the
//! JSON back and yaml.v2 `Marshal` writes it, 80-column folding included) and `toYamlPretty` as a yaml.v3 encoder
//! with `SetIndent(2)` writing the value directly.

use super::error::YamlError;
use super::go_value::GoValue;
use super::libyaml::emitter::{Emitter, Settings};
use super::libyaml::{CollectionStyle, Event, EventType, ScalarStyle};
use super::nodes::{NodeKind, YamlNode};
use super::read::yaml_v2_unmarshal;
use super::resolve::{plain_allowed_v2, plain_allowed_v3};
use super::sort::{go_sort, key_less};
use berth_go::Value;
use berth_go::json;
use berth_go::strconv::format_float_g;

fn event(typ: EventType) -> Event {
    Event { typ, implicit: true, ..Event::default() }
}

fn scalar(value: &str, style: ScalarStyle) -> Event {
    Event { value: value.as_bytes().to_vec(), scalar_style: style, ..event(EventType::Scalar) }
}

fn collection(typ: EventType) -> Event {
    Event { collection_style: CollectionStyle::Block, ..event(typ) }
}

/// `encoder.floatv`.
fn float_text(f: f64) -> String {
    match format_float_g(f).as_str() {
        "+Inf" => ".inf".to_string(),
        "-Inf" => "-.inf".to_string(),
        "NaN" => ".nan".to_string(),
        other => other.to_string(),
    }
}

/// `encoder.stringv`: literal block for multi-line text, plain when it reads back as the same string, else
/// double-quoted (the emitter may still pick another style).
fn string_event(s: &str, v3: bool) -> Event {
    let plain = if v3 { plain_allowed_v3(s) } else { plain_allowed_v2(s) };
    let style = if s.contains('\n') {
        ScalarStyle::Literal
    } else if plain {
        ScalarStyle::Plain
    } else {
        ScalarStyle::DoubleQuoted
    };
    scalar(s, style)
}

/// Runs `events` through an emitter and returns the text.
struct Writer {
    emitter: Emitter,
}

impl Writer {
    fn new(settings: Settings) -> Result<Writer, String> {
        let mut emitter = Emitter::new(settings);
        emitter.emit(event(EventType::StreamStart))?;
        emitter.emit(event(EventType::DocumentStart))?;
        Ok(Writer { emitter })
    }

    fn emit(&mut self, event: Event) -> Result<(), String> {
        self.emitter.emit(event)
    }

    fn finish(mut self, stream_end: bool) -> Result<String, String> {
        self.emitter.emit(event(EventType::DocumentEnd))?;
        if stream_end {
            // `encoder.finish` clears open_ended before STREAM-END, so no "..." follows.
            self.emitter.clear_open_ended();
            self.emitter.emit(event(EventType::StreamEnd))?;
        }
        String::from_utf8(self.emitter.into_output()).map_err(|error| error.to_string())
    }
}

/// yaml.v2 `Marshal` of a value decoded from JSON (`encoder.marshal`), iteratively.
fn marshal_v2(value: &GoValue) -> Result<String, String> {
    enum Work<'a> {
        Value(&'a GoValue),
        End(EventType),
        Key(&'a str),
    }
    let mut writer = Writer::new(Settings { v3: false, indent: 2, width: 80 })?;
    let mut work = vec![Work::Value(value)];
    while let Some(item) = work.pop() {
        match item {
            Work::End(typ) => writer.emit(event(typ))?,
            Work::Key(key) => writer.emit(string_event(key, false))?,
            Work::Value(value) => match value {
                GoValue::Nil => writer.emit(scalar("null", ScalarStyle::Plain))?,
                GoValue::Bool(b) => writer.emit(scalar(if *b { "true" } else { "false" }, ScalarStyle::Plain))?,
                GoValue::Int(n) => writer.emit(scalar(&n.to_string(), ScalarStyle::Plain))?,
                GoValue::Uint(n) => writer.emit(scalar(&n.to_string(), ScalarStyle::Plain))?,
                GoValue::Float(f) => writer.emit(scalar(&float_text(*f), ScalarStyle::Plain))?,
                GoValue::Str(s) => writer.emit(string_event(s, false))?,
                GoValue::Seq(items) => {
                    writer.emit(collection(EventType::SequenceStart))?;
                    work.push(Work::End(EventType::SequenceEnd));
                    work.extend(items.iter().rev().map(Work::Value));
                }
                GoValue::Map(map) => {
                    writer.emit(collection(EventType::MappingStart))?;
                    work.push(Work::End(EventType::MappingEnd));
                    // JSON-decoded keys are strings.
                    let mut entries: Vec<(&str, &GoValue)> = map
                        .entries()
                        .iter()
                        .map(|(k, v)| match k {
                            GoValue::Str(s) => (s.as_str(), v),
                            _ => ("", v),
                        })
                        .collect();
                    go_sort(&mut entries, &|a: &(&str, &GoValue), b: &(&str, &GoValue)| key_less(a.0, b.0, false));
                    for (key, item) in entries.into_iter().rev() {
                        work.push(Work::Value(item));
                        work.push(Work::Key(key));
                    }
                }
            },
        }
    }
    writer.finish(true)
}

/// sigs.k8s.io/yaml `Marshal`: the YAML text with its final newline, or Go's error message.
pub(crate) fn marshal(value: &Value) -> Result<String, String> {
    let json = json::marshal(value).map_err(|error| format!("error marshaling into JSON: {error}"))?;
    let decoded = yaml_v2_unmarshal(json.as_bytes()).map_err(|(message, _)| message)?;
    marshal_v2(&decoded)
}

/// A yaml.v3 encoder with `SetIndent(2)`, writing `value` as Go holds it (ints stay ints, floats in `'g'` form);
/// `Encode` without `Close`, as `toYamlPretty` does. Host objects are written as their data view. A map that
/// contains itself is an error here (Go recurses until the process dies).
pub(crate) fn marshal_pretty(value: &Value) -> Result<String, String> {
    enum Work {
        Value(Value),
        End(EventType),
        Key(std::sync::Arc<str>),
        LeaveMap,
    }
    let mut writer = Writer::new(Settings { v3: true, indent: 2, width: -1 })?;
    let mut path: Vec<usize> = Vec::new();
    let mut work = vec![Work::Value(value.clone())];
    while let Some(item) = work.pop() {
        match item {
            Work::End(typ) => writer.emit(event(typ))?,
            Work::LeaveMap => {
                path.pop();
            }
            Work::Key(key) => writer.emit(string_event(&key, true))?,
            Work::Value(value) => match value {
                Value::Nil => writer.emit(scalar("null", ScalarStyle::Plain))?,
                Value::Bool(b) => writer.emit(scalar(if b { "true" } else { "false" }, ScalarStyle::Plain))?,
                Value::Int(n) | Value::Int64(n) => writer.emit(scalar(&n.to_string(), ScalarStyle::Plain))?,
                Value::Uint(n) => writer.emit(scalar(&n.to_string(), ScalarStyle::Plain))?,
                Value::Float(f) => writer.emit(scalar(&float_text(f), ScalarStyle::Plain))?,
                Value::String(s) => writer.emit(string_event(&s, true))?,
                Value::List(items) => {
                    writer.emit(collection(EventType::SequenceStart))?;
                    work.push(Work::End(EventType::SequenceEnd));
                    work.extend(items.iter().rev().cloned().map(Work::Value));
                }
                Value::Map(map) => {
                    if path.contains(&map.id()) {
                        return Err("map contains itself".to_string());
                    }
                    path.push(map.id());
                    writer.emit(collection(EventType::MappingStart))?;
                    work.push(Work::LeaveMap);
                    work.push(Work::End(EventType::MappingEnd));
                    let snapshot = map.snapshot();
                    let mut entries: Vec<(&std::sync::Arc<str>, &Value)> = snapshot.iter().collect();
                    go_sort(&mut entries, &|a: &(&std::sync::Arc<str>, &Value), b: &(&std::sync::Arc<str>, &Value)| {
                        key_less(a.0, b.0, true)
                    });
                    for (key, item) in entries.into_iter().rev() {
                        work.push(Work::Value(item.clone()));
                        work.push(Work::Key(key.clone()));
                    }
                }
                Value::Object(object) => work.push(Work::Value(object.to_data())),
                Value::Function(_) => return Err("cannot marshal type: func".to_string()),
            },
        }
    }
    writer.finish(false)
}

/// Encodes a value as Helm's `toYaml` does before trimming (sigs.k8s.io/yaml `Marshal`: Go `json.Marshal`, then
/// yaml.v2 `Marshal` of the JSON read back): sorted keys, yaml.v2's quoting and 80-column folding, block sequences
/// not indented under their key, a final newline.
///
/// # Errors
///
/// Go's message (`error marshaling into JSON: json: unsupported value: NaN`, ...), which `toYaml` swallows and
/// `mustToYaml` reports.
pub fn to_yaml(value: &Value) -> Result<String, YamlError> {
    marshal(value).map_err(|message| YamlError::new(message, None))
}

/// Encodes a value as Helm's `toYamlPretty` does before trimming (a yaml.v3 encoder with `SetIndent(2)`).
///
/// # Errors
///
/// When the value cannot be written (a function, or a map that contains itself).
pub fn to_yaml_pretty(value: &Value) -> Result<String, YamlError> {
    marshal_pretty(value).map_err(|message| YamlError::new(message, None))
}

/// yaml.v3 `Marshal` of a node (`encoder.node` with the default indent of four and no line width): collections
/// in block style, a multi-line string as a literal block, a string that would read as another type double-quoted,
/// other scalars plain, tags left implicit, aliases written as their target. Nodes keep no quoting style of their
/// source, so a string quoted there is written as yaml.v3 would write it fresh. `node` gives each node by id.
///
/// # Errors
///
/// When the emitter refuses an event.
pub fn to_yaml_v3_node<'a>(root: usize, node: &dyn Fn(usize) -> Option<&'a YamlNode>) -> Result<String, YamlError> {
    enum Work {
        Node(usize, usize),
        End(EventType),
    }
    /// Nesting deeper than this is not written (the caller bounds its trees; this keeps the walk finite).
    const MAX_DEPTH: usize = 10_000;
    let run = || -> Result<String, String> {
        let mut writer = Writer::new(Settings { v3: true, indent: 4, width: -1 })?;
        let mut work = vec![Work::Node(root, 0)];
        while let Some(item) = work.pop() {
            let (id, depth) = match item {
                Work::End(typ) => {
                    writer.emit(event(typ))?;
                    continue;
                }
                Work::Node(id, depth) => (id, depth),
            };
            let Some(current) = node(id) else { continue };
            if depth > MAX_DEPTH {
                return Err("a node nests too deep to write".to_string());
            }
            match current.kind {
                NodeKind::Document => {
                    work.extend(current.content.iter().rev().map(|child| Work::Node(*child, depth + 1)))
                }
                NodeKind::Alias => {
                    if let Some(target) = current.alias {
                        work.push(Work::Node(target, depth + 1));
                    }
                }
                NodeKind::Mapping | NodeKind::Sequence => {
                    let (start, end) = if current.kind == NodeKind::Mapping {
                        (EventType::MappingStart, EventType::MappingEnd)
                    } else {
                        (EventType::SequenceStart, EventType::SequenceEnd)
                    };
                    writer.emit(collection(start))?;
                    work.push(Work::End(end));
                    work.extend(current.content.iter().rev().map(|child| Work::Node(*child, depth + 1)));
                }
                NodeKind::Scalar if current.tag == "!!str" => writer.emit(string_event(&current.value, true))?,
                NodeKind::Scalar => writer.emit(scalar(&current.value, ScalarStyle::Plain))?,
            }
        }
        writer.finish(false)
    };
    run().map_err(|message| YamlError::new(message, None))
}

#[cfg(test)]
mod tests {
    use super::to_yaml_v3_node;
    use crate::nodes::parse_nodes;

    /// yaml.v3's `Marshal` of a node: four spaces per level, a sequence under a key indented under it, a literal
    /// block for multi-line text, a string that reads as a boolean double-quoted (yaml.v3 `encode_test.go`'s
    /// indentation and quoting rules).
    #[test]
    fn nodes_are_written_as_yaml_v3_marshals_them() {
        let stream = parse_nodes("a: 1\nb:\n  c: x\n  d:\n  - e\n  - f: g\n    h: i\nj: |\n  k\n  l\nm: 'true'\n")
            .expect("parses");
        let root = stream.nodes[stream.documents[0]].content[0];
        let text = to_yaml_v3_node(root, &|id| stream.nodes.get(id)).expect("writes");
        assert_eq!(
            text,
            "a: 1\nb:\n    c: x\n    d:\n        - e\n        - f: g\n          h: i\nj: |\n    k\n    l\nm: \"true\"\n"
        );
    }
}
