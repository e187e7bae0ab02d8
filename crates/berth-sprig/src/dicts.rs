//! Sprig's dict functions (dict.go) on Go's shared maps: `set`, `unset`, `merge` and `mergeOverwrite` change the
//! map passed in, and every holder of that map sees it (charts rely on `$_ := set $d "k" v`). `merge` follows
//! dario.cat/mergo v1.0.1 (`Merge` and `MergeWithOverwrite` on `map[string]interface{}`), including which empty
//! values it fills and that nested maps are merged in place. Go iterates maps in random order where Sprig
//! returns keys or values (`keys`, `values`); berth returns them sorted, an order Go may also produce.

use std::format;
use std::sync::Arc;
use std::vec::Vec;

use crate::args::SprigFn;
use crate::args::{at_least, call_error, fixed, interface_conversion, map, string};
use crate::cast::strval;
use berth_go::Result;
use berth_go::{Map, Value};

pub(super) const FUNCTIONS: &[(&str, SprigFn)] = &[
    ("dict", dict),
    ("get", get),
    ("set", set),
    ("unset", unset),
    ("hasKey", has_key),
    ("pluck", pluck),
    ("keys", keys),
    ("pick", pick),
    ("omit", omit),
    ("values", values),
    ("merge", merge),
    ("mustMerge", must_merge),
    ("mergeOverwrite", merge_overwrite),
    ("mustMergeOverwrite", must_merge_overwrite),
    ("dig", dig),
];

/// How deep `merge` follows nested maps. Go's mergo does not track nested maps it has seen, so a map that
/// contains itself would recurse until Go's stack gives out; berth stops with an error.
const MAX_MERGE_DEPTH: usize = berth_go::MAX_DEPTH;

/// `dict(v ...interface{})`: keys are the `strval` of the even arguments; a missing last value is "".
fn dict(args: &[Value]) -> Result<Value> {
    let map = Map::new();
    map.update(|entries| {
        for pair in args.chunks(2) {
            let value = pair.get(1).cloned().unwrap_or_else(|| Value::from(""));
            entries.insert(Arc::from(strval(&pair[0])), value);
        }
    });
    Ok(Value::Map(map))
}

/// `get(d, key)`: the value, or "" when the key is missing.
fn get(args: &[Value]) -> Result<Value> {
    let [d, key] = fixed("get", args)?;
    Ok(map(d)?.get(string(key)?).unwrap_or_else(|| Value::from("")))
}

/// `set(d, key, value)`: changes `d` and returns it.
fn set(args: &[Value]) -> Result<Value> {
    let [d, key, value] = fixed("set", args)?;
    let target = map(d)?;
    target.insert(string(key)?, value.clone());
    Ok(Value::Map(target.clone()))
}

/// `unset(d, key)`: changes `d` and returns it.
fn unset(args: &[Value]) -> Result<Value> {
    let [d, key] = fixed("unset", args)?;
    let target = map(d)?;
    target.remove(string(key)?);
    Ok(Value::Map(target.clone()))
}

fn has_key(args: &[Value]) -> Result<Value> {
    let [d, key] = fixed("hasKey", args)?;
    Ok(Value::Bool(map(d)?.contains_key(string(key)?)))
}

/// `pluck(key string, d ...map)`: the value under `key` in every map that has it.
fn pluck(args: &[Value]) -> Result<Value> {
    at_least("pluck", args, 1)?;
    let key = string(&args[0])?;
    let mut found = Vec::new();
    for d in &args[1..] {
        if let Some(value) = map(d)?.get(key) {
            found.push(value);
        }
    }
    Ok(Value::list(found))
}

/// `keys(dicts ...map) []string`: every key of every map (sorted within each map).
fn keys(args: &[Value]) -> Result<Value> {
    let mut out = Vec::new();
    for d in args {
        out.extend(map(d)?.keys().into_iter().map(Value::String));
    }
    Ok(Value::list(out))
}

/// `pick(dict, keys ...string)`: a new map with the listed keys that exist.
fn pick(args: &[Value]) -> Result<Value> {
    at_least("pick", args, 1)?;
    let source = map(&args[0])?.snapshot();
    let picked = Map::new();
    for key in &args[1..] {
        let key = string(key)?;
        if let Some((k, v)) = source.get_key_value(key) {
            picked.insert(Arc::clone(k), v.clone());
        }
    }
    Ok(Value::Map(picked))
}

/// `omit(dict, keys ...string)`: a new map without the listed keys.
fn omit(args: &[Value]) -> Result<Value> {
    at_least("omit", args, 1)?;
    let source = map(&args[0])?.snapshot();
    let omitted: Vec<&str> = args[1..].iter().map(string).collect::<Result<_>>()?;
    let kept = source.iter().filter(|(k, _)| !omitted.contains(&k.as_ref())).map(|(k, v)| (Arc::clone(k), v.clone()));
    Ok(Value::Map(kept.collect()))
}

