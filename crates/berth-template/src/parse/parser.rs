//! The parser: Go's `text/template/parse/parse.go`, function for function.
//!
//! Keeping Go's structure (three-item look-ahead, `errorf` reporting the line of the last item read, the
//! same contexts in `unexpected X in Y`) is what makes parse errors read exactly as Go's do, which Helm
//! then reformats (`cleanupParseError`).

use std::sync::Arc;

use smol_str::SmolStr;

use super::lex::{Item, ItemType, ItemVal, Lexer};
use super::node::{
    ActionNode, BranchNode, CommandNode, ListNode, Node, Operand, PipeNode, TemplateNode, TextNode, Tree, VariableNode,
};
use super::number::{NumberKind, NumberNode};
use crate::stack::StackGuard;
use berth_go::ParseError;
use berth_go::strconv;

/// Go's `maxStackDepth` for nested parenthesized expressions.
const MAX_PAREN_DEPTH: usize = 10000;
/// Go's `maxPipelineCmds`.
const MAX_PIPELINE_CMDS: usize = 100_000;

type PResult<T> = Result<T, ParseError>;

/// What `textOrAction` produced: a node, or the `{{end}}` / `{{else}}` that closes a list.
enum Parsed {
    Node(Node),
    End,
    Else { pos: usize },
}

impl Parsed {
    fn describe(&self) -> &'static str {
        match self {
            Parsed::End => "{{end}}",
            Parsed::Else { .. } => "{{else}}",
            Parsed::Node(_) => "node",
        }
    }
}

/// Parses `text` (named `name`) into trees: the top-level one and one per `define`/`block`, in the order Go
/// adds them to its tree set. `has_function` answers whether a function name is defined (Go checks at
/// parse time).
pub(crate) fn parse(
    name: &str,
    text: &str,
    left_delim: &str,
    right_delim: &str,
    has_function: &dyn Fn(&str) -> bool,
    stack_budget: usize,
) -> PResult<Vec<Tree>> {
    let shared_text: Arc<str> = Arc::from(text);
    let parse_name: Arc<str> = Arc::from(name);
    let mut lexer = Lexer::new(text, left_delim, right_delim);
    lexer.options.break_ok = !has_function("break");
    lexer.options.continue_ok = !has_function("continue");
    let mut parser = Parser {
        tree_name: Arc::clone(&parse_name),
        parse_name,
        text: shared_text,
        lex: lexer,
        token: [eof_item(), eof_item(), eof_item()],
        peek_count: 0,
        vars: vec![SmolStr::new_static("$")],
        trees: Vec::new(),
        has_function,
        action_line: 0,
        range_depth: 0,
        paren_depth: 0,
        guard: StackGuard::new(stack_budget),
    };
    let root = parser.parse_top()?;
    parser.add(root)?;
    Ok(parser.trees)
}

fn eof_item<'a>() -> Item<'a> {
    Item { typ: ItemType::Eof, pos: 0, val: ItemVal::Slice(""), line: 1 }
}

struct Parser<'a, 'f> {
    /// Name of the tree being built (changes inside `define` and `block`).
    tree_name: Arc<str>,
    parse_name: Arc<str>,
    text: Arc<str>,
    lex: Lexer<'a>,
    token: [Item<'a>; 3],
    peek_count: usize,
    vars: Vec<SmolStr>,
    trees: Vec<Tree>,
    has_function: &'f dyn Fn(&str) -> bool,
    action_line: usize,
    range_depth: usize,
    paren_depth: usize,
    guard: StackGuard,
}

impl<'a> Parser<'a, '_> {
    // Token handling (Go's next, backup, backup2, backup3, peek, nextNonSpace, peekNonSpace).

