//! OCI registries against real Helm 4.1.4 and a real registry (Debian's `docker-registry` 2.8 on loopback, plain
//! HTTP): what `helm push` pushes berth pulls byte for byte, `berth push` of the same archive makes the same
//! manifest (digest), what `berth push` pushes Helm pulls with the same manifest digest, tags resolve as Helm resolves them, and registry logins made by either tool serve both.
//! Registries with basic auth (htpasswd) and with bearer tokens (a token service the tests run). Skipped, with a
//! printed note, where the registry cannot be fetched.

use crate::sources_support::{PASSWORD, Registry, RegistryAuth, SourceEnv, TAG, USER, shown_version, stderr};
use std::path::Path;

/// The `Digest: sha256:...` line a pull or push printed.
fn digest_line(output: &std::process::Output) -> String {
    stderr(output)
        .lines()
        .chain(String::from_utf8_lossy(&output.stdout).lines())
        .find(|line| line.starts_with("Digest: "))
        .unwrap_or_else(|| panic!("no Digest line in {output:?}"))
        .to_string()
}

fn text(path: &Path) -> String {
    path.display().to_string()
}

#[test]
fn charts_pushed_by_either_tool_are_pulled_identically_by_the_other() {
    let Some(registry) = Registry::start(false) else { return };
    let env = SourceEnv::new();
    let packaged = env.subdir("packaged");
    let first = env.package(TAG, "1.0.0", &packaged);
    let second = env.package(TAG, "1.1.0+build.7", &packaged);
    let remote = format!("oci://{}/charts", registry.host);
    let chart = format!("{remote}/tag");

    // helm push, then berth pull: the same bytes as helm pull, the same manifest digest.
    let pushed = env.helm(&["push", &text(&first), &remote, "--plain-http"]);
    assert!(pushed.status.success(), "{pushed:?}");
    let (ours, theirs) = (env.subdir("berth-1"), env.subdir("helm-1"));
    let berth_pull = env.berth(&["pull", &chart, "--version", "1.0.0", "--plain-http", "-d", &text(&ours)]);
    assert!(berth_pull.status.success(), "{berth_pull:?}");
    let helm_pull = env.helm(&["pull", &chart, "--version", "1.0.0", "--plain-http", "-d", &text(&theirs)]);
    assert!(helm_pull.status.success(), "{helm_pull:?}");
    let ours_bytes = std::fs::read(ours.join("tag-1.0.0.tgz")).expect("berth pulled tag-1.0.0.tgz");
    assert_eq!(ours_bytes, std::fs::read(theirs.join("tag-1.0.0.tgz")).expect("helm pulled"));
    assert_eq!(ours_bytes, std::fs::read(&first).expect("packaged"));
    assert_eq!(digest_line(&berth_pull), digest_line(&helm_pull));
    assert_eq!(digest_line(&berth_pull), digest_line(&pushed));
    // The same archive pushed by berth is the same artifact: Helm's manifest, byte for byte.
    let mirrored = env.berth(&["push", &text(&first), &format!("oci://{}/mirror", registry.host), "--plain-http"]);
    assert!(mirrored.status.success(), "{mirrored:?}");
    assert_eq!(digest_line(&mirrored), digest_line(&pushed));

    // berth push (a `+` version: tag `1.1.0_build.7`), then helm pull: the pushed bytes, the same digest.
    let berth_push = env.berth(&["push", &text(&second), &remote, "--plain-http"]);
    assert!(berth_push.status.success(), "{berth_push:?}");
    assert!(
        stderr(&berth_push).contains(&format!("Pushed: {}/charts/tag:1.1.0_build.7", registry.host)),
        "{berth_push:?}"
    );
    let theirs = env.subdir("helm-2");
    let helm_pull = env.helm(&["pull", &chart, "--version", "1.1.0+build.7", "--plain-http", "-d", &text(&theirs)]);
    assert!(helm_pull.status.success(), "{helm_pull:?}");
    assert_eq!(
        std::fs::read(theirs.join("tag-1.1.0+build.7.tgz")).expect("helm pulled"),
        std::fs::read(&second).expect("packaged")
    );
    assert_eq!(digest_line(&helm_pull), digest_line(&berth_push));

    // Tags resolve as Helm resolves them: exact, constraints, the newest without --version, a tag in the reference.
    for args in [
        vec!["show", "chart", chart.as_str(), "--plain-http"],
        vec!["show", "chart", chart.as_str(), "--plain-http", "--version", "^1"],
        vec!["show", "chart", chart.as_str(), "--plain-http", "--version", "~1.0"],
        vec!["show", "chart", chart.as_str(), "--plain-http", "--version", "1.0.0"],
        vec!["show", "chart", chart.as_str(), "--plain-http", "--version", "<1.1.0"],
    ] {
        let expected = shown_version(&env.helm_ok(&args));
        assert_eq!(shown_version(&env.berth_ok(&args)), expected, "{args:?}");
    }
    // None matching: both refuse; berth names the nearest versions the registry has.
    let args = ["show", "chart", chart.as_str(), "--plain-http", "--version", "^9"];
    assert!(!env.helm(&args).status.success());
    let refused = env.berth(&args);
    let message = stderr(&refused);
    assert_eq!(refused.status.code(), Some(2), "{message}");
    assert!(message.contains("could not locate a version matching provided version string ^9"), "{message}");
    assert!(message.contains("hint: the registry's versions nearest to `^9` are 1.1.0+build.7, 1.0.0"), "{message}");
    let tagged = format!("{chart}:1.0.0");
    assert_eq!(shown_version(&env.berth_ok(&["show", "chart", &tagged, "--plain-http"])), "1.0.0");

    // Rendering a registry chart is Helm's rendering.
    let args = ["template", "rel", chart.as_str(), "--version", "1.0.0", "--plain-http", "--set", "colour=green"];
    let rendered = env.berth_ok(&args);
    assert_eq!(rendered, env.helm_ok(&args));
    assert!(rendered.contains("version: \"1.0.0\"") && rendered.contains("colour: \"green\""), "{rendered}");
}