/// `values(dict) []interface{}` in key order.
fn values(args: &[Value]) -> Result<Value> {
    let [d] = fixed("values", args)?;
    Ok(Value::list(map(d)?.snapshot().values().cloned()))
}

/// mergo's `isEmptyValue` seen through an `interface{}` (dereferenced): nil, zero numbers, false, "", and empty
/// lists and maps.
fn merge_empty(value: &Value) -> bool {
    super::defaults::is_empty(value)
}

/// mergo `deepMerge` of two `map[string]interface{}` values: `dst` is changed in place.
fn deep_merge(dst: &Map, src: &Map, overwrite: bool, depth: usize) -> Result<()> {
    if depth > MAX_MERGE_DEPTH {
        return Err(call_error(format!(
            "merge: maps nested deeper than {MAX_MERGE_DEPTH} levels (a map that contains itself?)"
        )));
    }
    if dst.ptr_eq(src) && !overwrite {
        // Every key of src is already in dst with the same value: Merge changes nothing.
        return Ok(());
    }
    let source = src.snapshot();
    let dst_is_empty = dst.is_empty();
    for (key, src_value) in source.iter() {
        let dst_value = dst.get(key);
        if matches!(src_value, Value::Nil) {
            if overwrite {
                dst.insert(Arc::clone(key), Value::Nil);
            }
            continue;
        }
        match src_value {
            Value::Map(src_inner) => {
                if let Some(Value::Map(dst_inner)) = &dst_value {
                    deep_merge(dst_inner, src_inner, overwrite, depth + 1)?;
                }
            }
            Value::List(_) => {
                // mergo first stores a slice chosen by the emptiness of the *outer* maps; the rules below then
                // settle the final value, so only the case where that store is what remains matters: a
                // non-empty slice in dst stays.
                let _ = dst_is_empty;
            }
            _ => {}
        }
        if let Some(existing) = &dst_value
            && !merge_empty(existing)
        {
            if matches!(src_value, Value::List(_)) {
                if overwrite {
                    dst.insert(Arc::clone(key), src_value.clone());
                }
                continue;
            }
            if matches!(src_value, Value::Map(_)) && matches!(existing, Value::Map(_)) {
                continue;
            }
        }
        let dst_missing_or_empty = dst_value.as_ref().is_none_or(merge_empty);
        if overwrite || dst_missing_or_empty {
            dst.insert(Arc::clone(key), src_value.clone());
        }
    }
    Ok(())
}

/// `merge(dst, srcs ...)`: each source fills what `dst` lacks (mergo `Merge`), `dst` changed and returned.
fn merge_into(name: &str, args: &[Value], overwrite: bool) -> Result<Value> {
    at_least(name, args, 1)?;
    let dst = map(&args[0])?;
    for src in &args[1..] {
        deep_merge(dst, map(src)?, overwrite, 0)?;
    }
    Ok(Value::Map(dst.clone()))
}

fn merge(args: &[Value]) -> Result<Value> {
    merge_into("merge", args, false)
}

fn must_merge(args: &[Value]) -> Result<Value> {
    merge_into("mustMerge", args, false)
}

fn merge_overwrite(args: &[Value]) -> Result<Value> {
    merge_into("mergeOverwrite", args, true)
}

fn must_merge_overwrite(args: &[Value]) -> Result<Value> {
    merge_into("mustMergeOverwrite", args, true)
}

/// `dig(keys..., default, dict)`: the value at the key path, or the default when a key is missing; Go's type
/// assertions panic on a non-string key or a non-map along the way.
fn dig(args: &[Value]) -> Result<Value> {
    if args.len() < 3 {
        return Err(call_error("dig needs at least three arguments"));
    }
    let (keys, rest) = args.split_at(args.len() - 2);
    let (default, dict) = (&rest[0], &rest[1]);
    let Value::Map(mut current) = dict.clone() else {
        return Err(interface_conversion(dict, "map[string]interface {}"));
    };
    let keys: Vec<&str> =
        keys.iter().map(|k| k.as_str().ok_or_else(|| interface_conversion(k, "string"))).collect::<Result<_>>()?;
    for (i, key) in keys.iter().enumerate() {
        let Some(step) = current.get(key) else {
            return Ok(default.clone());
        };
        if i + 1 == keys.len() {
            return Ok(step);
        }
        match step {
            Value::Map(next) => current = next,
            other => return Err(interface_conversion(&other, "map[string]interface {}")),
        }
    }
    Ok(default.clone())
}