    fn next(&mut self) -> Item<'a> {
        if self.peek_count > 0 {
            self.peek_count -= 1;
        } else {
            self.token[0] = self.lex.next_item();
        }
        self.token[self.peek_count].clone()
    }

    fn backup(&mut self) {
        self.peek_count += 1;
    }

    fn backup2(&mut self, t1: Item<'a>) {
        self.token[1] = t1;
        self.peek_count = 2;
    }

    fn backup3(&mut self, t2: Item<'a>, t1: Item<'a>) {
        self.token[1] = t1;
        self.token[2] = t2;
        self.peek_count = 3;
    }

    fn peek(&mut self) -> Item<'a> {
        if self.peek_count > 0 {
            return self.token[self.peek_count - 1].clone();
        }
        self.peek_count = 1;
        self.token[0] = self.lex.next_item();
        self.token[0].clone()
    }

    fn next_non_space(&mut self) -> Item<'a> {
        loop {
            let token = self.next();
            if token.typ != ItemType::Space {
                return token;
            }
        }
    }

    fn peek_non_space(&mut self) -> Item<'a> {
        let token = self.next_non_space();
        self.backup();
        token
    }

    // Errors.

    /// Go's `errorf`: `template: NAME:LINE: MSG`, with the line of the last item read.
    fn error(&self, message: impl Into<String>) -> ParseError {
        ParseError { name: self.parse_name.to_string(), line: self.token[0].line, message: message.into() }
    }

    fn unexpected(&self, token: &Item<'_>, context: &str) -> ParseError {
        if token.typ == ItemType::Error {
            let mut extra = String::new();
            if self.action_line != 0 && self.action_line != token.line {
                extra = format!(" in action started at {}:{}", self.parse_name, self.action_line);
                if token.val().ends_with(" action") {
                    extra = extra[" in action".len()..].to_string();
                }
            }
            return self.error(format!("{token}{extra}"));
        }
        self.error(format!("unexpected {token} in {context}"))
    }

    fn expect(&mut self, expected: ItemType, context: &str) -> PResult<Item<'a>> {
        let token = self.next_non_space();
        if token.typ != expected {
            return Err(self.unexpected(&token, context));
        }
        Ok(token)
    }

    fn check_stack(&self) -> PResult<()> {
        if self.guard.exceeded() {
            return Err(self.error(format!(
                "template nesting too deep (parser stack budget of {} bytes spent)",
                self.guard.budget()
            )));
        }
        Ok(())
    }

    // Tree set.

    /// Go's `Tree.add`: installs a tree unless a non-empty one of that name exists.
    fn add(&mut self, root: ListNode) -> PResult<()> {
        let name = Arc::clone(&self.tree_name);
        let tree = Tree {
            name: Arc::clone(&name),
            parse_name: Arc::clone(&self.parse_name),
            text: Arc::clone(&self.text),
            root,
        };
        match self.trees.iter().position(|t| t.name == name) {
            None => self.trees.push(tree),
            Some(i) if self.trees[i].is_empty() => self.trees[i] = tree,
            Some(_) => {
                if !tree.is_empty() {
                    return Err(
                        self.error(format!("template: multiple definition of template {}", strconv::quote(&name)))
                    );
                }
            }
        }
        Ok(())
    }

    // Parsing.

    /// Go's `parse`: the top level, which may also hold `define`s. Runs to EOF.
    fn parse_top(&mut self) -> PResult<ListNode> {
        let mut root = ListNode { pos: self.peek().pos, nodes: Vec::new() };
        while self.peek().typ != ItemType::Eof {
            if self.peek().typ == ItemType::LeftDelim {
                let delim = self.next();
                if self.next_non_space().typ == ItemType::Define {
                    self.parse_definition()?;
                    continue;
                }
                self.backup2(delim);
            }
            match self.text_or_action()? {
                Parsed::Node(n) => root.nodes.push(n),
                other => return Err(self.error(format!("unexpected {}", other.describe()))),
            }
        }
        Ok(root)
    }

    /// Go's `parseDefinition`: `{{define "name"}} ... {{end}}`, the keyword already read.
    fn parse_definition(&mut self) -> PResult<()> {
        const CONTEXT: &str = "define clause";
        let token = self.next_non_space();
        if token.typ != ItemType::String && token.typ != ItemType::RawString {
            return Err(self.unexpected(&token, CONTEXT));
        }
        let name = strconv::unquote(token.val()).map_err(|e| self.error(e.to_string()))?;
        self.expect(ItemType::RightDelim, CONTEXT)?;
        // A definition is a new tree: its own name and variables, no enclosing range.
        let saved_name = std::mem::replace(&mut self.tree_name, Arc::from(name.as_str()));
        let saved_vars = std::mem::replace(&mut self.vars, vec![SmolStr::new_static("$")]);
        let saved_range = std::mem::replace(&mut self.range_depth, 0);
        let saved_paren = std::mem::replace(&mut self.paren_depth, 0);
        let result = (|| {
            let (list, end) = self.item_list()?;
            if !matches!(end, Parsed::End) {
                return Err(self.error(format!("unexpected {} in {CONTEXT}", end.describe())));
            }
            self.add(list)
        })();
        self.tree_name = saved_name;
        self.vars = saved_vars;
        self.range_depth = saved_range;
        self.paren_depth = saved_paren;
        result
    }

    /// Go's `itemList`: nodes up to `{{end}}` or `{{else}}`, returned separately.
    fn item_list(&mut self) -> PResult<(ListNode, Parsed)> {
        self.check_stack()?;
        let mut list = ListNode { pos: self.peek_non_space().pos, nodes: Vec::new() };
        while self.peek_non_space().typ != ItemType::Eof {
            match self.text_or_action()? {
                Parsed::Node(n) => list.nodes.push(n),
                end => return Ok((list, end)),
            }
        }
        Err(self.error("unexpected EOF"))
    }

    /// Go's `textOrAction`.
    fn text_or_action(&mut self) -> PResult<Parsed> {
        let token = self.next_non_space();
        match token.typ {
            ItemType::Text => Ok(Parsed::Node(Node::Text(TextNode { pos: token.pos, text: Arc::from(token.val()) }))),
            ItemType::LeftDelim => {
                self.action_line = token.line;
                let result = self.action();
                self.action_line = 0;
                result
            }
            _ => Err(self.unexpected(&token, "input")),
        }
    }

    /// Go's `action`: a control keyword or a pipeline, the left delimiter already read.
    fn action(&mut self) -> PResult<Parsed> {
        let token = self.next_non_space();
        match token.typ {
            ItemType::Block => return self.block_control().map(Parsed::Node),
            ItemType::Break => return self.break_control(token.pos, "{{break}}", true),
            ItemType::Continue => return self.break_control(token.pos, "{{continue}}", false),
            ItemType::Else => return self.else_control(),
            ItemType::End => return self.end_control(),
            ItemType::If => return self.branch_control("if").map(|b| Parsed::Node(Node::If(b))),
            ItemType::Range => {
                return self.branch_control("range").map(|b| Parsed::Node(Node::Range(b)));
            }
            ItemType::Template => return self.template_control().map(Parsed::Node),
            ItemType::With => {
                return self.branch_control("with").map(|b| Parsed::Node(Node::With(b)));
            }
            _ => {}
        }
        self.backup();
        let token = self.peek();
        // Variables are not popped: they persist until "end".
        let pipe = self.pipeline("command", ItemType::RightDelim)?;
        Ok(Parsed::Node(Node::Action(ActionNode { pos: token.pos, pipe })))
    }

    /// Go's `breakControl` / `continueControl`.
    fn break_control(&mut self, pos: usize, context: &str, is_break: bool) -> PResult<Parsed> {
        let token = self.next_non_space();
        if token.typ != ItemType::RightDelim {
            return Err(self.unexpected(&token, context));
        }
        if self.range_depth == 0 {
            return Err(self.error(format!("{context} outside {{{{range}}}}")));
        }
        Ok(Parsed::Node(if is_break { Node::Break(pos) } else { Node::Continue(pos) }))
    }

    /// Go's `pipeline`: declarations, then commands up to `end`.
    fn pipeline(&mut self, context: &str, end: ItemType) -> PResult<PipeNode> {
        let token = self.peek_non_space();
        let mut pipe = PipeNode { pos: token.pos, is_assign: false, decl: Vec::new(), cmds: Vec::new() };
        // Declarations or assignments?
        'decls: loop {
            let v = self.peek_non_space();
            if v.typ != ItemType::Variable {
                break;
            }
            self.next();
            // Three-token look-ahead: in "$x foo" we must read "foo" to know $x is an argument.
            let token_after_variable = self.peek();
            let next = self.peek_non_space();
            if next.typ == ItemType::Assign || next.typ == ItemType::Declare {
                pipe.is_assign = next.typ == ItemType::Assign;
                self.next_non_space();
                pipe.decl.push(new_variable(v.pos, v.val()));
                self.vars.push(SmolStr::from(v.val()));
            } else if next.typ == ItemType::Char && next.val() == "," {
                self.next_non_space();
                pipe.decl.push(new_variable(v.pos, v.val()));
                self.vars.push(SmolStr::from(v.val()));
                if context == "range" && pipe.decl.len() < 2 {
                    match self.peek_non_space().typ {
                        ItemType::Variable | ItemType::RightDelim | ItemType::RightParen => {
                            // Second initialized variable in a range pipeline.
                            continue 'decls;
                        }
                        _ => return Err(self.error("range can only initialize variables")),
                    }
                }
                return Err(self.error(format!("too many declarations in {context}")));
            } else if token_after_variable.typ == ItemType::Space {
                self.backup3(v, token_after_variable);
            } else {
                self.backup2(v);
            }
            break;
        }
        loop {
            let token = self.next_non_space();
            match token.typ {
                t if t == end => {
                    self.check_pipeline(&pipe, context)?;
                    return Ok(pipe);
                }
                ItemType::Bool
                | ItemType::CharConstant
                | ItemType::Complex
                | ItemType::Dot
                | ItemType::Field
                | ItemType::Identifier
                | ItemType::Number
                | ItemType::Nil
                | ItemType::RawString
                | ItemType::String
                | ItemType::Variable
                | ItemType::LeftParen => {
                    self.backup();
                    let cmd = self.command()?;
                    pipe.cmds.push(cmd);
                    if pipe.cmds.len() > MAX_PIPELINE_CMDS {
                        return Err(self.error("pipeline too long"));
                    }
                }
                _ => return Err(self.unexpected(&token, context)),
            }
        }
    }

    /// Go's `checkPipeline`.
    fn check_pipeline(&self, pipe: &PipeNode, context: &str) -> PResult<()> {
        if pipe.cmds.is_empty() {
            return Err(self.error(format!("missing value for {context}")));
        }
        for (i, c) in pipe.cmds.iter().enumerate().skip(1) {
            if matches!(
                c.args.first(),
                Some(
                    Operand::Bool { .. }
                        | Operand::Dot(_)
                        | Operand::Nil(_)
                        | Operand::Number(_)
                        | Operand::String { .. }
                )
            ) {
                return Err(self.error(format!("non executable command in pipeline stage {}", i + 1)));
            }
        }
        Ok(())
    }

    /// Go's `parseControl` for `if`, `range` and `with`.
    fn branch_control(&mut self, context: &str) -> PResult<BranchNode> {
        let vars_mark = self.vars.len();
        let result = self.branch_control_inner(context);
        self.vars.truncate(vars_mark);
        result
    }

    fn branch_control_inner(&mut self, context: &str) -> PResult<BranchNode> {
        self.check_stack()?;
        let pipe = self.pipeline(context, ItemType::RightDelim)?;
        if context == "range" {
            self.range_depth += 1;
        }
        let listed = self.item_list();
        if context == "range" {
            self.range_depth -= 1;
        }
        let (list, next) = listed?;
        let mut else_list = None;
        match next {
            Parsed::End => {}
            Parsed::Else { pos } => {
                // "{{else if ...}}" / "{{else with ...}}": parse the inner control up to its {{end}}, which
                // also ends this one.
                let peeked = self.peek().typ;
                if context == "if" && peeked == ItemType::If {
                    self.next();
                    let inner = self.branch_control("if")?;
                    else_list = Some(ListNode { pos, nodes: vec![Node::If(inner)] });
                } else if context == "with" && peeked == ItemType::With {
                    self.next();
                    let inner = self.branch_control("with")?;
                    else_list = Some(ListNode { pos, nodes: vec![Node::With(inner)] });
                } else {
                    let (list, next) = self.item_list()?;
                    if !matches!(next, Parsed::End) {
                        return Err(self.error(format!("expected end; found {}", next.describe())));
                    }
                    else_list = Some(list);
                }
            }
            Parsed::Node(_) => {}
        }
        Ok(BranchNode { pos: pipe.pos, pipe, list, else_list })
    }

    /// Go's `endControl`.
    fn end_control(&mut self) -> PResult<Parsed> {
        self.expect(ItemType::RightDelim, "end")?;
        Ok(Parsed::End)
    }

    /// Go's `elseControl`: `{{else}}`, or the `else` of `{{else if}}` / `{{else with}}`.
    fn else_control(&mut self) -> PResult<Parsed> {
        let peek = self.peek_non_space();
        if peek.typ == ItemType::If || peek.typ == ItemType::With {
            return Ok(Parsed::Else { pos: peek.pos });
        }
        let token = self.expect(ItemType::RightDelim, "else")?;
        Ok(Parsed::Else { pos: token.pos })
    }

    /// Go's `blockControl`: `{{block "name" pipeline}} ... {{end}}` defines and invokes.
    fn block_control(&mut self) -> PResult<Node> {
        const CONTEXT: &str = "block clause";
        let token = self.next_non_space();
        let name = self.parse_template_name(&token, CONTEXT)?;
        let pipe = self.pipeline(CONTEXT, ItemType::RightDelim)?;

        let saved_name = std::mem::replace(&mut self.tree_name, Arc::from(name.as_str()));
        let saved_vars = std::mem::replace(&mut self.vars, vec![SmolStr::new_static("$")]);
        let saved_range = std::mem::replace(&mut self.range_depth, 0);
        let saved_paren = std::mem::replace(&mut self.paren_depth, 0);
        let result = (|| {
            let (list, end) = self.item_list()?;
            if !matches!(end, Parsed::End) {
                return Err(self.error(format!("unexpected {} in {CONTEXT}", end.describe())));
            }
            self.add(list)
        })();
        self.tree_name = saved_name;
        self.vars = saved_vars;
        self.range_depth = saved_range;
        self.paren_depth = saved_paren;
        result?;

        Ok(Node::Template(TemplateNode { pos: token.pos, name: Arc::from(name.as_str()), pipe: Some(pipe) }))
    }

    /// Go's `templateControl`.
    fn template_control(&mut self) -> PResult<Node> {
        const CONTEXT: &str = "template clause";
        let token = self.next_non_space();
        let name = self.parse_template_name(&token, CONTEXT)?;
        let mut pipe = None;
        if self.next_non_space().typ != ItemType::RightDelim {
            self.backup();
            pipe = Some(self.pipeline(CONTEXT, ItemType::RightDelim)?);
        }
        Ok(Node::Template(TemplateNode { pos: token.pos, name: Arc::from(name.as_str()), pipe }))
    }

    fn parse_template_name(&self, token: &Item<'_>, context: &str) -> PResult<String> {
        match token.typ {
            ItemType::String | ItemType::RawString => {
                strconv::unquote(token.val()).map_err(|e| self.error(e.to_string()))
            }
            _ => Err(self.unexpected(token, context)),
        }
    }

    /// Go's `command`: operands separated by spaces, up to `|` or the end of the pipeline.
    fn command(&mut self) -> PResult<CommandNode> {
        let mut cmd = CommandNode { pos: self.peek_non_space().pos, args: Vec::new() };
        loop {
            self.peek_non_space(); // skip leading spaces.
            if let Some(operand) = self.operand()? {
                cmd.args.push(operand);
            }
            let token = self.next();
            match token.typ {
                ItemType::Space => continue,
                ItemType::RightDelim | ItemType::RightParen => self.backup(),
                ItemType::Pipe => {}
                _ => return Err(self.unexpected(&token, "operand")),
            }
            break;
        }
        if cmd.args.is_empty() {
            return Err(self.error("empty command"));
        }
        Ok(cmd)
    }

    /// Go's `operand`: a term possibly followed by field accesses.
    fn operand(&mut self) -> PResult<Option<Operand>> {
        let Some(node) = self.term()? else {
            return Ok(None);
        };
        if self.peek().typ != ItemType::Field {
            return Ok(Some(node));
        }
        let chain_pos = self.peek().pos;
        let mut fields: Vec<SmolStr> = Vec::new();
        while self.peek().typ == ItemType::Field {
            let field = self.next();
            let name = field.val().strip_prefix('.').unwrap_or(field.val());
            fields.push(SmolStr::from(name));
        }
        // Fields after a field or variable extend it; after a literal they are an error.
        Ok(Some(match node {
            Operand::Field { mut ident, .. } => {
                ident.extend(fields);
                Operand::Field { pos: chain_pos, ident }
            }
            Operand::Variable(mut v) => {
                v.ident.extend(fields);
                v.pos = chain_pos;
                Operand::Variable(v)
            }
            Operand::Bool { .. } | Operand::String { .. } | Operand::Number(_) | Operand::Nil(_) | Operand::Dot(_) => {
                return Err(self.error(format!("unexpected . after term {}", strconv::quote(&node.to_string()))));
            }
            other => Operand::Chain { pos: chain_pos, node: Box::new(other), fields },
        }))
    }

    /// Go's `term`: a literal, function name, `.`, field, variable or parenthesized pipeline.
    fn term(&mut self) -> PResult<Option<Operand>> {
        let token = self.next_non_space();
        let pos = token.pos;
        Ok(Some(match token.typ {
            ItemType::Identifier => {
                if !(self.has_function)(token.val()) {
                    return Err(self.error(format!("function {} not defined", strconv::quote(token.val()))));
                }
                Operand::Identifier { pos, name: SmolStr::from(token.val()) }
            }
            ItemType::Dot => Operand::Dot(pos),
            ItemType::Nil => Operand::Nil(pos),
            ItemType::Variable => self.use_var(pos, token.val())?,
            ItemType::Field => {
                Operand::Field { pos, ident: vec![SmolStr::from(token.val().strip_prefix('.').unwrap_or(""))] }
            }
            ItemType::Bool => Operand::Bool { pos, value: token.val() == "true" },
            ItemType::CharConstant | ItemType::Complex | ItemType::Number => {
                let kind = match token.typ {
                    ItemType::CharConstant => NumberKind::Char,
                    ItemType::Complex => NumberKind::Complex,
                    _ => NumberKind::Number,
                };
                let number = NumberNode::parse(pos, token.val(), kind).map_err(|e| self.error(e))?;
                Operand::Number(Box::new(number))
            }
            ItemType::LeftParen => {
                if self.paren_depth >= MAX_PAREN_DEPTH {
                    return Err(self.error("max expression depth exceeded"));
                }
                self.check_stack()?;
                self.paren_depth += 1;
                let pipe = self.pipeline("parenthesized pipeline", ItemType::RightParen);
                self.paren_depth -= 1;
                Operand::Pipe(Box::new(pipe?))
            }
            ItemType::String | ItemType::RawString => {
                let text = strconv::unquote(token.val()).map_err(|e| self.error(e.to_string()))?;
                Operand::String { pos, quoted: Arc::from(token.val()), text: Arc::from(text.as_str()) }
            }
            _ => {
                self.backup();
                return Ok(None);
            }
        }))
    }

    /// Go's `useVar`: a variable reference must name a declared variable.
    fn use_var(&self, pos: usize, name: &str) -> PResult<Operand> {
        let v = new_variable(pos, name);
        let first = v.ident.first().cloned().unwrap_or_default();
        if self.vars.contains(&first) {
            return Ok(Operand::Variable(v));
        }
        Err(self.error(format!("undefined variable {}", strconv::quote(&first))))
    }
}