#[test]
fn registry_logins_made_by_either_tool_serve_both() {
    let Some(registry) = Registry::start(true) else { return };
    let env = SourceEnv::new();
    let packaged = env.subdir("packaged");
    let archive = env.package(TAG, "2.0.0", &packaged);
    let remote = format!("oci://{}/charts", registry.host);
    let chart = format!("{remote}/tag");
    let pull = |dir: &str| {
        let dir = env.subdir(dir);
        ["pull", chart.as_str(), "--version", "2.0.0", "--plain-http", "-d"]
            .map(str::to_string)
            .to_vec()
            .into_iter()
            .chain([text(&dir)])
            .collect::<Vec<_>>()
    };
    let run = |tool: &str, args: &[String]| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        if tool == "helm" { env.helm(&args) } else { env.berth(&args) }
    };

    // Helm's login: Helm pushes, berth pulls.
    let login = env.helm(&["registry", "login", &registry.host, "-u", USER, "-p", PASSWORD, "--plain-http"]);
    assert!(login.status.success(), "{login:?}");
    let pushed = env.helm(&["push", &text(&archive), &remote, "--plain-http"]);
    assert!(pushed.status.success(), "{pushed:?}");
    let pulled = run("berth", &pull("berth-1"));
    assert!(pulled.status.success(), "berth pulls with helm's login: {pulled:?}");

    // Logged out by Helm: berth is refused, with the way out.
    env.helm_ok(&["registry", "logout", &registry.host]);
    let refused = run("berth", &pull("berth-2"));
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");
    let message = stderr(&refused);
    assert!(message.contains("basic credential not found"), "{message}");
    assert!(message.contains(&format!("hint: log in with `berth registry login {}`", registry.host)), "{message}");

    // berth's login: Helm pulls; berth's logout: Helm is refused.
    let login = env.berth_stdin(
        &["registry", "login", &registry.host, "--username", USER, "--password-stdin", "--plain-http"],
        PASSWORD,
    );
    assert!(login.status.success(), "{login:?}");
    assert!(
        stderr(&login).contains("Login Succeeded")
            || String::from_utf8_lossy(&login.stdout).contains("Login Succeeded")
    );
    assert!(run("helm", &pull("helm-1")).status.success(), "helm pulls with berth's login");
    env.berth_ok(&["registry", "logout", &registry.host]);
    assert!(!run("helm", &pull("helm-2")).status.success(), "helm is refused after berth's logout");

    // HELM_REGISTRY_CONFIG moves the store for both tools.
    let mut moved = SourceEnv::new();
    let store = moved.dir.path().join("elsewhere/registry.json");
    moved.vars.push(("HELM_REGISTRY_CONFIG".into(), text(&store)));
    let login = moved.berth_stdin(
        &["registry", "login", &registry.host, "--username", USER, "--password-stdin", "--plain-http"],
        PASSWORD,
    );
    assert!(login.status.success() && store.is_file(), "{login:?}");
    assert!(!moved.home().join(".config/helm/registry/config.json").exists());
    let dir = text(&moved.subdir("out"));
    moved.helm_ok(&["pull", &chart, "--version", "2.0.0", "--plain-http", "-d", &dir]);

    // A wrong password is refused at login, and nothing is stored.
    let wrong = env.berth_stdin(
        &["registry", "login", &registry.host, "--username", USER, "--password-stdin", "--plain-http"],
        "not-the-password",
    );
    assert_eq!(wrong.status.code(), Some(2), "{wrong:?}");
    assert!(!run("helm", &pull("helm-3")).status.success());

    // Credentials on the command line work, and are never printed, not even in debug logs.
    let mut debug_env = SourceEnv::new();
    debug_env.vars.push(("BERTH_LOG".into(), "debug".into()));
    let dir = debug_env.subdir("out");
    let output = debug_env.berth(&[
        "pull",
        &chart,
        "--version",
        "2.0.0",
        "--plain-http",
        "--username",
        USER,
        "--password",
        PASSWORD,
        "-d",
        &text(&dir),
    ]);
    assert!(output.status.success(), "{output:?}");
    use base64::Engine as _;
    let basic = base64::engine::general_purpose::STANDARD.encode(format!("{USER}:{PASSWORD}"));
    let all = format!("{}{}", String::from_utf8_lossy(&output.stdout), stderr(&output));
    assert!(!all.contains(PASSWORD) && !all.contains(&basic), "a secret was printed: {all}");
}

