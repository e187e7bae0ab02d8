//! Cases ported from client-go v0.35.1 util/jsonpath parser_test.go and jsonpath_test.go (test and case names
//! kept), over the data those tests decode from JSON (so numbers are float64, as in Helm's values). The struct
//! inputs of TestStructInput have no counterpart in berth's values and are left out.

use super::*;
use crate::json::decode;

fn data(json: &str) -> Value {
    decode(json).expect("test data is valid JSON").value
}

/// testJSONPath: the output, or `Err` with the parse or execute error.
fn run(template: &str, input: &Value, allow_missing_keys: bool) -> Result<String, String> {
    let path = JsonPath::parse(template).map_err(|error| error.to_string())?.allow_missing_keys(allow_missing_keys);
    let mut out = String::new();
    path.execute(input, &mut out).map_err(|error| error.to_string())?;
    Ok(out)
}

fn check(cases: &[(&str, &str, &str)], input: &Value, allow_missing_keys: bool) {
    for (name, template, expected) in cases {
        assert_eq!(run(template, input, allow_missing_keys).as_deref(), Ok(*expected), "{name}: {template}");
    }
}

fn check_errors(cases: &[(&str, &str, &str)], input: &Value) {
    for (name, template, expected) in cases {
        assert_eq!(run(template, input, false), Err(expected.to_string()), "{name}: {template}");
    }
}

/// parser_test.go's collectNode: every node in pre-order, the root left out.
fn collect(nodes: &[Node], out: &mut Vec<String>) {
    for node in nodes {
        out.push(node.to_string());
        match node {
            Node::List(steps) => collect(steps, out),
            Node::Filter { left, right, .. } => {
                out.push("NodeList".into());
                collect(left, out);
                out.push("NodeList".into());
                collect(right, out);
            }
            Node::Union(branches) => {
                for branch in branches {
                    out.push("NodeList".into());
                    collect(branch, out);
                }
            }
            _ => {}
        }
    }
}

