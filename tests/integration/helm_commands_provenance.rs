//! Helm's provenance files: charts and plugins signed by real Helm 4.1.4 (`helm package --sign`, `helm plugin
//! package --sign`) with keys GnuPG makes, verified by Helm and by berth (`verify`, `pull --verify`, `plugin
//! install`); a tampered chart, a tampered provenance and a wrong key are refused by both with Helm's words.

use crate::helm_commands::{Program, text};
use crate::sources_support::{FileServer, SourceEnv};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A GnuPG home with two keys: `Chart Signer` (RSA, the signer) and `Other Signer` (Ed25519); exported as
/// `pubring.gpg` (the signer's public key, binary as Helm reads it), `pub.asc` (armored), `secring.gpg` (the
/// signer's secret key, for Helm) and `other.gpg`. Its agent is stopped on drop.
struct Keys {
    dir: tempfile::TempDir,
}

impl Keys {
    fn new() -> Keys {
        let dir = tempfile::tempdir().unwrap();
        let keys = Keys { dir };
        std::fs::create_dir_all(keys.home()).unwrap();
        std::fs::set_permissions(keys.home(), std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
        let spec = |kind: &str, name: &str, email: &str| {
            format!("%no-protection\n{kind}\nName-Real: {name}\nName-Email: {email}\nExpire-Date: 0\n%commit\n")
        };
        for (file, content) in [
            ("signer.spec", spec("Key-Type: RSA\nKey-Length: 2048", "Chart Signer", "signer@example.com")),
            ("other.spec", spec("Key-Type: EDDSA\nKey-Curve: ed25519", "Other Signer", "other@example.com")),
        ] {
            let path = keys.dir.path().join(file);
            std::fs::write(&path, content).unwrap();
            keys.gpg(&["--batch", "--gen-key", path.to_str().unwrap()]);
        }
        for (file, args) in [
            ("pubring.gpg", &["--export", "Chart Signer"][..]),
            ("pub.asc", &["--armor", "--export", "Chart Signer"]),
            ("secring.gpg", &["--export-secret-keys", "Chart Signer"]),
            ("other.gpg", &["--export", "Other Signer"]),
        ] {
            let output = keys.gpg(args);
            std::fs::write(keys.path(file), output).unwrap();
        }
        keys
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("gnupg")
    }

    fn path(&self, file: &str) -> String {
        self.dir.path().join(file).display().to_string()
    }

    fn gpg(&self, args: &[&str]) -> Vec<u8> {
        let output = Command::new("gpg").args(args).env("GNUPGHOME", self.home()).output().expect("gpg runs");
        assert!(output.status.success(), "gpg {args:?}: {}", text(&output.stderr));
        output.stdout
    }
}

impl Drop for Keys {
    fn drop(&mut self) {
        let _ = Command::new("gpgconf").args(["--kill", "all"]).env("GNUPGHOME", self.home()).output();
    }
}

/// `helm package --sign` of `helm create NAME` in `directory`; the archive's path.
fn signed_chart(env: &SourceEnv, keys: &Keys, name: &str, directory: &Path) -> PathBuf {
    env.helm_ok(&["create", name]);
    let secring = keys.path("secring.gpg");
    let destination = directory.display().to_string();
    env.helm_ok(&["package", name, "--sign", "--key", "Chart Signer", "--keyring", &secring, "-d", &destination]);
    directory.join(format!("{name}-0.1.0.tgz"))
}

/// A chart repository served over HTTP with `signed` (its `.prov` beside it, made by Helm) and `unsigned`, both
/// version 0.1.0; the keys, the environment and the server.
fn signed_and_unsigned_repository() -> (Keys, SourceEnv, FileServer) {
    let keys = Keys::new();
    let env = SourceEnv::new();
    let repository = env.subdir("repository");
    signed_chart(&env, &keys, "signed", &repository);
    env.helm_ok(&["create", "unsigned"]);
    env.helm_ok(&["package", "unsigned", "-d", &repository.display().to_string()]);
    env.helm_ok(&["repo", "index", &repository.display().to_string()]);
    let server = FileServer::start(&repository);
    (keys, env, server)
}

/// The text after Helm's `Error: `.
fn helm_error(stderr: &str) -> String {
    stderr.lines().find_map(|line| line.strip_prefix("Error: ")).unwrap_or_default().to_string()
}

#[test]
fn verify_accepts_what_helm_accepts_and_refuses_what_it_refuses() {
    let keys = Keys::new();
    let env = SourceEnv::new();
    let good = env.subdir("good");
    let chart = signed_chart(&env, &keys, "shop", &good);
    let provenance = std::fs::read_to_string(format!("{}.prov", chart.display())).unwrap();
    // A provenance whose signed text was changed, and an archive changed after signing.
    let tampered_provenance = env.subdir("tampered-provenance").join("shop-0.1.0.tgz");
    std::fs::copy(&chart, &tampered_provenance).unwrap();
    std::fs::write(
        format!("{}.prov", tampered_provenance.display()),
        provenance.replace("appVersion: 1.16.0", "appVersion: 6.6.6"),
    )
    .unwrap();
    let tampered_chart = env.subdir("tampered-chart").join("shop-0.1.0.tgz");
    let mut bytes = std::fs::read(&chart).unwrap();
    bytes.push(0);
    std::fs::write(&tampered_chart, bytes).unwrap();
    std::fs::write(format!("{}.prov", tampered_chart.display()), &provenance).unwrap();
    let renamed = env.subdir("renamed").join("other-0.1.0.tgz");
    std::fs::copy(&chart, &renamed).unwrap();
    std::fs::write(format!("{}.prov", renamed.display()), &provenance).unwrap();
    let (chart, tampered_provenance, tampered_chart, renamed) = (
        chart.display().to_string(),
        tampered_provenance.display().to_string(),
        tampered_chart.display().to_string(),
        renamed.display().to_string(),
    );
    let (pubring, other) = (keys.path("pubring.gpg"), keys.path("other.gpg"));
    let shop_directory = env.work().join("shop").display().to_string();
    // (arguments, whether it verifies)
    let table: [(&[&str], bool); 8] = [
        (&["verify", &chart, "--keyring", &pubring], true),
        (&["verify", &chart, "--keyring", &other], false),
        (&["verify", &tampered_provenance, "--keyring", &pubring], false),
        (&["verify", &tampered_chart, "--keyring", &pubring], false),
        (&["verify", &renamed, "--keyring", &pubring], false),
        (&["verify", &shop_directory, "--keyring", &pubring], false),
        (&["verify", "missing.tgz", "--keyring", &pubring], false),
        (&["verify", &chart, "--keyring", "/nonexistent/pubring.gpg"], false),
    ];
    for (args, verifies) in table {
        let (helm, berth) = (env.helm(args), env.berth(args));
        assert_eq!(helm.status.success(), verifies, "helm {args:?}: {}", text(&helm.stderr));
        assert_eq!(berth.status.success(), verifies, "berth {args:?}: {}", text(&berth.stderr));
        assert_eq!(text(&berth.stdout), text(&helm.stdout), "{args:?}");
        if !verifies {
            let reason = helm_error(&text(&helm.stderr));
            assert!(
                !reason.is_empty() && text(&berth.stderr).contains(&reason),
                "{args:?}\nhelm: {reason}\nberth: {}",
                text(&berth.stderr)
            );
        }
    }
    // berth also reads an armored keyring, and the default keyring of GNUPGHOME.
    let armored = env.berth(&["verify", &chart, "--keyring", &keys.path("pub.asc")]);
    assert!(
        text(&armored.stdout).starts_with("Signed by: Chart Signer <signer@example.com>\n"),
        "{}",
        text(&armored.stderr)
    );
    let library = berth::provenance::verify_chart(Path::new(&chart), Path::new(&pubring)).unwrap();
    assert_eq!(library.file_name, "shop-0.1.0.tgz");
    assert!(library.file_hash.starts_with("sha256:"));
}

#[test]
fn pull_verify_checks_the_repositorys_provenance() {
    let (keys, env, server) = signed_and_unsigned_repository();
    let (pubring, other) = (keys.path("pubring.gpg"), keys.path("other.gpg"));
    // (chart, keyring, whether it verifies)
    let table = [("signed", &pubring, true), ("signed", &other, false), ("unsigned", &pubring, false)];
    for (chart, keyring, verifies) in table {
        let results = [Program::Helm, Program::Berth].map(|program| {
            let destination = env.subdir(&format!("pulled-{program:?}-{chart}-{verifies}"));
            let destination_text = destination.display().to_string();
            let args =
                ["pull", chart, "--repo", &server.url, "--verify", "--keyring", keyring, "-d", &destination_text];
            let output = if program == Program::Helm { env.helm(&args) } else { env.berth(&args) };
            let files: Vec<String> = crate::helm_commands::tree(&destination).into_keys().collect();
            (output, files)
        });
        let [(helm, helm_files), (berth, berth_files)] = results;
        assert_eq!(helm.status.success(), verifies, "helm {chart}: {}", text(&helm.stderr));
        assert_eq!(berth.status.success(), verifies, "berth {chart}: {}", text(&berth.stderr));
        assert_eq!(text(&berth.stdout), text(&helm.stdout), "{chart} {keyring}");
        if verifies {
            assert_eq!(berth_files, helm_files, "the chart and its .prov");
            assert_eq!(berth_files, ["signed-0.1.0.tgz", "signed-0.1.0.tgz.prov"]);
        } else {
            // Helm keeps what it downloaded before it found the chart bad; berth writes nothing.
            assert!(berth_files.is_empty(), "{berth_files:?}");
            let reason = helm_error(&text(&helm.stderr));
            let reason = reason.split(" \"http").next().unwrap_or_default().to_string();
            assert!(text(&berth.stderr).contains(&reason), "helm: {reason}\nberth: {}", text(&berth.stderr));
        }
    }
}

/// `--verify` of `show` and `template` (Helm's `ChartPathOptions`, which install and upgrade share): a chart from
/// the repository is downloaded with its `.prov` and verified before it is used, as Helm's `LocateChart` does.
#[test]
fn show_and_template_verify_a_repository_chart_before_using_it() {
    let (keys, env, server) = signed_and_unsigned_repository();
    let (pubring, other) = (keys.path("pubring.gpg"), keys.path("other.gpg"));
    let table = [("signed", &pubring, true), ("signed", &other, false), ("unsigned", &pubring, false)];
    for (chart, keyring, verifies) in table {
        for command in [&["show", "chart"][..], &["template", "release"][..]] {
            let args = [command, &[chart, "--repo", &server.url, "--verify", "--keyring", keyring]].concat();
            let (helm, berth) = (env.helm(&args), env.berth(&args));
            assert_eq!(helm.status.success(), verifies, "helm {args:?}: {}", text(&helm.stderr));
            assert_eq!(berth.status.success(), verifies, "berth {args:?}: {}", text(&berth.stderr));
            assert_eq!(text(&berth.stdout), text(&helm.stdout), "{args:?}");
            if !verifies {
                let reason = helm_error(&text(&helm.stderr));
                let reason = reason.split(" \"http").next().unwrap_or_default().to_string();
                assert!(text(&berth.stderr).contains(&reason), "helm: {reason}\nberth: {}", text(&berth.stderr));
            }
        }
    }
}

/// `pull --prov` saves the `.prov` beside the chart without verifying it (an unknown key is no error), and pulls a
/// chart that has none with a warning, as Helm does.
#[test]
fn pull_prov_fetches_the_provenance_without_verifying() {
    let (keys, env, server) = signed_and_unsigned_repository();
    let other = keys.path("other.gpg");
    for (chart, files) in
        [("signed", &["signed-0.1.0.tgz", "signed-0.1.0.tgz.prov"][..]), ("unsigned", &["unsigned-0.1.0.tgz"][..])]
    {
        let results = [Program::Helm, Program::Berth].map(|program| {
            let destination = env.subdir(&format!("prov-{program:?}-{chart}"));
            let destination_text = destination.display().to_string();
            let args = ["pull", chart, "--repo", &server.url, "--prov", "--keyring", &other, "-d", &destination_text];
            let output = if program == Program::Helm { env.helm(&args) } else { env.berth(&args) };
            let files: Vec<String> = crate::helm_commands::tree(&destination).into_keys().collect();
            (output, files)
        });
        let [(helm, helm_files), (berth, berth_files)] = results;
        assert!(helm.status.success(), "helm {chart}: {}", text(&helm.stderr));
        assert!(berth.status.success(), "berth {chart}: {}", text(&berth.stderr));
        assert_eq!(berth_files, helm_files, "{chart}");
        assert_eq!(berth_files, files);
        // Helm's warning names the chart and the failed download; berth's download error is worded its own way.
        let warning = |stdout: &[u8]| text(stdout).split(": ").next().unwrap_or_default().to_string();
        assert_eq!(warning(&berth.stdout), warning(&helm.stdout), "{chart}: {}", text(&berth.stdout));
    }
}

/// `dependency update --verify --keyring` checks each downloaded dependency with its `.prov` as Helm does: a
/// signed dependency and the right key pass, another key or a dependency without provenance fail, and a failed
/// update leaves `charts/` without the dependency.
#[test]
fn dependency_update_verify_checks_each_download() {
    let (keys, env, server) = signed_and_unsigned_repository();
    let (pubring, other) = (keys.path("pubring.gpg"), keys.path("other.gpg"));
    // (dependency, keyring, whether the update succeeds)
    let table = [("signed", &pubring, true), ("signed", &other, false), ("unsigned", &pubring, false)];
    for (dependency, keyring, succeeds) in table {
        let results = [Program::Helm, Program::Berth].map(|program| {
            let parent = env.subdir(&format!("parent-{program:?}-{dependency}-{succeeds}"));
            std::fs::write(
                parent.join("Chart.yaml"),
                format!(
                    "apiVersion: v2\nname: parent\nversion: 1.0.0\ndependencies:\n  - name: {dependency}\n    \
                     version: 0.1.0\n    repository: {}\n",
                    server.url
                ),
            )
            .unwrap();
            let parent_text = parent.display().to_string();
            let args = ["dependency", "update", &parent_text, "--verify", "--keyring", keyring];
            let output = if program == Program::Helm { env.helm(&args) } else { env.berth(&args) };
            let charts: Vec<String> = crate::helm_commands::tree(&parent.join("charts")).into_keys().collect();
            (output, charts)
        });
        let [(helm, helm_charts), (berth, berth_charts)] = results;
        assert_eq!(helm.status.success(), succeeds, "helm {dependency}: {}", text(&helm.stderr));
        assert_eq!(berth.status.success(), succeeds, "berth {dependency}: {}", text(&berth.stderr));
        assert_eq!(berth_charts, helm_charts, "{dependency} {keyring}");
        if !succeeds {
            // Helm's reason up to the URL (berth's keyring messages are Helm's `openpgp:` words).
            let reason = helm_error(&text(&helm.stderr));
            let reason = reason.split(" \"http").next().unwrap_or_default().to_string();
            let reason = reason.rsplit(": ").next().unwrap_or_default().to_string();
            assert!(!reason.is_empty(), "helm says why: {}", text(&helm.stderr));
            assert!(text(&berth.stderr).contains(&reason), "helm: {reason}\nberth: {}", text(&berth.stderr));
        }
    }
}

#[test]
fn signed_plugin_archives_install_in_both_tools() {
    let keys = Keys::new();
    let env = SourceEnv::new();
    let source = env.subdir("hello");
    std::fs::write(
        source.join("plugin.yaml"),
        "apiVersion: v1\nname: hello\ntype: cli/v1\nruntime: subprocess\nversion: 0.2.0\nruntimeConfig:\n  \
         platformCommand:\n  - command: echo\n    args: [hello]\n",
    )
    .unwrap();
    let packaged = env.subdir("packaged");
    env.helm_ok(&[
        "plugin",
        "package",
        &source.display().to_string(),
        "--sign",
        "--key",
        "Chart Signer",
        "--keyring",
        &keys.path("secring.gpg"),
        "-d",
        &packaged.display().to_string(),
    ]);
    let archive = packaged.join("hello-0.2.0.tgz").display().to_string();
    let (pubring, other) = (keys.path("pubring.gpg"), keys.path("other.gpg"));
    for (keyring, verifies) in [(&pubring, true), (&other, false)] {
        let results = [Program::Helm, Program::Berth].map(|program| {
            let home = tempfile::tempdir().unwrap();
            let args = ["plugin", "install", archive.as_str(), "--keyring", keyring.as_str()];
            let output = crate::helm_commands::run_in(program, &args, home.path(), home.path(), &[]);
            let listed = crate::helm_commands::run_in(program, &["plugin", "list"], home.path(), home.path(), &[]);
            (output, text(&listed.stdout))
        });
        let [(helm, helm_list), (berth, berth_list)] = results;
        assert_eq!(helm.status.success(), verifies, "helm: {}", text(&helm.stderr));
        assert_eq!(berth.status.success(), verifies, "berth: {}", text(&berth.stderr));
        assert_eq!(text(&berth.stdout), text(&helm.stdout));
        assert_eq!(berth_list, helm_list);
        if verifies {
            assert!(berth_list.contains("\tsigned    \t"), "{berth_list}");
        }
    }
}

#[test]
fn charts_signed_by_berth_verify_in_helm() {
    let keys = Keys::new();
    let env = SourceEnv::new();
    env.helm_ok(&["create", "shop"]);
    let (secring, pubring) = (keys.path("secring.gpg"), keys.path("pubring.gpg"));
    // (key, keyring, whether it signs)
    let table = [
        ("Chart Signer", &secring, true),
        ("Signer", &secring, true),
        ("Nobody", &secring, false),
        ("Signer", &pubring, false),
    ];
    for (key, keyring, signs) in table {
        let results = [Program::Helm, Program::Berth].map(|program| {
            let destination = env.subdir(&format!("signed-{program:?}-{key}-{signs}"));
            let destination_text = destination.display().to_string();
            let args = ["package", "shop", "--sign", "--key", key, "--keyring", keyring, "-d", &destination_text];
            let output = if program == Program::Helm { env.helm(&args) } else { env.berth(&args) };
            (output, destination)
        });
        let [(helm, _), (berth, signed)] = &results;
        assert_eq!(helm.status.success(), signs, "helm {key}: {}", text(&helm.stderr));
        assert_eq!(berth.status.success(), signs, "berth {key}: {}", text(&berth.stderr));
        if !signs {
            let reason = helm_error(&text(&helm.stderr));
            assert!(text(&berth.stderr).contains(&reason), "helm: {reason}\nberth: {}", text(&berth.stderr));
            assert!(crate::helm_commands::tree(signed).is_empty(), "berth writes nothing for a package it cannot sign");
            continue;
        }
        // Real Helm verifies what berth signed, and berth verifies it too, with the same report.
        let archive = signed.join("shop-0.1.0.tgz").display().to_string();
        let args = ["verify", archive.as_str(), "--keyring", pubring.as_str()];
        let (helm_verify, berth_verify) = (env.helm(&args), env.berth(&args));
        assert!(helm_verify.status.success(), "{}", text(&helm_verify.stderr));
        assert_eq!(text(&berth_verify.stdout), text(&helm_verify.stdout));
        assert!(text(&helm_verify.stdout).starts_with("Signed by: Chart Signer <signer@example.com>\n"));
    }
}

/// A plugin directory for `plugin package`: `plugin.yaml`, an executable script, a file in a subdirectory.
fn plugin_source(root: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt as _;
    let source = root.join("hello");
    std::fs::create_dir_all(source.join("lib")).unwrap();
    std::fs::write(
        source.join("plugin.yaml"),
        "apiVersion: v1\nname: hello\ntype: cli/v1\nruntime: subprocess\nversion: 0.2.0\nsourceURL: https://x\n\
         config:\n  usage: hello\n  shortHelp: say hello\nruntimeConfig:\n  platformCommand:\n  - command: \
         $HELM_PLUGIN_DIR/run.sh\n    args: [\"--from\", \"$HELM_PLUGIN_NAME\"]\n",
    )
    .unwrap();
    std::fs::write(source.join("run.sh"), "#!/bin/sh\necho hello\n").unwrap();
    std::fs::write(source.join("lib/words.txt"), "hello\n".repeat(200)).unwrap();
    for (path, mode) in
        [("", 0o755), ("lib", 0o755), ("run.sh", 0o755), ("plugin.yaml", 0o644), ("lib/words.txt", 0o644)]
    {
        std::fs::set_permissions(source.join(path), std::fs::Permissions::from_mode(mode)).unwrap();
    }
    source
}

/// An archive's entries: name, mode, content.
fn archive_entries(path: &Path) -> Vec<(String, i64, Vec<u8>)> {
    let data = std::fs::read(path).unwrap();
    berth_chart::load::tar_gz_entries(&data)
        .unwrap()
        .into_iter()
        .map(|entry| (entry.name, entry.mode, entry.data))
        .collect()
}

#[test]
fn plugin_package_and_verify_as_helm() {
    let keys = Keys::new();
    // A passphrase-protected key as well.
    let spec = keys.dir.path().join("locked.spec");
    std::fs::write(
        &spec,
        "Key-Type: RSA\nKey-Length: 2048\nName-Real: Locked Signer\nName-Email: locked@example.com\n\
         Passphrase: s3cret\nExpire-Date: 0\n%commit\n",
    )
    .unwrap();
    keys.gpg(&["--batch", "--pinentry-mode", "loopback", "--gen-key", spec.to_str().unwrap()]);
    let locked = keys.gpg(&[
        "--batch",
        "--pinentry-mode",
        "loopback",
        "--passphrase",
        "s3cret",
        "--export-secret-keys",
        "Locked Signer",
    ]);
    std::fs::write(keys.path("locked.gpg"), locked).unwrap();
    let work = tempfile::tempdir().unwrap();
    plugin_source(work.path());
    std::fs::write(work.path().join("right.txt"), "s3cret\r\n").unwrap();
    std::fs::write(work.path().join("wrong.txt"), "wrong\n").unwrap();
    let (secring, pubring, other, locked) =
        (keys.path("secring.gpg"), keys.path("pubring.gpg"), keys.path("other.gpg"), keys.path("locked.gpg"));
    // Each line runs in the work directory with `DEST` the program's own destination.
    let package = |flags: &[&str]| {
        let mut args = vec!["plugin", "package", "hello"];
        args.extend_from_slice(flags);
        args.extend_from_slice(&["-d", "DEST"]);
        args.into_iter().map(str::to_string).collect::<Vec<_>>()
    };
    let locked_with = |passphrase_file: &str| {
        package(&["--key", "Locked", "--keyring", &locked, "--passphrase-file", passphrase_file])
    };
    let table: [Vec<String>; 14] = [
        package(&["--key", "Chart Signer", "--keyring", &secring]),
        ["plugin", "package", "hello", "--key", "Signer", "--keyring", &secring, "--destination", "DEST/deeper/"]
            .map(str::to_string)
            .to_vec(),
        package(&["--sign=false"]),
        locked_with("right.txt"),
        locked_with("wrong.txt"),
        package(&["--key", "Locked", "--keyring", &locked]),
        locked_with("-"),
        locked_with("none.txt"),
        package(&["--keyring", &secring]),
        package(&["--key", "Nobody", "--keyring", &secring]),
        package(&["--key", "Chart Signer", "--keyring", &pubring]),
        package(&["--key", "Chart Signer"]),
        ["plugin", "package", "hello/plugin.yaml", "--sign=false", "-d", "DEST"].map(str::to_string).to_vec(),
        ["plugin", "package", "missing", "--sign=false", "-d", "DEST"].map(str::to_string).to_vec(),
    ];
    // The output, and stderr's first line with the run's HOME masked.
    let run = |program: Program, args: &[&str]| {
        let home = tempfile::tempdir().unwrap();
        let variables: &[(&str, &str)] = if program == Program::Berth { &[("BERTH_HELM", "1")] } else { &[] };
        let output = crate::helm_commands::run_in(program, args, work.path(), home.path(), variables);
        let first = text(&output.stderr)
            .lines()
            .next()
            .unwrap_or_default()
            .replace(&home.path().display().to_string(), "$HOME");
        (output, first)
    };
    for (index, args) in table.iter().enumerate() {
        let results = [Program::Helm, Program::Berth].map(|program| {
            let destination = format!("out-{program:?}-{index}");
            let args: Vec<String> = args.iter().map(|arg| arg.replace("DEST", &destination)).collect();
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let (output, first) = run(program, &args);
            let destination = work.path().join(&destination);
            let files: Vec<String> = if destination.exists() {
                crate::helm_commands::tree(&destination).into_keys().collect()
            } else {
                Vec::new()
            };
            let stdout = text(&output.stdout).replace(&format!("out-{program:?}-"), "out-");
            (output, first, stdout, files)
        });
        let [(helm, helm_first, helm_stdout, helm_files), (berth, berth_first, berth_stdout, berth_files)] = results;
        assert_eq!(berth_stdout, helm_stdout, "stdout of {args:?}");
        assert_eq!(berth_first, helm_first, "stderr of {args:?}");
        assert_eq!(berth.status.code(), helm.status.code(), "exit status of {args:?}");
        assert_eq!(berth_files, helm_files, "files of {args:?}");
    }
    // berth's archive holds what Helm's holds (names, modes, contents); the signed metadata is Helm's.
    let [helm_archive, berth_archive] =
        ["Helm", "Berth"].map(|program| work.path().join(format!("out-{program}-0/hello-0.2.0.tgz")));
    assert_eq!(archive_entries(&berth_archive), archive_entries(&helm_archive));
    let signed_metadata = |archive: &Path| {
        let provenance = std::fs::read(format!("{}.prov", archive.display())).unwrap();
        let signed = berth::provenance::Clearsigned::parse(&provenance).unwrap();
        signed.plaintext.split("\n...\n").next().unwrap().to_string()
    };
    assert_eq!(signed_metadata(&berth_archive), signed_metadata(&helm_archive));
    // Each verifies the other's archive; tampered, unsigned and misnamed archives are refused with Helm's words.
    let tampered = work.path().join("tampered");
    std::fs::create_dir_all(&tampered).unwrap();
    let mut bytes = std::fs::read(&berth_archive).unwrap();
    bytes.push(0);
    std::fs::write(tampered.join("hello-0.2.0.tgz"), bytes).unwrap();
    std::fs::copy(format!("{}.prov", berth_archive.display()), tampered.join("hello-0.2.0.tgz.prov")).unwrap();
    let renamed = work.path().join("renamed.tar.gz");
    std::fs::copy(&helm_archive, &renamed).unwrap();
    std::fs::copy(format!("{}.prov", helm_archive.display()), format!("{}.prov", renamed.display())).unwrap();
    let (helm_archive_text, berth_archive_text) =
        (helm_archive.display().to_string(), berth_archive.display().to_string());
    let tampered_text = tampered.join("hello-0.2.0.tgz").display().to_string();
    let renamed_text = renamed.display().to_string();
    let verify_table: [(&[&str], bool); 10] = [
        (&["plugin", "verify", &helm_archive_text, "--keyring", &pubring], true),
        (&["plugin", "verify", &berth_archive_text, "--keyring", &pubring], true),
        (&["plugin", "verify", "out-Berth-3/hello-0.2.0.tgz", "--keyring", &locked], true),
        (&["plugin", "verify", &berth_archive_text, "--keyring", &other], false),
        (&["plugin", "verify", &tampered_text, "--keyring", &pubring], false),
        (&["plugin", "verify", &renamed_text, "--keyring", &pubring], false),
        (&["plugin", "verify", "out-Berth-2/hello-0.2.0.tgz", "--keyring", &pubring], false),
        (&["plugin", "verify", "hello", "--keyring", &pubring], false),
        (&["plugin", "verify", "hello/plugin.yaml", "--keyring", &pubring], false),
        (&["plugin", "verify", &berth_archive_text, "--keyring", "/nonexistent/pubring.gpg"], false),
    ];
    for (args, verifies) in verify_table {
        let [(helm, helm_first), (berth, berth_first)] =
            [Program::Helm, Program::Berth].map(|program| run(program, args));
        assert_eq!(helm.status.success(), verifies, "helm {args:?}: {}", text(&helm.stderr));
        assert_eq!(text(&berth.stdout), text(&helm.stdout), "stdout of {args:?}");
        assert_eq!(berth_first, helm_first, "stderr of {args:?}");
        assert_eq!(berth.status.code(), helm.status.code(), "exit status of {args:?}");
    }
    // Helm installs the plugin berth packaged, verifying it, and runs it.
    let home = tempfile::tempdir().unwrap();
    let installed = crate::helm_commands::run_in(
        Program::Helm,
        &["plugin", "install", &berth_archive_text, "--keyring", &pubring],
        work.path(),
        home.path(),
        &[],
    );
    assert!(installed.status.success(), "{}", text(&installed.stderr));
    let ran = crate::helm_commands::run_in(Program::Helm, &["hello"], work.path(), home.path(), &[]);
    assert_eq!(text(&ran.stdout), "hello\n", "{}", text(&ran.stderr));
}