#[test]
fn registries_asking_for_bearer_tokens_serve_both_tools() {
    let Some(registry) = Registry::start_with(RegistryAuth::Token) else { return };
    let env = SourceEnv::new();
    let packaged = env.subdir("packaged");
    let (first, second) = (env.package(TAG, "3.0.0", &packaged), env.package(TAG, "3.1.0", &packaged));
    let remote = format!("oci://{}/charts", registry.host);
    let chart = format!("{remote}/tag");
    let pull = |tool: &str, version: &str, dir: &str| {
        let dir = text(&env.subdir(dir));
        let args = ["pull", chart.as_str(), "--version", version, "--plain-http", "-d", dir.as_str()];
        if tool == "helm" { env.helm(&args) } else { env.berth(&args) }
    };

    // No credentials: the token service refuses, berth says how to log in.
    let refused = env.berth(&["push", &text(&first), &remote, "--plain-http"]);
    let message = stderr(&refused);
    assert_eq!(refused.status.code(), Some(2), "{message}");
    assert!(message.contains(&format!("berth registry login {}", registry.host)), "{message}");

    // berth's login (checked through the token service), then berth pushes and Helm pulls the same bytes.
    let login = env.berth_stdin(
        &["registry", "login", &registry.host, "--username", USER, "--password-stdin", "--plain-http"],
        PASSWORD,
    );
    assert!(login.status.success(), "{login:?}");
    let pushed = env.berth(&["push", &text(&first), &remote, "--plain-http"]);
    assert!(pushed.status.success(), "{pushed:?}");
    let helm_pull = pull("helm", "3.0.0", "helm");
    assert!(helm_pull.status.success(), "{helm_pull:?}");
    assert_eq!(std::fs::read(env.work().join("helm/tag-3.0.0.tgz")).ok(), std::fs::read(&first).ok());
    assert_eq!(digest_line(&helm_pull), digest_line(&pushed));

    // Helm pushes with the same login; berth pulls it.
    env.helm_ok(&["push", &text(&second), &remote, "--plain-http"]);
    let berth_pull = pull("berth", "3.1.0", "berth");
    assert!(berth_pull.status.success(), "{berth_pull:?}");
    assert_eq!(std::fs::read(env.work().join("berth/tag-3.1.0.tgz")).ok(), std::fs::read(&second).ok());
}

