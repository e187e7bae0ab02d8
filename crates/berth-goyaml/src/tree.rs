//! Converting one tree of values into another without recursion (a deep document cannot exhaust the stack): the
//! walk the YAML module's conversions share (yaml.v2 values to JSON-able ones, those to template values, and
//! yaml.v2 values straight to `serde_json`).

/// What converting one node gives: a finished value, or children to convert and how to put them together.
pub(crate) enum Node<I, O> {
    Leaf(O),
    Array(Vec<I>),
    /// Keys and the values under them, in the same order.
    Object(Vec<String>, Vec<I>),
}

/// How the converted children are put together.
pub(crate) struct Assemble<O> {
    pub(crate) array: fn(Vec<O>) -> O,
    pub(crate) object: fn(Vec<String>, Vec<O>) -> O,
}

/// Converts `root` depth first, children in order: `node` splits each value (or refuses it), `assemble` builds
/// arrays and objects from their converted children. `None` for nothing built (only with no root to convert).
pub(crate) fn convert<I, O, E>(
    root: I,
    mut node: impl FnMut(I) -> Result<Node<I, O>, E>,
    assemble: &Assemble<O>,
) -> Result<Option<O>, E> {
    enum Work<I> {
        Convert(I),
        BuildArray(usize),
        BuildObject(Vec<String>),
    }
    let mut work = vec![Work::Convert(root)];
    let mut done: Vec<O> = Vec::new();
    while let Some(item) = work.pop() {
        match item {
            Work::Convert(value) => match node(value)? {
                Node::Leaf(leaf) => done.push(leaf),
                Node::Array(items) => {
                    work.push(Work::BuildArray(items.len()));
                    work.extend(items.into_iter().rev().map(Work::Convert));
                }
                Node::Object(keys, values) => {
                    work.push(Work::BuildObject(keys));
                    work.extend(values.into_iter().rev().map(Work::Convert));
                }
            },
            Work::BuildArray(len) => {
                let items = done.split_off(done.len().saturating_sub(len));
                done.push((assemble.array)(items));
            }
            Work::BuildObject(keys) => {
                let values = done.split_off(done.len().saturating_sub(keys.len()));
                done.push((assemble.object)(keys, values));
            }
        }
    }
    Ok(done.pop())
}