#[test]
fn parser() {
    let cases: [(&str, &str, &[&str]); 21] = [
        ("plain", "hello jsonpath", &["NodeText: hello jsonpath"]),
        ("variable", "hello {.jsonpath}", &["NodeText: hello ", "NodeList", "NodeField: jsonpath"]),
        ("arrayfiled", "hello {['jsonpath']}", &["NodeText: hello ", "NodeList", "NodeField: jsonpath"]),
        ("quote", r#"{"{"}"#, &["NodeList", "NodeText: {"]),
        ("array", "{[1:3]}", &["NodeList", "NodeArray: [{1 true false} {3 true false} {0 false false}]"]),
        (
            "allarray",
            "{.book[*].author}",
            &[
                "NodeList",
                "NodeField: book",
                "NodeArray: [{0 false false} {0 false false} {0 false false}]",
                "NodeField: author",
            ],
        ),
        ("wildcard", "{.bicycle.*}", &["NodeList", "NodeField: bicycle", "NodeWildcard"]),
        (
            "filter",
            "{[?(@.price<3)]}",
            &["NodeList", "NodeFilter: NodeList < NodeList", "NodeList", "NodeField: price", "NodeList", "NodeInt: 3"],
        ),
        ("recursive", "{..}", &["NodeList", "NodeRecursive"]),
        ("recurField", "{..price}", &["NodeList", "NodeRecursive", "NodeField: price"]),
        ("arraydict", "{['book.price']}", &["NodeList", "NodeField: book", "NodeField: price"]),
        (
            "union",
            "{['bicycle.price', 3, 'book.price']}",
            &[
                "NodeList",
                "NodeUnion",
                "NodeList",
                "NodeField: bicycle",
                "NodeField: price",
                "NodeList",
                "NodeArray: [{3 true false} {4 true true} {0 false false}]",
                "NodeList",
                "NodeField: book",
                "NodeField: price",
            ],
        ),
        (
            "range",
            "{range .items}{.name},{end}",
            &[
                "NodeList",
                "NodeIdentifier: range",
                "NodeField: items",
                "NodeList",
                "NodeField: name",
                "NodeText: ,",
                "NodeList",
                "NodeIdentifier: end",
            ],
        ),
        (
            "paired parentheses in quotes",
            r#"{[?(@.status.nodeInfo.osImage == "()")]}"#,
            &[
                "NodeList",
                "NodeFilter: NodeList == NodeList",
                "NodeList",
                "NodeField: status",
                "NodeField: nodeInfo",
                "NodeField: osImage",
                "NodeList",
                "NodeText: ()",
            ],
        ),
        (
            "paired parentheses in double quotes and with double quotes escape",
            r#"{[?(@.status.nodeInfo.osImage == "(\"\")")]}"#,
            &[
                "NodeList",
                "NodeFilter: NodeList == NodeList",
                "NodeList",
                "NodeField: status",
                "NodeField: nodeInfo",
                "NodeField: osImage",
                "NodeList",
                r#"NodeText: ("")"#,
            ],
        ),
        (
            "unregular parentheses in double quotes",
            r#"{[?(@.test == "())(")]}"#,
            &[
                "NodeList",
                "NodeFilter: NodeList == NodeList",
                "NodeList",
                "NodeField: test",
                "NodeList",
                "NodeText: ())(",
            ],
        ),
        (
            "single containing escaped single",
            r"{[?(@.status.nodeInfo.osImage == '\\\'')]}",
            &[
                "NodeList",
                "NodeFilter: NodeList == NodeList",
                "NodeList",
                "NodeField: status",
                "NodeField: nodeInfo",
                "NodeField: osImage",
                "NodeList",
                r"NodeText: \'",
            ],
        ),
        (
            "negative index slice, equals a[len-5] to a[len-1]",
            "{[-5:]}",
            &["NodeList", "NodeArray: [{-5 true false} {0 false false} {0 false false}]"],
        ),
        (
            "negative index slice, equals a[len-1]",
            "{[-1]}",
            &["NodeList", "NodeArray: [{-1 true false} {0 true true} {0 false false}]"],
        ),
        (
            "negative index slice, equals a[1] to a[len-1]",
            "{[1:-1]}",
            &["NodeList", "NodeArray: [{1 true false} {-1 true false} {0 false false}]"],
        ),
        ("float", "{1.5}", &["NodeList", "NodeFloat: 1.500000"]),
    ];
    for (name, text, expected) in cases {
        let path = JsonPath::parse(text).unwrap_or_else(|error| panic!("{name}: {error}"));
        let mut nodes = Vec::new();
        collect(path.nodes(), &mut nodes);
        assert_eq!(nodes, expected, "{name}");
    }
}

#[test]
fn fail_parser() {
    let cases = [
        ("unclosed action", "{.hello", "unclosed action"),
        ("unrecognized character", "{*}", "unrecognized character in action: U+002A '*'"),
        ("invalid number", "{+12.3.0}", "cannot parse number +12.3.0"),
        ("unterminated array", "{[1}", "unterminated array"),
        ("unterminated filter", "{[?(.price]}", "unterminated filter"),
        ("invalid multiple recursive descent", "{........}", "invalid multiple recursive descent"),
        // Beyond parser_test.go, each of parser.go's other errors.
        ("malformat input", r"{\\\}", "unrecognized character in action: U+005C '\\'"),
        ("unprintable", "{\u{1}}", "unrecognized character in action: U+0001"),
        ("invalid array index", "{[a b]}", "invalid array index a b"),
        ("index not a number", "{[-]}", "array index - is not a number"),
        ("unclosed filter", "{[?(@.a)x]}", "unclosed array expect ]"),
        ("unterminated quote", r#"{"abc}"#, "unterminated quoted string"),
        ("bad escape", r#"{"\q"}"#, r#"unquote string "\q" error invalid syntax"#),
        ("newline in action", "{.a\n}", "unclosed action"),
    ];
    for (name, text, expected) in cases {
        assert_eq!(
            JsonPath::parse(text).map(|_| ()).map_err(|error| error.to_string()),
            Err(expected.into()),
            "{name}"
        );
    }
}

/// TestTypesInput, for the element types values hold (Go `int` lists stand for integers).
#[test]
fn types_input() {
    let types = Value::map([
        ("bools", Value::list([true, false, true, false].map(Value::Bool))),
        ("integers", Value::list([1, 2, 3, 4].map(Value::Int))),
        ("floats", Value::list([1.0, 2.2, 3.3, 4.0].map(Value::Float))),
        ("strings", Value::list(["one", "two", "three", "four"].map(Value::from))),
        ("interfaces", Value::list([Value::Bool(true), Value::from("one"), Value::Int(1), Value::Float(1.1)])),
        (
            "maps",
            data(
                r#"[{"name": "one", "value": 1}, {"name": "two", "value": 2.02}, {"name": "three", "value": 3.03},
                    {"name": "four", "value": 4.04}]"#,
            ),
        ),
    ]);
    check(
        &[
            ("boolSlice", "{ .bools }", "[true,false,true,false]"),
            ("boolSliceIndex", "{ .bools[0] }", "true"),
            ("boolSliceIndex", "{ .bools[-1] }", "false"),
            ("boolSubSlice", "{ .bools[0:2] }", "true false"),
            ("boolSubSliceFirst2", "{ .bools[:2] }", "true false"),
            ("boolSubSliceStep2", "{ .bools[:4:2] }", "true true"),
            ("integerSlice", "{ .integers }", "[1,2,3,4]"),
            ("integerSliceIndexReverse", "{ .integers[-2] }", "3"),
            ("integerSubSliceStep2", "{ .integers[:4:2] }", "1 3"),
            ("floatSlice", "{ .floats }", "[1,2.2,3.3,4]"),
            ("floatSliceIndex", "{ .floats[0] }", "1"),
            ("floatSliceIndexReverse", "{ .floats[-2] }", "3.3"),
            ("floatSubSliceStep2", "{ .floats[:4:2] }", "1 3.3"),
            ("stringSlice", "{ .strings }", r#"["one","two","three","four"]"#),
            ("stringSliceIndexReverse", "{ .strings[-2] }", "three"),
            ("stringSubSliceFirst2", "{ .strings[0:2] }", "one two"),
            ("interfaceSlice", "{ .interfaces }", r#"[true,"one",1,1.1]"#),
            ("interfaceSubSliceFirst2", "{ .interfaces[0:2] }", "true one"),
            ("interfaceSubSliceStep2", "{ .interfaces[:4:2] }", "true 1"),
            (
                "mapSlice",
                "{ .maps }",
                r#"[{"name":"one","value":1},{"name":"two","value":2.02},{"name":"three","value":3.03},{"name":"four","value":4.04}]"#,
            ),
            ("mapSliceIndex", "{ .maps[0] }", r#"{"name":"one","value":1}"#),
            ("mapSubSliceStepOdd", "{ .maps[::2] }", r#"{"name":"one","value":1} {"name":"three","value":3.03}"#),
            ("mapSubSliceStepEven", "{ .maps[1::2] }", r#"{"name":"two","value":2.02} {"name":"four","value":4.04}"#),
        ],
        &types,
        false,
    );
}

/// TestStructInput's cases that do not need Go structs.
#[test]
fn store_input() {
    let numbers = Value::list([1, 2, 3].map(Value::Int));
    check(&[("recursive", "{..}", "[1,2,3]")], &numbers, false);
    check(&[("filter", "{[?(@<5)]}", "2 3")], &Value::list([2, 6, 3, 7].map(Value::Int)), false);
    check(&[("plain", "hello jsonpath", "hello jsonpath"), ("quote", r#"{"{"}"#, "{")], &Value::Nil, false);
    check(&[("union", "{[1,3,4]}", "1 3 4")], &Value::list([0, 1, 2, 3, 4].map(Value::Int)), false);
    check(&[("array", "{[0:2]}", "Monday Tudesday")], &Value::list(["Monday", "Tudesday"].map(Value::from)), false);
    let store = data(
        r#"{"Name": "jsonpath", "Labels": {"engieer": 10, "web/html": 15, "k8s-app": 20},
            "Employees": {"jason": "manager", "dan": "clerk"},
            "Bicycle": [{"Color": "red", "Price": 19.95, "IsNew": true}, {"Color": "green", "Price": 20.01, "IsNew": false}],
            "Book": [{"Author": "Nigel Rees", "Price": 8.95}, {"Author": "Evelyn Waugh", "Price": 12.99},
                     {"Author": "Herman Melville", "Price": 8.99}]}"#,
    );
    check(
        &[
            ("variable", "hello {.Name}", "hello jsonpath"),
            ("dict/", "{$.Labels.web/html}", "15"),
            ("dict/", "{$.Employees.jason}", "manager"),
            ("dict-", "{.Labels.k8s-app}", "20"),
            ("nest", "{.Bicycle[*].Color}", "red green"),
            ("allarray", "{.Book[*].Author}", "Nigel Rees Evelyn Waugh Herman Melville"),
            // Go prints a struct's fields in declaration order; a map's values come in key order here.
            ("allfields", r#"{range .Bicycle[*]}{ "{" }{ @.* }{ "} " }{end}"#, "{red true 19.95} {green false 20.01} "),
            ("recurfields", "{..Price}", "19.95 20.01 8.95 12.99 8.99"),
            ("recurdotfields", "{...Price}", "19.95 20.01 8.95 12.99 8.99"),
            ("lastarray", "{.Book[-1:]}", r#"{"Author":"Herman Melville","Price":8.99}"#),
            ("recurarray", "{..Book[2]}", r#"{"Author":"Herman Melville","Price":8.99}"#),
            ("bool", "{.Bicycle[?(@.IsNew==true)]}", r#"{"Color":"red","IsNew":true,"Price":19.95}"#),
        ],
        &store,
        false,
    );
    check(
        &[("nonexistent field", "{.hello}", ""), ("nonexistent field 2", "before-{.hello}after", "before-after")],
        &store,
        true,
    );
    check_errors(
        &[
            ("invalid identifier", "{hello}", "unrecognized identifier hello"),
            ("nonexistent field", "{.hello}", "hello is not found"),
            ("invalid array", "{.Labels[0]}", "map[string]interface {} is not array or slice"),
            ("invalid filter operator", "{.Book[?(@.Price<>10.0)]}", "unrecognized filter operator <>"),
            ("redundant end", "{range .Labels.*}{@}{end}{end}", "not in range, nothing to end"),
            (
                "superrecurfields",
                "{............................................................Price}",
                "invalid multiple recursive descent",
            ),
        ],
        &store,
    );
}

#[test]
fn json_input() {
    let points = data(
        r#"[{"id": "i1", "x":4, "y":-5}, {"id": "i2", "x":-2, "y":-5, "z":1}, {"id": "i3", "x":  8, "y":  3 },
            {"id": "i4", "x": -6, "y": -1 }, {"id": "i5", "x":  0, "y":  2, "z": 1 }, {"id": "i6", "x":  1, "y":  4 },
            {"id": "i7", "x":  null, "y":  4 }]"#,
    );
    check(
        &[
            ("exists filter", "{[?(@.z)].id}", "i2 i5"),
            ("bracket key", "{[0]['id']}", "i1"),
            ("nil value", "{[-1]['x']}", "null"),
        ],
        &points,
        false,
    );
}

const NODES: &str = r#"{
  "kind": "List",
  "items": [
    {"kind": "None", "metadata": {"name": "127.0.0.1", "labels": {"kubernetes.io/hostname": "127.0.0.1"}},
     "status": {"capacity": {"cpu": "4"}, "ready": true, "addresses": [{"type": "LegacyHostIP", "address": "127.0.0.1"}]}},
    {"kind": "None", "metadata": {"name": "127.0.0.2", "labels": {"kubernetes.io/hostname": "127.0.0.2"}},
     "status": {"capacity": {"cpu": "8"}, "ready": false,
                "addresses": [{"type": "LegacyHostIP", "address": "127.0.0.2"}, {"type": "another", "address": "127.0.0.3"}]}}
  ],
  "users": [{"name": "myself", "user": {}}, {"name": "e2e", "user": {"username": "admin", "password": "secret"}}]
}"#;

#[test]
fn kubernetes() {
    check(
        &[
            ("range item", "{range .items[*]}{.metadata.name}, {end}{.kind}", "127.0.0.1, 127.0.0.2, List"),
            ("range item with quote", r#"{range .items[*]}{.metadata.name}{"\t"}{end}"#, "127.0.0.1\t127.0.0.2\t"),
            ("range addresss", "{.items[*].status.addresses[*].address}", "127.0.0.1 127.0.0.2 127.0.0.3"),
            (
                "double range",
                "{range .items[*]}{range .status.addresses[*]}{.address}, {end}{end}",
                "127.0.0.1, 127.0.0.2, 127.0.0.3, ",
            ),
            ("item name", "{.items[*].metadata.name}", "127.0.0.1 127.0.0.2"),
            (
                "union nodes capacity",
                "{.items[*]['metadata.name', 'status.capacity']}",
                r#"127.0.0.1 127.0.0.2 {"cpu":"4"} {"cpu":"8"}"#,
            ),
            (
                "range nodes capacity",
                "{range .items[*]}[{.metadata.name}, {.status.capacity}] {end}",
                r#"[127.0.0.1, {"cpu":"4"}] [127.0.0.2, {"cpu":"8"}] "#,
            ),
            ("user password", r#"{.users[?(@.name=="e2e")].user.password}"#, "secret"),
            ("hostname", r"{.items[0].metadata.labels.kubernetes\.io/hostname}", "127.0.0.1"),
            ("hostname filter", r#"{.items[?(@.metadata.labels.kubernetes\.io/hostname=="127.0.0.1")].kind}"#, "None"),
            ("bool item", "{.items[?(@..ready==true)].metadata.name}", "127.0.0.1"),
            // testJSONPathSortOutput's case: in key order here, where Go's is random.
            ("recursive name", "{..name}", "127.0.0.1 127.0.0.2 myself e2e"),
        ],
        &data(NODES),
        false,
    );
}

#[test]
fn empty_range() {
    let empty = data(r#"{"items":[]}"#);
    check(
        &[
            ("empty range", "{range .items[*]}{.metadata.name}{end}", ""),
            (
                "empty nested range",
                r#"{range .items[*]}{.metadata.name}{":"}{range @.spec.containers[*]}{.name}{","}{end}{"+"}{end}"#,
                "",
            ),
        ],
        &empty,
        true,
    );
    // Without allowMissingKeys (Helm's setting) the nodes of an empty range run once over nothing and fail.
    assert_eq!(run("{range .items[*]}{.metadata.name}{end}", &empty, false), Err("metadata is not found".into()));
}

#[test]
fn nested_ranges() {
    let pods = data(
        r#"{"items": [
          {"metadata": {"name": "pod1"}, "spec": {"containers": [
            {"name": "foo", "another": [{"name": "value1"}, {"name": "value2"}]},
            {"name": "bar", "another": [{"name": "value1"}, {"name": "value2"}]}]}},
          {"metadata": {"name": "pod2"}, "spec": {"containers": [
            {"name": "baz", "another": [{"name": "value1"}, {"name": "value2"}]}]}}]}"#,
    );
    check(
        &[
            (
                "nested range with a trailing newline",
                r#"{range .items[*]}{.metadata.name}{":"}{range @.spec.containers[*]}{.name}{","}{end}{"+"}{end}"#,
                "pod1:foo,bar,+pod2:baz,+",
            ),
            (
                "nested range with a trailing character within another nested range with a trailing newline",
                concat!(
                    r#"{range .items[*]}{.metadata.name}{"~"}{range @.spec.containers[*]}{.name}{":"}"#,
                    r##"{range @.another[*]}{.name}{","}{end}{"+"}{end}{"#"}{end}"##
                ),
                "pod1~foo:value1,value2,+bar:value1,value2,+#pod2~baz:value1,value2,+#",
            ),
            (
                "two nested ranges at the same level with a trailing newline",
                concat!(
                    r#"{range .items[*]}{.metadata.name}{"\t"}{range @.spec.containers[*]}{.name}{" "}{end}"#,
                    r#"{"\t"}{range @.spec.containers[*]}{.name}{" "}{end}{"\n"}{end}"#
                ),
                "pod1\tfoo bar \tfoo bar \npod2\tbaz \tbaz \n",
            ),
        ],
        &pods,
        false,
    );
}

#[test]
fn filter_partial_matches_sometimes_missing_annotations() {
    let pods = data(
        r#"{"kind": "List", "items": [
          {"kind": "Pod", "metadata": {"name": "pod1", "annotations": {"color": "blue"}}},
          {"kind": "Pod", "metadata": {"name": "pod2"}},
          {"kind": "Pod", "metadata": {"name": "pod3", "annotations": {"color": "green"}}},
          {"kind": "Pod", "metadata": {"name": "pod4", "annotations": {"color": "blue"}}}]}"#,
    );
    let template = r#"{.items[?(@.metadata.annotations.color=="blue")].metadata.name}"#;
    assert_eq!(run(template, &pods, true).as_deref(), Ok("pod1 pod4"));
    assert_eq!(run(template, &pods, false), Err("annotations is not found".into()));
}

#[test]
fn negative_index_and_step() {
    let containers = |count: usize| {
        let items: Vec<String> = (0..count).map(|index| format!(r#"{{"name": "fake{index}"}}"#)).collect();
        data(&format!(r#"{{"spec": {{"containers": [{}]}}}}"#, items.join(",")))
    };
    let four = containers(4);
    check(
        &[
            ("containers[0]", "{.spec.containers[0].name}", "fake0"),
            ("containers[0:0]", "{.spec.containers[0:0].name}", ""),
            ("containers[0:-1]", "{.spec.containers[0:-1].name}", "fake0 fake1 fake2"),
            ("containers[-1]", "{.spec.containers[-1].name}", "fake3"),
            ("containers[-1:]", "{.spec.containers[-1:].name}", "fake3"),
            ("containers[-2]", "{.spec.containers[-2].name}", "fake2"),
            ("containers[-2:]", "{.spec.containers[-2:].name}", "fake2 fake3"),
            ("containers[-3]", "{.spec.containers[-3].name}", "fake1"),
            ("containers[-4:]", "{.spec.containers[-4:].name}", "fake0 fake1 fake2 fake3"),
            ("containers[5:5]", "{.spec.containers[5:5].name}", ""),
            ("containers[-5:-5]", "{.spec.containers[-5:-5].name}", ""),
        ],
        &four,
        false,
    );
    check_errors(
        &[
            ("containers[-1:0]", "{.spec.containers[-1:0].name}", "starting index 3 is greater than ending index 0"),
            ("containers[-5]", "{.spec.containers[-5].name}", "array index out of bounds: index -1, length 4"),
            ("containers[3:1]", "{.spec.containers[3:1].name}", "starting index 3 is greater than ending index 1"),
            ("containers[-1:-2]", "{.spec.containers[-1:-2].name}", "starting index 3 is greater than ending index 2"),
            ("containers[9]", "{.spec.containers[9].name}", "array index out of bounds: index 9, length 4"),
            ("containers[0:9]", "{.spec.containers[0:9].name}", "array index out of bounds: index 8, length 4"),
        ],
        &four,
    );
    let six = containers(6);
    check(
        &[
            ("containers[0:]", "{.spec.containers[0:].name}", "fake0 fake1 fake2 fake3 fake4 fake5"),
            ("containers[0:6:]", "{.spec.containers[0:6:].name}", "fake0 fake1 fake2 fake3 fake4 fake5"),
            ("containers[1:4:2]", "{.spec.containers[1:4:2].name}", "fake1 fake3"),
            ("containers[1:4:4]", "{.spec.containers[1:4:4].name}", "fake1"),
            ("containers[0:6:5]", "{.spec.containers[0:6:5].name}", "fake0 fake5"),
        ],
        &six,
        false,
    );
    check_errors(
        &[
            ("containers[0:6:0]", "{.spec.containers[0:6:0].name}", "step must be > 0"),
            ("containers[0:6:-1]", "{.spec.containers[0:6:-1].name}", "step must be > 0"),
        ],
        &six,
    );
}

#[test]
fn running_pods_json_path_output() {
    let pods = data(
        r#"{"kind": "List", "items": [
          {"kind": "Pod", "metadata": {"name": "pod1"}, "status": {"phase": "Running"}},
          {"kind": "Pod", "metadata": {"name": "pod2"}, "status": {"phase": "Running"}},
          {"kind": "Pod", "metadata": {"name": "pod3"}, "status": {"phase": "Running"}},
          {"resourceVersion": ""}]}"#,
    );
    check(
        &[(
            "range over pods without selecting the last one",
            r#"{range .items[?(.status.phase=="Running")]}{.metadata.name}{" is Running\n"}{end}"#,
            "pod1 is Running\npod2 is Running\npod3 is Running\n",
        )],
        &pods,
        true,
    );
}

/// What Helm's values make of the engine, checked against `helm show values --jsonpath` (v4.1.4).
#[test]
fn helm_values_quirks() {
    let values = data(
        r#"{"big": 1000000, "html": "<a&b>", "nothing": null, "greeting": "hi",
            "servers": [{"name": "alpha", "port": 80}, {"name": "beta", "port": 8080}], "empty": []}"#,
    );
    check(
        &[
            ("float64 as %v", "{.big}", "1e+06"),
            ("float64 in JSON", "{.servers[0]}", r#"{"name":"alpha","port":80}"#),
            ("HTML escaped in JSON only", "{.html} {$.html}", "<a&b> <a&b>"),
            ("nil", "{.nothing}", "null"),
            ("int literal against float64", "{.servers[?(@.port==8080.0)].name}", "beta"),
            ("a string's bytes", "{.greeting.*}", "104 105"),
            (
                "dict key with a dot is a path",
                "{['servers']}",
                r#"[{"name":"alpha","port":80},{"name":"beta","port":8080}]"#,
            ),
            ("range over a nil", "{range .nothing}{@}{end}", "<no value>"),
        ],
        &values,
        false,
    );
    check_errors(
        &[
            ("int against float64", "{.servers[?(@.port==80)].name}", "incompatible types for comparison"),
            ("nil compared", "{.servers[?(@.nothing==1)]}", "nothing is not found"),
            (
                "filter of a map",
                "{.servers[0][?(@.x)]}",
                "map[name:alpha port:80] is not array or slice and cannot be filtered",
            ),
            ("index of a string", "{.greeting[0]}", "string is not array or slice"),
            (
                "more than one to compare",
                "{[?(@.servers[*].name==1.0)]}",
                "map[big:1e+06 empty:[] greeting:hi html:<a&b> nothing:<nil> servers:[map[name:alpha port:80] map[name:beta port:8080]]] is not array or slice and cannot be filtered",
            ),
        ],
        &values,
    );
}

/// Bounded where Go is not: deep values, multiplying templates and long templates end quickly.
#[test]
fn bounds() {
    let nested = |depth: usize| {
        let mut value = Value::list([Value::Int(1)]);
        for _ in 0..depth {
            value = Value::list([value]);
        }
        value
    };
    let deep = nested(100_000);
    assert_eq!(run("{..x}", &deep, true).as_deref(), Ok(""));
    let printed = run("{$}", &deep, false).expect("a deep value prints");
    assert!(printed.starts_with("[[[[") && printed.len() == 2 * 100_000 + 3);
    // A template can print a large value many times (`{..}` prints every subtree): the text stops at the bound.
    let large = Value::map([("s", Value::from("x".repeat(10 << 20)))]);
    assert_eq!(run(&"{.s}".repeat(6), &large, false).map(|text| text.len()), Ok(60 << 20));
    assert_eq!(run(&"{.s}".repeat(7), &large, false), Err(format!("jsonpath output larger than {MAX_OUTPUT} bytes")));

    let started = std::time::Instant::now();
    let multiplying = format!("{{{}}}", "[0,0,0,0]".repeat(20));
    assert_eq!(
        run(&multiplying, &nested(30), false),
        Err(format!("jsonpath evaluation produced more than {MAX_ITEMS} values"))
    );

    assert!(started.elapsed() < std::time::Duration::from_secs(30), "stopped early");
    let ranges = "{range @}".repeat(5000);
    assert_eq!(run(&ranges, &nested(1), false), Err(format!("jsonpath ranges nested more than {MAX_DEPTH} deep")));

    let long = "{.a}".repeat(200_000);
    assert!(JsonPath::parse(&long).is_ok());
}