#[test]
fn registries_on_https_are_trusted_with_ca_file_or_insecure_skip_tls_verify() {
    let Some(registry) = Registry::start_tls() else { return };
    let ca_file = text(registry.ca_file.as_ref().expect("a TLS registry has a CA"));
    let env = SourceEnv::new();
    let packaged = env.subdir("packaged");
    let archive = env.package(TAG, "4.0.0", &packaged);
    let remote = format!("oci://{}/charts", registry.host);
    let chart = format!("{remote}/tag");

    // Helm pushes trusting the CA; berth, without it, refuses the certificate and says what to do.
    env.helm_ok(&["push", &text(&archive), &remote, "--ca-file", &ca_file]);
    let dir = text(&env.subdir("refused"));
    let refused = env.berth(&["pull", &chart, "--version", "4.0.0", "-d", &dir]);
    let message = stderr(&refused);
    assert_eq!(refused.status.code(), Some(2), "{message}");
    assert!(message.contains("--ca-file"), "{message}");
    assert!(std::fs::read_dir(&dir).expect("directory").next().is_none(), "nothing was written");

    // With the CA, or without checking: the same bytes as Helm's.
    for (name, flags) in [("ca", vec!["--ca-file", ca_file.as_str()]), ("insecure", vec!["--insecure-skip-tls-verify"])]
    {
        let (ours, theirs) = (text(&env.subdir(&format!("berth-{name}"))), text(&env.subdir(&format!("helm-{name}"))));
        let mut berth_args = vec!["pull", chart.as_str(), "--version", "4.0.0", "-d", ours.as_str()];
        berth_args.extend(&flags);
        let mut helm_args = vec!["pull", chart.as_str(), "--version", "4.0.0", "-d", theirs.as_str()];
        helm_args.extend(&flags);
        env.berth_ok(&berth_args);
        env.helm_ok(&helm_args);
        let read = |dir: &str| std::fs::read(Path::new(dir).join("tag-4.0.0.tgz")).expect("pulled");
        assert_eq!(read(&ours), read(&theirs), "{name}");
    }

    // berth pushes over TLS too; Helm pulls it.
    let second = env.package(TAG, "4.1.0", &packaged);
    env.berth_ok(&["push", &text(&second), &remote, "--ca-file", &ca_file]);
    let dir = text(&env.subdir("helm-second"));
    env.helm_ok(&["pull", &chart, "--version", "4.1.0", "--ca-file", &ca_file, "-d", &dir]);
}

#[test]
fn content_that_is_not_what_its_digest_says_is_refused() {
    let Some(registry) = Registry::start(false) else { return };
    let env = SourceEnv::new();
    let packaged = env.subdir("packaged");
    let archive = env.package(TAG, "5.0.0", &packaged);
    env.helm_ok(&["push", &text(&archive), &format!("oci://{}/charts", registry.host), "--plain-http"]);

    // The chart layer's blob corrupted in the registry's storage (same size, other bytes).
    let data = std::fs::read(&archive).expect("archive");
    let blob = registry.blob_path(&berth_source::oci::manifest::sha256_hex(&data));
    let mut corrupted = std::fs::read(&blob).expect("the registry stores the layer");
    assert_eq!(corrupted, data);
    let last = corrupted.len() - 1;
    corrupted[last] ^= 0xff;
    std::fs::write(&blob, &corrupted).expect("blob corrupted");

    let chart = format!("oci://{}/charts/tag", registry.host);
    let (ours, theirs) = (env.subdir("berth"), env.subdir("helm"));
    assert!(!env.helm(&["pull", &chart, "--version", "5.0.0", "--plain-http", "-d", &text(&theirs)]).status.success());
    let refused = env.berth(&["pull", &chart, "--version", "5.0.0", "--plain-http", "-d", &text(&ours)]);
    let message = stderr(&refused);
    assert_eq!(refused.status.code(), Some(2), "{message}");
    assert!(message.contains("digest mismatch"), "{message}");
    assert!(message.contains("hint: the content is not what its index or reference promises"), "{message}");
    assert!(std::fs::read_dir(&ours).expect("directory").next().is_none(), "nothing was written");
}
