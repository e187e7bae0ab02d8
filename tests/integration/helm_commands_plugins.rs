//! Helm 4 plugins shared between real Helm 4.1.4 and berth (one plugin directory, either tool installing,
//! listing, running and removing), `template --post-renderer` against `helm template --post-renderer` on the
//! same plugin, the post-renderer called through the library, and `template --dependency-update`.

use crate::helm_commands::{Program, Variables, run_in, text, tree};
use std::path::Path;

/// Writes a plugin directory `name` under `root` with `plugin.yaml` and, when given, an executable `run.sh`.
fn plugin(root: &Path, name: &str, yaml: &str, script: Option<&str>) -> String {
    use std::os::unix::fs::PermissionsExt as _;
    let directory = root.join(name);
    std::fs::create_dir_all(&directory).unwrap();
    std::fs::write(directory.join("plugin.yaml"), yaml).unwrap();
    if let Some(script) = script {
        let path = directory.join("run.sh");
        std::fs::write(&path, script).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    directory.display().to_string()
}

/// A `cli/v1` plugin (Helm 4 form) printing what Helm hands it.
const HELLO: &str = "apiVersion: v1\nname: hello\ntype: cli/v1\nruntime: subprocess\nversion: 0.2.0\n\
                     sourceURL: https://example.com/hello\nconfig:\n  usage: hello\n  shortHelp: say hello\n\
                     runtimeConfig:\n  platformCommand:\n  - command: $HELM_PLUGIN_DIR/run.sh\n    args: [\"--from\", \
                     \"$HELM_PLUGIN_NAME\"]\n  platformHooks:\n    install:\n    - command: sh\n      args: [\"-c\", \
                     \"echo hook for $HELM_PLUGIN_NAME\"]\n";
const HELLO_SCRIPT: &str = "#!/bin/sh\necho \"args: $*\"\necho \"name=$HELM_PLUGIN_NAME dir=${HELM_PLUGIN_DIR##*/} \
                            ns=$HELM_NAMESPACE ctx=$HELM_KUBECONTEXT debug=$HELM_DEBUG\"\nexit ${EXIT_WITH:-0}\n";

/// A Helm 3 plugin (`command`, `hooks`), which Helm 4 still reads.
const LEGACY: &str = "name: legacy\nversion: 1.0.0\nusage: a Helm 3 plugin\ndescription: Old form.\n\
                      command: \"$HELM_PLUGIN_DIR/run.sh\"\nignoreFlags: true\nhooks:\n  install: echo legacy \
                      installed\n";
const LEGACY_SCRIPT: &str = "#!/bin/sh\necho \"legacy args: $*\"\n";

/// A `postrenderer/v1` plugin: a `sed` on the stream plus one document of its own naming its argument.
const UPPER: &str = "apiVersion: v1\nname: upper\ntype: postrenderer/v1\nruntime: subprocess\nversion: 1.0.0\n\
                     runtimeConfig:\n  platformCommand:\n  - command: $HELM_PLUGIN_DIR/run.sh\n";
const UPPER_SCRIPT: &str = "#!/bin/sh\nsed -e 's/value: low/value: HIGH/'\nprintf -- '---\\napiVersion: \
                            v1\\nkind: ConfigMap\\nmetadata:\\n  name: extra-%s\\n' \"$1\"\n";

/// A post-renderer that fails.
const BROKEN: &str = "apiVersion: v1\nname: broken\ntype: postrenderer/v1\nruntime: subprocess\nversion: 1.0.0\n\
                      runtimeConfig:\n  platformCommand:\n  - command: sh\n    args: [\"-c\", \"exit 4\"]\n";

#[test]
fn plugins_installed_by_either_tool_serve_both() {
    let home = tempfile::tempdir().unwrap();
    let sources = tempfile::tempdir().unwrap();
    let hello = plugin(sources.path(), "hello", HELLO, Some(HELLO_SCRIPT));
    let legacy = plugin(sources.path(), "legacy", LEGACY, Some(LEGACY_SCRIPT));
    let upper = plugin(sources.path(), "upper", UPPER, Some(UPPER_SCRIPT));
    let run = |program, args: &[&str], variables: &[(&str, &str)]| {
        let output = run_in(program, args, home.path(), home.path(), variables);
        (text(&output.stdout), output.status.code(), text(&output.stderr))
    };
    // Helm installs one, berth the others; each sees all three.
    let installed = run(Program::Helm, &["plugin", "install", &hello], &[]);
    assert_eq!(installed.1, Some(0), "{}", installed.2);
    assert_eq!(
        installed.0,
        "Installing plugin from local directory (development mode)\nhook for hello\nInstalled plugin: hello\n"
    );
    for source in [&legacy, &upper] {
        let helm_would = run(Program::Berth, &["plugin", "install", source], &[]);
        assert_eq!(helm_would.1, Some(0), "{}", helm_would.2);
    }
    for args in [&["plugin", "list"][..], &["plugin", "ls", "--type", "cli/v1"], &["plugin", "list", "--type", "x"]] {
        let (helm, berth) = (run(Program::Helm, args, &[]), run(Program::Berth, args, &[]));
        assert_eq!(berth.0, helm.0, "{args:?}");
        assert!(helm.0.contains("legacy\t1.0.0  \tcli/v1") || args.len() > 2, "{}", helm.0);
    }
    // Running a plugin: the same arguments and environment whichever tool runs it; global flags are Helm's.
    let table: [(&[&str], Variables); 6] = [
        (&["hello", "a", "-b", "--c=d"], &[]),
        // Global flags among the plugin's arguments, `--debug` among them: Helm's debug line (berth as `helm`).
        (&["hello", "x", "--namespace", "shop", "--kube-context=ctx", "--debug", "y"], &[("BERTH_HELM", "1")]),
        (&["hello"], &[("HELM_NAMESPACE", "from-env")]),
        (&["hello", "fails"], &[("EXIT_WITH", "3")]),
        (&["legacy", "1", "--flag", "2"], &[]),
        // No plugin is a command with HELM_NO_PLUGINS=1 (berth as `helm`: Helm's unknown command).
        (&["hello", "a"], &[("HELM_NO_PLUGINS", "1"), ("BERTH_HELM", "1")]),
    ];
    for (args, variables) in table {
        let (helm, berth) = (run(Program::Helm, args, variables), run(Program::Berth, args, variables));
        assert_eq!(berth.0, helm.0, "stdout of {args:?}");
        assert_eq!(berth.1, helm.1, "exit status of {args:?}: {}", berth.2);
        if variables.iter().any(|(name, _)| *name == "BERTH_HELM") {
            assert_eq!(berth.2.lines().next(), helm.2.lines().next(), "stderr of {args:?}");
        }
    }
    // Installing again, or what is no plugin, fails in both.
    for source in [hello.as_str(), sources.path().to_str().unwrap(), "/nonexistent/plugin"] {
        let (helm, berth) = (
            run(Program::Helm, &["plugin", "install", source], &[]),
            run(Program::Berth, &["plugin", "install", source], &[]),
        );
        assert_ne!(helm.1, Some(0), "{source}");
        assert_ne!(berth.1, Some(0), "{source}");
    }
    // berth removes what Helm installed, Helm what berth installed.
    assert_eq!(run(Program::Berth, &["plugin", "uninstall", "hello"], &[]).0, "Uninstalled plugin: hello\n");
    assert_eq!(
        run(Program::Helm, &["plugin", "rm", "upper", "legacy"], &[]).0,
        "Uninstalled plugin: upper\nUninstalled plugin: legacy\n"
    );
    let (helm, berth) = (run(Program::Helm, &["plugin", "list"], &[]), run(Program::Berth, &["plugin", "list"], &[]));
    assert_eq!(berth.0, helm.0);
    assert_eq!(berth.0.lines().count(), 1, "only the header is left: {}", berth.0);
    let missing = run(Program::Berth, &["plugin", "uninstall", "hello"], &[]);
    assert!(missing.1 != Some(0) && missing.2.contains("plugin: hello not found"), "{}", missing.2);
    let unknown = run(Program::Berth, &["no-such-command"], &[]);
    assert!(unknown.1 != Some(0) && unknown.2.contains("unknown command \"no-such-command\""), "{}", unknown.2);
}

#[test]
fn a_plugin_archive_installs_for_both_tools() {
    let sources = tempfile::tempdir().unwrap();
    plugin(sources.path(), "hello", HELLO, Some(HELLO_SCRIPT));
    let archive = sources.path().join("hello-0.2.0.tgz");
    let status = std::process::Command::new("tar")
        .args(["czf", archive.to_str().unwrap(), "-C", sources.path().to_str().unwrap(), "hello"])
        .status()
        .expect("tar runs");
    assert!(status.success());
    let archive = archive.display().to_string();
    let results = [Program::Helm, Program::Berth].map(|program| {
        let home = tempfile::tempdir().unwrap();
        let run = |args: &[&str]| run_in(program, args, home.path(), home.path(), &[]);
        // Without a `.prov`, the default verification refuses the archive.
        let refused = run(&["plugin", "install", &archive]);
        let installed = run(&["plugin", "install", &archive, "--verify=false"]);
        let listed = run(&["plugin", "list"]);
        let ran = run(&["hello", "z"]);
        let files = tree(&home.path().join(".local/share/helm/plugins"));
        (refused.status.success(), text(&installed.stdout), text(&listed.stdout), text(&ran.stdout), files, home)
    });
    assert!(!results[0].0 && !results[1].0, "an archive without provenance is refused");
    assert!(results[1].1.contains("Installed plugin: hello"), "{}", results[1].1);
    assert_eq!(results[1].1, results[0].1);
    assert_eq!(results[1].2, results[0].2);
    assert!(results[1].2.contains("unsigned"), "{}", results[1].2);
    assert_eq!(results[1].3, results[0].3);
    assert_eq!(results[1].4, results[0].4, "the same files in the plugin directory");
}

/// A chart written in kyaml's style (two-space indents, sequences not indented), with a hook.
fn post_render_chart(root: &Path) -> String {
    let chart = root.join("post");
    std::fs::create_dir_all(chart.join("templates")).unwrap();
    std::fs::write(chart.join("Chart.yaml"), "apiVersion: v2\nname: post\nversion: 0.1.0\n").unwrap();
    std::fs::write(
        chart.join("templates/cm.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-a\n  labels:\n    x: \"1\"\ndata:\n  \
         value: low\n  list:\n  - a\n  - \"b\"\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ \
         .Release.Name }}-b\n  annotations:\n    keep: \"yes\"\ndata: {k: v}\n",
    )
    .unwrap();
    std::fs::write(
        chart.join("templates/hook.yaml"),
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: hook\n  annotations:\n    \"helm.sh/hook\": test\nspec:\n  \
         containers:\n  - name: c\n    image: busybox\n",
    )
    .unwrap();
    std::fs::write(chart.join("templates/_helpers.tpl"), "{{- define \"x\" }}x{{ end }}\n").unwrap();
    chart.display().to_string()
}

#[test]
fn template_post_renderer_runs_the_same_plugin_as_helm() {
    let home = tempfile::tempdir().unwrap();
    let sources = tempfile::tempdir().unwrap();
    for (name, yaml, script) in
        [("upper", UPPER, Some(UPPER_SCRIPT)), ("broken", BROKEN, None), ("hello", HELLO, Some(HELLO_SCRIPT))]
    {
        let source = plugin(sources.path(), name, yaml, script);
        let output = run_in(Program::Helm, &["plugin", "install", &source], home.path(), home.path(), &[]);
        assert!(output.status.success(), "{}", text(&output.stderr));
    }
    let chart = post_render_chart(sources.path());
    let table: [&[&str]; 7] = [
        &["template", "r", &chart, "--post-renderer", "upper"],
        &["template", "r", &chart, "--post-renderer", "upper", "--post-renderer-args", "one"],
        &["template", "r", &chart, "--post-renderer", "upper", "--show-only", "templates/cm.yaml"],
        &["template", "r", &chart, "--post-renderer", "upper", "--skip-tests"],
        &["template", "r", &chart, "--post-renderer", "broken"],
        &["template", "r", &chart, "--post-renderer", "hello"],
        &["template", "r", &chart, "--post-renderer", "/bin/cat"],
    ];
    for args in table {
        let [helm, berth] =
            [Program::Helm, Program::Berth].map(|program| run_in(program, args, home.path(), home.path(), &[]));
        assert_eq!(text(&berth.stdout), text(&helm.stdout), "stdout of {args:?}");
        assert_eq!(berth.status.success(), helm.status.success(), "{args:?}: {}", text(&berth.stderr));
        if !helm.status.success() {
            // Helm's message, after its `Error: `, is in berth's.
            let helm_line =
                text(&helm.stderr).lines().find_map(|line| line.strip_prefix("Error: ").map(str::to_string));
            let helm_line = helm_line.expect("Helm says why");
            assert!(
                text(&berth.stderr).contains(&helm_line),
                "{args:?}:\nhelm: {helm_line}\nberth: {}",
                text(&berth.stderr)
            );
        }
    }
}

#[test]
fn a_post_renderer_plugin_runs_through_the_library() {
    let home = tempfile::tempdir().unwrap();
    let plugins = home.path().join("plugins");
    plugin(&plugins, "upper", UPPER, Some(UPPER_SCRIPT));
    plugin(&plugins, "broken", BROKEN, None);
    let plugins_text = plugins.display().to_string();
    let settings = berth::settings::HelmEnvironment::from_lookup(|name| match name {
        "HELM_PLUGINS" => Some(plugins_text.clone()),
        "HOME" => Some(home.path().display().to_string()),
        _ => None,
    });
    let renderer = berth::plugin::PostRenderer::find(&settings, "upper", vec!["arg".to_string()]).unwrap();
    let output = renderer.run("data:\n  value: low\n").unwrap();
    assert_eq!(output, "data:\n  value: HIGH\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra-arg\n");
    let files = std::collections::BTreeMap::from([(
        "c/templates/a.yaml".to_string(),
        "kind: A\nmetadata:\n  name: a\nvalue: low\n".to_string(),
    )]);
    let rendered = renderer.render_files(&files).unwrap();
    assert_eq!(rendered["c/templates/a.yaml"], "kind: A\nmetadata:\n  name: a\nvalue: HIGH\n");
    assert!(rendered.contains_key("generated-by-postrender-1.yaml"), "{rendered:?}");
    let broken = berth::plugin::PostRenderer::find(&settings, "broken", Vec::new()).unwrap();
    let error = broken.run("x: 1\n").unwrap_err();
    assert_eq!(
        berth_source::download::error_chain(&error),
        "failed to invoke post-renderer plugin \"broken\": plugin \"broken\" exited with error"
    );
    let missing = berth::plugin::PostRenderer::find(&settings, "/bin/cat", Vec::new()).unwrap_err();
    assert_eq!(missing.to_string(), "plugin: {Name:/bin/cat Type:postrenderer/v1} not found");
}

#[test]
fn template_dependency_update_brings_missing_dependencies_first() {
    let root = tempfile::tempdir().unwrap();
    let write = |path: &str, text: &str| {
        let path = root.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("child/Chart.yaml", "apiVersion: v2\nname: child\nversion: 0.3.0\n");
    write("child/templates/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: child-{{ .Release.Name }}\n");
    write(
        "parent/Chart.yaml",
        "apiVersion: v2\nname: parent\nversion: 1.0.0\ndependencies:\n- name: child\n  version: ~0.3.0\n  repository: \
         file://../child\n",
    );
    write("parent/templates/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: parent\n");
    let results = [Program::Helm, Program::Berth].map(|program| {
        let work = tempfile::tempdir().unwrap();
        let copy = std::process::Command::new("cp")
            .args([
                "-r",
                &root.path().join("parent").display().to_string(),
                &root.path().join("child").display().to_string(),
            ])
            .arg(work.path())
            .status()
            .expect("cp runs");
        assert!(copy.success());
        let without = run_in(program, &["template", "r", "parent"], work.path(), work.path(), &[]);
        let with = run_in(program, &["template", "r", "parent", "--dependency-update"], work.path(), work.path(), &[]);
        let again = run_in(program, &["template", "r", "parent", "--dependency-update"], work.path(), work.path(), &[]);
        let charts: Vec<String> = tree(&work.path().join("parent/charts")).into_keys().collect();
        (
            without.status.success(),
            text(&with.stdout),
            with.status.success(),
            text(&again.stdout),
            charts,
            text(&with.stderr),
        )
    });
    assert!(!results[0].0 && !results[1].0, "a missing dependency fails without the flag");
    assert!(results[0].2 && results[1].2, "berth: {}", results[1].5);
    assert_eq!(results[1].1, results[0].1, "what the update and the rendering print");
    assert_eq!(results[1].3, results[0].3, "a second run renders without updating");
    assert_eq!(results[1].4, results[0].4, "charts/ holds the same archives");
    assert!(results[1].1.contains("name: child-r"), "{}", results[1].1);
}

/// `plugin install`'s download flags (TLS, plain HTTP, registry login) concern only remote sources: with a local
/// archive both tools take them and install as without them.
#[test]
fn plugin_download_flags_are_taken_as_helm_takes_them() {
    let sources = tempfile::tempdir().unwrap();
    let directory = plugin(sources.path(), "hello", HELLO, Some(HELLO_SCRIPT));
    let flags = [
        "--ca-file",
        "/nonexistent/ca.pem",
        "--cert-file",
        "/nonexistent/cert.pem",
        "--key-file",
        "/nonexistent/key.pem",
        "--insecure-skip-tls-verify",
        "--plain-http",
        "--username",
        "someone",
        "--password",
        "secret",
    ];
    let results = [Program::Helm, Program::Berth].map(|program| {
        let home = tempfile::tempdir().unwrap();
        let mut args = vec!["plugin", "install", directory.as_str()];
        args.extend(flags);
        let installed = run_in(program, &args, home.path(), home.path(), &[]);
        let listed = run_in(program, &["plugin", "list"], home.path(), home.path(), &[]);
        (installed.status.code(), text(&installed.stdout), text(&installed.stderr), text(&listed.stdout))
    });
    assert_eq!(results[0].0, Some(0), "helm: {}", results[0].2);
    assert_eq!(results[1].0, Some(0), "berth: {}", results[1].2);
    assert_eq!(results[1].1, results[0].1);
    assert_eq!(results[1].3, results[0].3);
    assert!(!results[1].2.contains("secret"), "the password is never printed: {}", results[1].2);
}
