//! The Sprig function set as a whole: every function of Sprig v3.3.0's `genericMap` is registered by berth's
//! Sprig module unless Helm removes it or another module owns it, nothing else is registered, and no function
//! panics whatever arguments it gets.

// Test code states its expectations with unwrap, expect and panic: a failed one is the failure reported.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::unreachable)]

use std::collections::BTreeSet;
use std::sync::Arc;

use berth_go::Value;
use berth_template::FuncMap;

/// The keys of `genericMap` in Masterminds/sprig v3.3.0 functions.go.
const SPRIG_GENERIC_MAP: &[&str] = &[
    "abbrev",
    "abbrevboth",
    "add",
    "add1",
    "add1f",
    "addf",
    "adler32sum",
    "ago",
    "all",
    "any",
    "append",
    "atoi",
    "b32dec",
    "b32enc",
    "b64dec",
    "b64enc",
    "base",
    "bcrypt",
    "biggest",
    "buildCustomCert",
    "camelcase",
    "cat",
    "ceil",
    "chunk",
    "clean",
    "coalesce",
    "compact",
    "concat",
    "contains",
    "date",
    "dateInZone",
    "dateModify",
    "date_in_zone",
    "date_modify",
    "decryptAES",
    "deepCopy",
    "deepEqual",
    "default",
    "derivePassword",
    "dict",
    "dig",
    "dir",
    "div",
    "divf",
    "duration",
    "durationRound",
    "empty",
    "encryptAES",
    "env",
    "expandenv",
    "ext",
    "fail",
    "first",
    "float64",
    "floor",
    "fromJson",
    "genCA",
    "genCAWithKey",
    "genPrivateKey",
    "genSelfSignedCert",
    "genSelfSignedCertWithKey",
    "genSignedCert",
    "genSignedCertWithKey",
    "get",
    "getHostByName",
    "has",
    "hasKey",
    "hasPrefix",
    "hasSuffix",
    "hello",
    "htmlDate",
    "htmlDateInZone",
    "htpasswd",
    "indent",
    "initial",
    "initials",
    "int",
    "int64",
    "isAbs",
    "join",
    "kebabcase",
    "keys",
    "kindIs",
    "kindOf",
    "last",
    "list",
    "lower",
    "max",
    "maxf",
    "merge",
    "mergeOverwrite",
    "min",
    "minf",
    "mod",
    "mul",
    "mulf",
    "mustAppend",
    "mustChunk",
    "mustCompact",
    "mustDateModify",
    "mustDeepCopy",
    "mustFirst",
    "mustFromJson",
    "mustHas",
    "mustInitial",
    "mustLast",
    "mustMerge",
    "mustMergeOverwrite",
    "mustPrepend",
    "mustPush",
    "mustRegexFind",
    "mustRegexFindAll",
    "mustRegexMatch",
    "mustRegexReplaceAll",
    "mustRegexReplaceAllLiteral",
    "mustRegexSplit",
    "mustRest",
    "mustReverse",
    "mustSlice",
    "mustToDate",
    "mustToJson",
    "mustToPrettyJson",
    "mustToRawJson",
    "mustUniq",
    "mustWithout",
    "must_date_modify",
    "nindent",
    "nospace",
    "now",
    "omit",
    "osBase",
    "osClean",
    "osDir",
    "osExt",
    "osIsAbs",
    "pick",
    "pluck",
    "plural",
    "prepend",
    "push",
    "quote",
    "randAlpha",
    "randAlphaNum",
    "randAscii",
    "randBytes",
    "randInt",
    "randNumeric",
    "regexFind",
    "regexFindAll",
    "regexMatch",
    "regexQuoteMeta",
    "regexReplaceAll",
    "regexReplaceAllLiteral",
    "regexSplit",
    "repeat",
    "replace",
    "rest",
    "reverse",
    "round",
    "semver",
    "semverCompare",
    "seq",
    "set",
    "sha1sum",
    "sha256sum",
    "sha512sum",
    "shuffle",
    "slice",
    "snakecase",
    "sortAlpha",
    "split",
    "splitList",
    "splitn",
    "squote",
    "sub",
    "subf",
    "substr",
    "swapcase",
    "ternary",
    "title",
    "toDate",
    "toDecimal",
    "toJson",
    "toPrettyJson",
    "toRawJson",
    "toString",
    "toStrings",
    "trim",
    "trimAll",
    "trimPrefix",
    "trimSuffix",
    "trimall",
    "trunc",
    "tuple",
    "typeIs",
    "typeIsLike",
    "typeOf",
    "uniq",
    "unixEpoch",
    "unset",
    "until",
    "untilStep",
    "untitle",
    "upper",
    "urlJoin",
    "urlParse",
    "uuidv4",
    "values",
    "without",
    "wrap",
    "wrapWith",
];

/// Hashes, certificates, AES and password functions: berth's crypto module.
const CRYPTO: &[&str] = &[
    "adler32sum",
    "bcrypt",
    "buildCustomCert",
    "decryptAES",
    "derivePassword",
    "encryptAES",
    "genCA",
    "genCAWithKey",
    "genPrivateKey",
    "genSelfSignedCert",
    "genSelfSignedCertWithKey",
    "genSignedCert",
    "genSignedCertWithKey",
    "htpasswd",
    "randBytes",
    "sha1sum",
    "sha256sum",
    "sha512sum",
];

/// Deleted by Helm (`env`, `expandenv`) or bound by the chart renderer (`fail`).
const NOT_SPRIG_MODULE: &[&str] = &["env", "expandenv", "fail"];

/// Helm's JSON functions (pkg/engine/funcs.go), registered by the Sprig module beside Sprig's own.
const HELM_JSON: &[&str] = &["fromJson", "fromJsonArray", "mustToJson", "toJson"];

