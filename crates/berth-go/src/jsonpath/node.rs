//! The parse tree of a JSONPath template (client-go util/jsonpath node.go): a template is a list of text and
//! action nodes, an action a flat list of steps. `Display` is node.go's `String()`, which parser_test.go compares.

use std::fmt;

/// One of a slice's three numbers (`[start:end:step]`) as the parser read it (node.go `ParamsEntry`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ParamsEntry {
    pub value: i64,
    /// Whether the text gave it (`[1:]`'s end is not known; its step neither).
    pub known: bool,
    /// An end derived from the start (`[3]` is `[3:4]`): 0 then means "the length", so `[-1]` is the last item.
    pub derived: bool,
}

/// A node of the template.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    /// Text printed as written; also a quoted string inside an action (`{"\n"}`).
    Text(String),
    /// An action (`{...}`): its steps, each applied to the results of the one before.
    List(Vec<Node>),
    /// `.name` or `['name']`: a map's key.
    Field(String),
    /// `range`, `end` (any other word is an error when evaluated).
    Identifier(String),
    /// `[start:end:step]`, `[index]`, `[*]`.
    Array([ParamsEntry; 3]),
    /// `[?(left OPERATOR right)]`, or `[?(left)]` with the operator `exists`.
    Filter {
        left: Vec<Node>,
        right: Vec<Node>,
        operator: String,
    },
    Int(i64),
    Float(f64),
    /// `.*`: every item of a map, list or string.
    Wildcard,
    /// `..`: the value and every list, map and string under it.
    Recursive,
    /// `[a,b]`: each branch's results, in order.
    Union(Vec<Vec<Node>>),
    Bool(bool),
}

impl fmt::Display for ParamsEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{{{} {} {}}}", self.value, self.known, self.derived)
    }
}

impl fmt::Display for Node {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Node::Text(text) => write!(f, "NodeText: {text}"),
            Node::List(_) => f.write_str("NodeList"),
            Node::Field(name) => write!(f, "NodeField: {name}"),
            Node::Identifier(name) => write!(f, "NodeIdentifier: {name}"),
            Node::Array([start, end, step]) => write!(f, "NodeArray: [{start} {end} {step}]"),
            Node::Filter { operator, .. } => write!(f, "NodeFilter: NodeList {operator} NodeList"),
            Node::Int(value) => write!(f, "NodeInt: {value}"),
            Node::Float(value) => write!(f, "NodeFloat: {value:.6}"),
            Node::Wildcard => f.write_str("NodeWildcard"),
            Node::Recursive => f.write_str("NodeRecursive"),
            Node::Union(_) => f.write_str("NodeUnion"),
            Node::Bool(value) => write!(f, "NodeBool: {value}"),
        }
    }
}
