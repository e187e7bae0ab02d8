//! The parse tree: Go's `text/template/parse/node.go` node types, with Go's `String()` text.
//!
//! Runtime errors quote the node being evaluated (`executing "x" at <.Values.foo.bar>`), so every node
//! prints itself exactly as Go's `Node.String()` does, and keeps the byte offset Go reports positions from.

use std::fmt::{self, Write};
use std::sync::Arc;

use smol_str::SmolStr;

use super::number::NumberNode;
use berth_go::strconv;

/// One parsed template: Go's `parse.Tree` (name, the name of the text it was parsed from, and the text,
/// which error positions are computed against).
#[derive(Debug)]
pub struct Tree {
    /// The template's name (`define` name, or the file name for a top-level text).
    pub name: Arc<str>,
    /// The name of the text being parsed when this tree was made (error locations use it).
    pub parse_name: Arc<str>,
    /// The whole text this tree was parsed from (shared by every `define` of that text).
    pub text: Arc<str>,
    /// The body.
    pub root: ListNode,
}

impl Tree {
    /// Go's `Tree.ErrorContext`: `parse_name:line:col` of a byte offset, where the column is the byte offset
    /// from the start of the line (counting from 0 on the first line, as Go does).
    pub fn location(&self, pos: usize) -> (usize, usize) {
        let upto = self.text.get(..pos.min(self.text.len())).unwrap_or("");
        let line = 1 + upto.bytes().filter(|&b| b == b'\n').count();
        let col = match upto.rfind('\n') {
            Some(nl) => pos - (nl + 1),
            None => pos,
        };
        (line, col)
    }

    /// Whether the body is empty of everything but space (Go's `IsEmptyTree`).
    pub fn is_empty(&self) -> bool {
        self.root.is_empty_tree()
    }
}

/// A sequence of nodes.
#[derive(Debug, Clone, Default)]
pub struct ListNode {
    /// Byte offset.
    pub pos: usize,
    /// The nodes in lexical order.
    pub nodes: Vec<Node>,
}

impl ListNode {
    /// Go's `IsEmptyTree` for a list: only whitespace text.
    pub fn is_empty_tree(&self) -> bool {
        self.nodes.iter().all(|n| match n {
            // `bytes.TrimSpace` trims Unicode white space, as `char::is_whitespace` does.
            Node::Text(t) => t.text.trim_matches(char::is_whitespace).is_empty(),
            _ => false,
        })
    }
}

/// A node of a template body.
#[derive(Debug, Clone)]
pub enum Node {
    /// Plain text.
    Text(TextNode),
    /// `{{pipeline}}`.
    Action(ActionNode),
    /// `{{if}}`.
    If(BranchNode),
    /// `{{range}}`.
    Range(BranchNode),
    /// `{{with}}`.
    With(BranchNode),
    /// `{{template "name" pipeline}}`.
    Template(TemplateNode),
    /// `{{break}}` (byte offset).
    Break(usize),
    /// `{{continue}}` (byte offset).
    Continue(usize),
}

impl Node {
    /// Byte offset (Go's `Position()`).
    pub fn pos(&self) -> usize {
        match self {
            Node::Text(t) => t.pos,
            Node::Action(a) => a.pos,
            Node::If(b) | Node::Range(b) | Node::With(b) => b.pos,
            Node::Template(t) => t.pos,
            Node::Break(p) | Node::Continue(p) => *p,
        }
    }
}

/// Plain text.
#[derive(Debug, Clone)]
pub struct TextNode {
    /// Byte offset.
    pub pos: usize,
    /// The text.
    pub text: Arc<str>,
}

/// An action such as `{{.X}}`.
#[derive(Debug, Clone)]
pub struct ActionNode {
    /// Byte offset of the first token of the pipeline.
    pub pos: usize,
    /// The pipeline.
    pub pipe: PipeNode,
}

/// `{{if}}`, `{{range}}` or `{{with}}`.
#[derive(Debug, Clone)]
pub struct BranchNode {
    /// Byte offset (of the pipeline).
    pub pos: usize,
    /// The pipeline.
    pub pipe: PipeNode,
    /// The body.
    pub list: ListNode,
    /// The `{{else}}` body.
    pub else_list: Option<ListNode>,
}

/// `{{template "name" pipeline}}`.
#[derive(Debug, Clone)]
pub struct TemplateNode {
    /// Byte offset of the name.
    pub pos: usize,
    /// The template name.
    pub name: Arc<str>,
    /// The argument pipeline.
    pub pipe: Option<PipeNode>,
}

/// A pipeline with optional declarations: `$x := a | b`.
#[derive(Debug, Clone)]
pub struct PipeNode {
    /// Byte offset.
    pub pos: usize,
    /// `=` rather than `:=`.
    pub is_assign: bool,
    /// Declared or assigned variables, in lexical order.
    pub decl: Vec<VariableNode>,
    /// The commands.
    pub cmds: Vec<CommandNode>,
}

/// One command of a pipeline: operands separated by spaces.
#[derive(Debug, Clone)]
pub struct CommandNode {
    /// Byte offset.
    pub pos: usize,
    /// The operands; the first decides what the command does.
    pub args: Vec<Operand>,
}

/// A `$variable`, possibly followed by fields (`$x.a.b`).
#[derive(Debug, Clone)]
pub struct VariableNode {
    /// Byte offset.
    pub pos: usize,
    /// The variable name (with `$`) then the field names.
    pub ident: Vec<SmolStr>,
}

