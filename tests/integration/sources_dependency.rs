//! `berth dependency update|build|list` against real Helm 4.1.4 on the same chart: dependencies from a repository
//! URL, from a repository named with `@NAME`, and from a `file://` directory. berth writes the `Chart.lock` Helm
//! writes (the same entries and digest) and the same `charts/*.tgz`, builds from Helm's lock, and lists as Helm.

use crate::sources_support::{ChartRepo, SourceEnv};
use std::path::Path;

/// A parent chart using `tag` three ways, next to the `local` chart it reaches by `file://`.
fn write_parent(root: &Path, repo_url: &str) {
    let write = |path: &str, text: &str| {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("directory");
        std::fs::write(path, text).expect("written");
    };
    write(
        "parent/Chart.yaml",
        &format!(
            "apiVersion: v2\nname: parent\nversion: 0.1.0\ndependencies:\n  - name: tag\n    version: \"~1.0\"\n    \
             repository: \"{repo_url}\"\n  - name: tag\n    alias: pinned\n    version: 1.1.0\n    repository: \"@repo\"\n  \
             - name: local\n    version: \">=0.1.0\"\n    repository: file://../local\n"
        ),
    );
    write("parent/templates/note.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: parent\n");
    write("local/Chart.yaml", "apiVersion: v2\nname: local\nversion: 0.2.0\n");
    write("local/values.yaml", "greeting: hello\n");
    write(
        "local/templates/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: local\ndata:\n  greeting: {{ .Values.greeting }}\n",
    );
}

/// `Chart.lock` without its `generated:` time.
fn lock(chart: &Path) -> String {
    std::fs::read_to_string(chart.join("Chart.lock"))
        .expect("Chart.lock")
        .lines()
        .filter(|line| !line.starts_with("generated:"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn archives(chart: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(chart.join("charts"))
        .expect("charts/")
        .map(|entry| entry.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn dependency_update_build_and_list_match_helm() {
    let env = SourceEnv::new();
    let repo = ChartRepo::new(&env, "repo", &["1.0.0", "1.0.2", "1.1.0", "1.2.0"]);
    env.helm_ok(&["repo", "add", "repo", &repo.server.url]);
    let (ours_root, theirs_root) = (env.subdir("ours"), env.subdir("theirs"));
    write_parent(&ours_root, &repo.server.url);
    write_parent(&theirs_root, &repo.server.url);
    let (ours, theirs) = (ours_root.join("parent"), theirs_root.join("parent"));
    let (ours_text, theirs_text) = (ours.display().to_string(), theirs.display().to_string());

    // Listed before anything is downloaded; with narrow columns, cut with `...` as Helm's uitable cuts them.
    assert_eq!(env.berth_ok(&["dependency", "list", &ours_text]), env.helm_ok(&["dependency", "list", &theirs_text]));
    let listed = env.berth_ok(&["dependency", "list", &ours_text, "--max-col-width", "9"]);
    assert_eq!(listed, env.helm_ok(&["dependency", "list", &theirs_text, "--max-col-width", "9"]));
    assert!(listed.contains("..."), "a repository URL is wider than 9: {listed}");

    // The same messages (repository refresh, downloads, saving), the same lock.
    let said = env.berth_ok(&["dependency", "update", &ours_text]);
    assert_eq!(said, env.helm_ok(&["dependency", "update", &theirs_text]));
    assert!(said.contains("Saving 3 charts"), "{said}");
    assert_eq!(lock(&ours), lock(&theirs));
    assert!(lock(&ours).contains("version: 1.0.2"), "{}", lock(&ours));
    assert_eq!(archives(&ours), archives(&theirs));
    for name in archives(&theirs).iter().filter(|name| name.starts_with("tag-")) {
        assert_eq!(
            std::fs::read(ours.join("charts").join(name)).ok(),
            std::fs::read(theirs.join("charts").join(name)).ok(),
            "{name}"
        );
    }
    // The packaged file:// dependency renders as Helm's.
    let render = |chart: &str| env.helm_ok(&["template", "rel", chart]);
    assert_eq!(render(&ours_text), render(&theirs_text));
    assert_eq!(env.berth_ok(&["dependency", "list", &ours_text]), env.helm_ok(&["dependency", "list", &theirs_text]));

    // Built from Helm's lock by berth, and from berth's lock by Helm: the same archives again.
    std::fs::copy(theirs.join("Chart.lock"), ours.join("Chart.lock")).expect("lock copied");
    std::fs::remove_dir_all(ours.join("charts")).expect("charts removed");
    env.berth_ok(&["dependency", "build", &ours_text]);
    assert_eq!(archives(&ours), archives(&theirs));
    std::fs::remove_dir_all(theirs.join("charts")).expect("charts removed");
    env.berth_ok(&["dependency", "update", &ours_text]);
    std::fs::copy(ours.join("Chart.lock"), theirs.join("Chart.lock")).expect("lock copied");
    env.helm_ok(&["dependency", "build", &theirs_text]);
    assert_eq!(archives(&ours), archives(&theirs));

    // A lock that no longer matches Chart.yaml is refused by both.
    let chart_yaml = std::fs::read_to_string(ours.join("Chart.yaml")).expect("Chart.yaml").replace("~1.0", "~1.2");
    std::fs::write(ours.join("Chart.yaml"), &chart_yaml).expect("written");
    std::fs::write(theirs.join("Chart.yaml"), &chart_yaml).expect("written");
    let (berth_build, helm_build) =
        (env.berth(&["dependency", "build", &ours_text]), env.helm(&["dependency", "build", &theirs_text]));
    assert!(!helm_build.status.success());
    assert_eq!(berth_build.status.code(), Some(2), "{berth_build:?}");
    assert!(crate::sources_support::stderr(&berth_build).contains("out of sync"), "{berth_build:?}");
}

#[test]
fn dependencies_from_a_registry_lock_as_helm_locks_them() {
    let Some(registry) = crate::sources_support::Registry::start(false) else { return };
    let env = SourceEnv::new();
    let packaged = env.subdir("packaged");
    for version in ["1.0.0", "1.0.3", "1.1.0"] {
        let archive = env.package(crate::sources_support::TAG, version, &packaged);
        env.helm_ok(&[
            "push",
            &archive.display().to_string(),
            &format!("oci://{}/charts", registry.host),
            "--plain-http",
        ]);
    }
    let chart_yaml = format!(
        "apiVersion: v2\nname: parent\nversion: 0.1.0\ndependencies:\n  - name: tag\n    version: \"~1.0\"\n    \
         repository: \"oci://{}/charts\"\n",
        registry.host
    );
    let (ours, theirs) = (env.subdir("ours/parent"), env.subdir("theirs/parent"));
    for chart in [&ours, &theirs] {
        std::fs::write(chart.join("Chart.yaml"), &chart_yaml).expect("Chart.yaml written");
    }
    let (ours_text, theirs_text) = (ours.display().to_string(), theirs.display().to_string());
    env.berth_ok(&["dependency", "update", &ours_text, "--plain-http"]);
    env.helm_ok(&["dependency", "update", &theirs_text, "--plain-http"]);
    assert_eq!(lock(&ours), lock(&theirs));
    assert!(lock(&ours).contains("version: 1.0.3"), "{}", lock(&ours));
    assert_eq!(archives(&ours), archives(&theirs));
    let read = |chart: &Path| std::fs::read(chart.join("charts/tag-1.0.3.tgz")).expect("downloaded");
    assert_eq!(read(&ours), read(&theirs));
}