fn registered() -> FuncMap {
    let mut functions = FuncMap::new();
    berth_sprig::register(&mut functions);
    functions
}

#[test]
fn every_sprig_function_is_registered() {
    let functions = registered();
    let missing: Vec<&str> = SPRIG_GENERIC_MAP
        .iter()
        .chain(HELM_JSON)
        .filter(|name| !CRYPTO.contains(name) && !NOT_SPRIG_MODULE.contains(name))
        .filter(|name| !functions.contains_key(**name))
        .copied()
        .collect();
    assert!(missing.is_empty(), "Sprig functions not registered: {missing:?}");
}

#[test]
fn nothing_outside_sprig_and_helm_json_is_registered() {
    let known: BTreeSet<&str> = SPRIG_GENERIC_MAP.iter().chain(HELM_JSON).copied().collect();
    let functions = registered();
    let extra: Vec<&String> = functions.keys().filter(|name| !known.contains(name.as_str())).collect();
    assert!(extra.is_empty(), "registered names that Sprig and Helm do not have: {extra:?}");
    let owned_elsewhere: Vec<&&str> =
        CRYPTO.iter().chain(NOT_SPRIG_MODULE).filter(|name| functions.contains_key(**name)).collect();
    assert!(owned_elsewhere.is_empty(), "registered here but owned elsewhere: {owned_elsewhere:?}");
}

/// Arguments of every shape a template can pass.
fn samples() -> Vec<Value> {
    vec![
        Value::Nil,
        Value::Int(-1),
        Value::Int(2),
        Value::Int64(3),
        Value::Int(i64::MAX),
        Value::Int64(i64::MIN),
        Value::Float(1.5),
        Value::Float(f64::NAN),
        Value::Bool(true),
        Value::from(""),
        Value::from("a,b"),
        Value::from("2006-01-02"),
        Value::list([Value::Int(1), Value::from("x"), Value::Nil]),
        Value::map([("k", Value::from("v")), ("n", Value::Nil)]),
    ]
}

#[test]
fn no_function_panics_on_any_arguments() {
    let samples = samples();
    for (name, function) in registered() {
        let call = |args: &[Value]| {
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| function(args)));
            assert!(outcome.is_ok(), "{name} panicked on {args:?}");
        };
        call(&[]);
        for a in &samples {
            call(std::slice::from_ref(a));
            for b in &samples {
                call(&[a.clone(), b.clone()]);
                for c in samples.iter().step_by(3) {
                    call(&[a.clone(), b.clone(), c.clone()]);
                }
            }
        }
    }
}

/// A deterministic generator of value trees (xorshift), for the JSON round trip.
struct Trees(u64);

impl Trees {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn value(&mut self, depth: usize) -> Value {
        let choice = self.next() % if depth > 3 { 4 } else { 6 };
        match choice {
            0 => Value::Nil,
            1 => Value::Bool(self.next().is_multiple_of(2)),
            2 => {
                // JSON holds finite numbers only; keep -0, tiny and huge ones.
                let f = f64::from_bits(self.next());
                Value::Float(if f.is_finite() { f } else { -0.0 })
            }
            3 => {
                let chars = ['a', '"', '\\', '<', '\u{1}', 'é', '😀', '\u{2028}', ' '];
                let len = self.next() % 6;
                Value::from((0..len).map(|_| chars[(self.next() % chars.len() as u64) as usize]).collect::<String>())
            }
            4 => Value::list((0..self.next() % 4).map(|_| self.value(depth + 1)).collect::<Vec<_>>()),
            _ => Value::map((0..self.next() % 4).map(|i| (format!("k{i}"), self.value(depth + 1))).collect::<Vec<_>>()),
        }
    }
}

#[test]
fn to_json_then_must_from_json_gives_the_same_tree() {
    let functions = registered();
    let (to_json, from_json) = (Arc::clone(&functions["mustToJson"]), Arc::clone(&functions["mustFromJson"]));
    let mut trees = Trees(0x9E37_79B9_7F4A_7C15);
    for _ in 0..2000 {
        let value = trees.value(0);
        let text = to_json(std::slice::from_ref(&value)).expect("encodes");
        let back = from_json(std::slice::from_ref(&text)).expect("decodes");
        assert_eq!(back, value, "round trip of {text:?}");
    }
}

#[test]
fn deep_and_cyclic_values_fail_cleanly() {
    let functions = registered();
    let call = |name: &str, args: &[Value]| functions[name](args);
    // Go's decoder accepts 10000 levels, and its encoder writes them back: past 1000 levels it looks for a cycle
    // and finds none (helm 4.1.4: `toJson` of such values is the whole text).
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let decoded = call("mustFromJson", &[Value::from(deep.as_str())]).expect("10000 levels decode");
    for name in ["toJson", "mustToJson", "toRawJson"] {
        let encoded = call(name, std::slice::from_ref(&decoded)).expect("10000 levels encode");
        assert_eq!(encoded.as_str(), Some(deep.as_str()), "{name}");
    }
    // A map that contains itself: merge and toJson end with an error, not a stack overflow.
    let looped = berth_go::Map::new();
    looped.insert("self", Value::Map(looped.clone()));
    let error = call("mustToJson", &[Value::Map(looped.clone())]).expect_err("cycle");
    assert!(error.to_string().contains("encountered a cycle via map[string]interface {}"), "{error}");
    let error = call("mergeOverwrite", &[Value::Map(looped.clone()), Value::Map(looped.clone())]).expect_err("cycle");
    assert!(error.to_string().contains("nested deeper"), "{error}");
    looped.remove("self");
}