/// An operand of a command (Go's node types that can appear as arguments).
#[derive(Debug, Clone)]
pub enum Operand {
    /// A function name.
    Identifier {
        /// Byte offset.
        pos: usize,
        /// The name.
        name: SmolStr,
    },
    /// `.`
    Dot(usize),
    /// `nil`
    Nil(usize),
    /// `.a.b` (field names without dots).
    Field {
        /// Byte offset.
        pos: usize,
        /// The field names.
        ident: Vec<SmolStr>,
    },
    /// `$x.a`
    Variable(VariableNode),
    /// `true` / `false`
    Bool {
        /// Byte offset.
        pos: usize,
        /// The value.
        value: bool,
    },
    /// A number literal.
    Number(Box<NumberNode>),
    /// A string literal.
    String {
        /// Byte offset.
        pos: usize,
        /// The literal as written, with quotes.
        quoted: Arc<str>,
        /// The unquoted text.
        text: Arc<str>,
    },
    /// `(pipeline)`
    Pipe(Box<PipeNode>),
    /// `(pipeline).a.b` or `fn.a`: a term followed by fields.
    Chain {
        /// Byte offset (of the first field, as Go records it).
        pos: usize,
        /// The term.
        node: Box<Operand>,
        /// The field names.
        fields: Vec<SmolStr>,
    },
}

impl Operand {
    /// Byte offset (Go's `Position()`).
    pub fn pos(&self) -> usize {
        match self {
            Operand::Identifier { pos, .. }
            | Operand::Dot(pos)
            | Operand::Nil(pos)
            | Operand::Field { pos, .. }
            | Operand::Bool { pos, .. }
            | Operand::String { pos, .. }
            | Operand::Chain { pos, .. } => *pos,
            Operand::Variable(v) => v.pos,
            Operand::Number(n) => n.pos,
            Operand::Pipe(p) => p.pos,
        }
    }
}

// Go's String() text of every node.

impl fmt::Display for ListNode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for n in &self.nodes {
            write!(f, "{n}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Node {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Node::Text(t) => f.write_str(&t.text),
            Node::Action(a) => write!(f, "{a}"),
            Node::If(b) => b.write("if", f),
            Node::Range(b) => b.write("range", f),
            Node::With(b) => b.write("with", f),
            Node::Template(t) => write!(f, "{t}"),
            Node::Break(_) => f.write_str("{{break}}"),
            Node::Continue(_) => f.write_str("{{continue}}"),
        }
    }
}

impl fmt::Display for ActionNode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{{{{{}}}}}", self.pipe)
    }
}

impl BranchNode {
    /// Go's `BranchNode.String()` for the given keyword.
    pub fn write(&self, keyword: &str, f: &mut impl Write) -> fmt::Result {
        write!(f, "{{{{{keyword} {}}}}}{}", self.pipe, self.list)?;
        if let Some(else_list) = &self.else_list {
            write!(f, "{{{{else}}}}{else_list}")?;
        }
        f.write_str("{{end}}")
    }
}

impl fmt::Display for TemplateNode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{{{{template {}", strconv::quote(&self.name))?;
        if let Some(pipe) = &self.pipe {
            write!(f, " {pipe}")?;
        }
        f.write_str("}}")
    }
}

impl fmt::Display for PipeNode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.decl.is_empty() {
            for (i, v) in self.decl.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{v}")?;
            }
            // Go writes ":=" for assignments too.
            f.write_str(" := ")?;
        }
        for (i, c) in self.cmds.iter().enumerate() {
            if i > 0 {
                f.write_str(" | ")?;
            }
            write!(f, "{c}")?;
        }
        Ok(())
    }
}

impl fmt::Display for CommandNode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, arg) in self.args.iter().enumerate() {
            if i > 0 {
                f.write_char(' ')?;
            }
            if let Operand::Pipe(p) = arg {
                write!(f, "({p})")?;
            } else {
                write!(f, "{arg}")?;
            }
        }
        Ok(())
    }
}

impl fmt::Display for VariableNode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, id) in self.ident.iter().enumerate() {
            if i > 0 {
                f.write_char('.')?;
            }
            f.write_str(id)?;
        }
        Ok(())
    }
}

impl fmt::Display for Operand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Operand::Identifier { name, .. } => f.write_str(name),
            Operand::Dot(_) => f.write_char('.'),
            Operand::Nil(_) => f.write_str("nil"),
            Operand::Field { ident, .. } => {
                for id in ident {
                    f.write_char('.')?;
                    f.write_str(id)?;
                }
                Ok(())
            }
            Operand::Variable(v) => write!(f, "{v}"),
            Operand::Bool { value, .. } => f.write_str(if *value { "true" } else { "false" }),
            Operand::Number(n) => f.write_str(&n.text),
            Operand::String { quoted, .. } => f.write_str(quoted),
            Operand::Pipe(p) => write!(f, "{p}"),
            Operand::Chain { node, fields, .. } => {
                if let Operand::Pipe(p) = node.as_ref() {
                    write!(f, "({p})")?;
                } else {
                    write!(f, "{node}")?;
                }
                for field in fields {
                    f.write_char('.')?;
                    f.write_str(field)?;
                }
                Ok(())
            }
        }
    }
}
