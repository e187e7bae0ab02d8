//! Go's `text/template/parse`: the scanner, the parser and the parse tree, ported function for function so
//! that positions, node text and error messages are Go's.

mod lex;
pub(crate) mod node;
pub(crate) mod number;
mod parser;

pub use node::{
    ActionNode, BranchNode, CommandNode, ListNode, Node, Operand, PipeNode, TemplateNode, TextNode, Tree, VariableNode,
};
pub use number::NumberNode;
pub(crate) use parser::parse;