fn new_variable(pos: usize, ident: &str) -> VariableNode {
    VariableNode { pos, ident: ident.split('.').map(SmolStr::from).collect() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_err(text: &str) -> String {
        let known = |name: &str| matches!(name, "printf" | "len" | "and" | "not" | "index");
        match parse("t", text, "", "", &known, 1 << 20) {
            Ok(_) => "ok".to_string(),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn errors_are_worded_as_go() {
        let cases = [
            ("{{.X", "template: t:1: unclosed action"),
            ("{{if .X}}", "template: t:1: unexpected EOF"),
            ("{{end}}", "template: t:1: unexpected {{end}}"),
            ("{{foo}}", "template: t:1: function \"foo\" not defined"),
            ("{{$x}}", "template: t:1: undefined variable \"$x\""),
            ("{{range .X}}{{else}}{{else}}{{end}}", "template: t:1: expected end; found {{else}}"),
            ("{{break}}", "template: t:1: {{break}} outside {{range}}"),
            ("{{.X | 3}}", "template: t:1: non executable command in pipeline stage 2"),
            ("{{\"a\".b}}", "template: t:1: unexpected . after term \"\\\"a\\\"\""),
            (
                "{{define \"a\"}}x{{end}}{{define \"a\"}}y{{end}}",
                "template: t:1: template: multiple definition of template \"a\"",
            ),
            ("\n\n{{if}}", "template: t:3: missing value for if"),
            ("{{template .X}}", "template: t:1: unexpected \".X\" in template clause"),
            ("{{#}}", "template: t:1: unexpected \"#\" in command"),
            ("{{range $a, $b, $c := .}}{{end}}", "template: t:1: too many declarations in range"),
            ("{{with $x, $y := 1}}{{end}}", "template: t:1: too many declarations in with"),
            ("{{with $x := 1, 2}}{{end}}", "template: t:1: unexpected \",\" in operand"),
            ("{{.X\n}", "template: t:2: unexpected \"}\" in operand"),
            ("{{(1}}", "template: t:1: unclosed left paren"),
        ];
        for (text, want) in cases {
            assert_eq!(parse_err(text), want, "{text:?}");
        }
    }

    #[test]
    fn node_text_and_positions_match_go() {
        let trees = parse("t", "ab{{ .Values.foo.bar }}", "", "", &|_| true, 1 << 20).unwrap();
        let Some(Node::Action(action)) = trees[0].root.nodes.get(1) else {
            panic!("expected an action");
        };
        assert_eq!(action.to_string(), "{{.Values.foo.bar}}");
        // Go records a chained field at the position of its second element.
        let field = &action.pipe.cmds[0].args[0];
        assert_eq!(field.pos(), 12);
        assert_eq!(trees[0].location(field.pos()), (1, 12));
    }

    #[test]
    fn defines_are_separate_trees() {
        let trees =
            parse("t", "a{{define \"x\"}}b{{end}}{{block \"y\" .}}c{{end}}", "", "", &|_| true, 1 << 20).unwrap();
        let names: Vec<&str> = trees.iter().map(|t| t.name.as_ref()).collect();
        assert_eq!(names, ["x", "y", "t"]);
    }
}
