//! The berth half of the differential check `tests/tools/yaml_differential.py` runs against real Helm: for each
//! input (base64, one per line, in `YAML_DIFF_CASES`) it applies the function pipeline `YAML_DIFF_FUNC`
//! (`fromYaml|toYaml`, ...) through berth's Helm function map and writes `toJson` of the result, one line per
//! input, to `YAML_DIFF_OUT`. Ignored by default: the script runs it.

// Test code states its expectations with unwrap, expect and panic: a failed one is the failure reported.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::unreachable)]

use berth_go::Value;
use berth_sprig::helm_functions;

#[test]
#[ignore = "driven by tests/tools/yaml_differential.py"]
fn yaml_differential_berth_side() {
    let (Ok(cases), Ok(out)) = (std::env::var("YAML_DIFF_CASES"), std::env::var("YAML_DIFF_OUT")) else {
        panic!("set YAML_DIFF_CASES and YAML_DIFF_OUT (run tests/tools/yaml_differential.py)");
    };
    let pipeline = std::env::var("YAML_DIFF_FUNC").unwrap_or_else(|_| "fromYaml".to_string());
    let functions = helm_functions();
    let lookup = |name: &str| functions.get(name).unwrap_or_else(|| panic!("no function {name}")).clone();
    let (b64dec, to_json) = (lookup("b64dec"), lookup("toJson"));
    let steps: Vec<_> = pipeline.split('|').map(lookup).collect();
    let text = std::fs::read_to_string(cases).expect("cases file");
    let mut result = String::new();
    for line in text.lines().filter(|line| !line.trim().is_empty()) {
        let mut value = b64dec(&[Value::from(line.trim())]).expect("b64dec");
        for step in &steps {
            value = step(&[value]).unwrap_or_else(|e| Value::from(format!("ERR {e}")));
        }
        let json = to_json(&[value]).expect("toJson");
        result.push_str(json.as_str().unwrap_or_default());
        result.push('\n');
    }
    std::fs::write(out, result).expect("write output");
}
