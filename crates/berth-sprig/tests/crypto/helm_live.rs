//! Helm reading what berth made: it decrypts berth's `encryptAES` output, parses berth's certificates and
//! keys (`buildCustomCert`, `genCAWithKey`) and signs with berth's CA. Runs the real Helm binary from
//! `scripts/fetch-peers.sh` (or `$BERTH_PEERS_DIR`).

use std::path::PathBuf;
use std::process::Command;

use base64::Engine as _;
use berth_go::Value;

use super::harness::{call, text};

fn helm() -> PathBuf {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let output = Command::new("bash")
        .arg(format!("{root}/scripts/fetch-peers.sh"))
        .output()
        .expect("run scripts/fetch-peers.sh (needs bash, npm and python3)");
    assert!(output.status.success(), "scripts/fetch-peers.sh failed: {}", String::from_utf8_lossy(&output.stderr));
    PathBuf::from(String::from_utf8_lossy(&output.stdout).trim()).join("helm")
}

/// `helm template` of a one-template chart; stdout on success, stderr on failure.
fn helm_template(name: &str, template: &str) -> Result<String, String> {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("crypto-live-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("chart/templates")).expect("chart directory");
    std::fs::write(dir.join("chart/Chart.yaml"), "apiVersion: v2\nname: live\nversion: 0.1.0\n").expect("Chart.yaml");
    std::fs::write(dir.join("chart/templates/probe.yaml"), template).expect("template");
    let output = Command::new(helm())
        .args(["template", "live"])
        .arg(dir.join("chart"))
        .env("HOME", dir.join("home"))
        .env("HELM_CACHE_HOME", dir.join("home/cache"))
        .env("HELM_CONFIG_HOME", dir.join("home/config"))
        .env("HELM_DATA_HOME", dir.join("home/data"))
        .output()
        .expect("helm runs");
    let _ = std::fs::remove_dir_all(&dir);
    if output.status.success() {
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).into_owned())
    }
}

fn string(value: Value) -> String {
    match value {
        Value::String(text) => text.to_string(),
        other => panic!("not a string: {other:?}"),
    }
}

fn field(value: &Value, name: &str) -> String {
    string(value.as_object().and_then(|object| object.field(name)).unwrap_or_else(|| panic!("no {name} in {value:?}")))
}

fn go_literal(text: &str) -> String {
    format!("{text:?}")
}

#[test]
fn helm_decrypts_what_berth_encrypted() {
    let cases = [
        ("probe-key", "hello from berth"),
        ("a password well over thirty-two bytes long", "exactly 16 bytes"),
        ("", "héllo ☃ over more than one block of sixteen"),
    ];
    let mut template = String::new();
    for (index, (password, plaintext)) in cases.iter().enumerate() {
        let crypt = string(call("encryptAES", &[text(password), text(plaintext)]).expect("encrypts"));
        template.push_str(&format!(
            "case{index}: {{{{ decryptAES {} {} | printf \"%q\" }}}}\n",
            go_literal(password),
            go_literal(&crypt)
        ));
    }
    let output = helm_template("aes", &template).unwrap_or_else(|error| panic!("helm failed: {error}"));
    for (index, (_, plaintext)) in cases.iter().enumerate() {
        assert!(output.contains(&format!("case{index}: {}\n", go_literal(plaintext))), "case {index}:\n{output}");
    }
}

#[test]
fn helm_reads_berths_keys_and_certificates() {
    let base64 = |text: &str| base64::engine::general_purpose::STANDARD.encode(text);
    let authority = call("genCA", &[text("berth-ca"), Value::Int(30)]).expect("genCA");
    let mut template = format!(
        "{{{{- $ca := buildCustomCert {:?} {:?} }}}}\nsigned: {{{{ (genSignedCert \"leaf\" nil (list \"leaf.example\") 3 $ca).Cert | len | printf \"%d\" | printf \"%q\" }}}}\n",
        base64(&field(&authority, "Cert")),
        base64(&field(&authority, "Key"))
    );
    for kind in ["rsa", "ecdsa", "ed25519"] {
        let key = string(call("genPrivateKey", &[text(kind)]).expect("genPrivateKey"));
        template.push_str(&format!(
            "ca_{kind}: {{{{ (genCAWithKey \"{kind}\" 1 {}).Cert | len | printf \"%d\" | printf \"%q\" }}}}\n",
            go_literal(&key)
        ));
    }
    let output =
        helm_template("certs", &template).unwrap_or_else(|error| panic!("helm refused berth's output: {error}"));
    for entry in ["signed", "ca_rsa", "ca_ecdsa", "ca_ed25519"] {
        assert!(output.contains(&format!("{entry}: \"")), "{entry} missing:\n{output}");
    }
}
