//! Every case of `probes/crypto-errors/cases.tsv` fails in berth with the message Helm gave.

use super::harness::{probes_dir, render};

fn table(file: &str) -> Vec<(String, String)> {
    let path = probes_dir().join("crypto-errors").join(file);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("{}: {error}", path.display()))
        .lines()
        .filter(|line| !line.starts_with('#') && !line.is_empty())
        .map(|line| {
            let (name, rest) = line.split_once('\t').unwrap_or_else(|| panic!("bad line in {file}: {line}"));
            (name.to_string(), rest.to_string())
        })
        .collect()
}

#[test]
fn errors_are_helms() {
    let cases = table("cases.tsv");
    let expected = table("expected.tsv");
    assert_eq!(
        cases.iter().map(|(name, _)| name).collect::<Vec<_>>(),
        expected.iter().map(|(name, _)| name).collect::<Vec<_>>(),
        "cases.tsv and expected.tsv name the same cases (run regen-crypto.sh)"
    );
    let mut mismatches = Vec::new();
    for ((name, expression), (_, message)) in cases.iter().zip(&expected) {
        match render(&format!("v: {{{{ {expression} }}}}\n")) {
            Ok(output) => mismatches.push(format!("{name}: rendered {output:?}, Helm failed with {message:?}")),
            Err(error) if !error.to_string().ends_with(message.as_str()) => {
                mismatches.push(format!("{name}:\n  berth: {error}\n  Helm:  {message}"));
            }
            Err(_) => {}
        }
    }
    assert!(mismatches.is_empty(), "{} of {} cases differ:\n{}", mismatches.len(), cases.len(), mismatches.join("\n"));
}
