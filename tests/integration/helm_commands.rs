//! Helm's client commands (`version`, `env`, `completion`, `create`, `search repo`) run through real Helm 4.1.4
//! and through berth with the same environment, comparing what each prints and writes. Each run has a HOME of
//! its own and nothing of the caller's environment but PATH.

use crate::peers::peers_dir;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The two programs compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Program {
    Helm,
    Berth,
}

impl Program {
    pub fn path(self) -> PathBuf {
        match self {
            Program::Helm => peers_dir().join("helm"),
            Program::Berth => PathBuf::from(env!("CARGO_BIN_EXE_berth")),
        }
    }
}

/// Runs `program` with `args` in `work`, with HOME `home`, `variables` and PATH only.
pub fn run_in(program: Program, args: &[&str], work: &Path, home: &Path, variables: &[(&str, &str)]) -> Output {
    let mut command = Command::new(program.path());
    command.args(args).current_dir(work).env_clear().env("HOME", home).env("NO_COLOR", "1");
    if let Some(path) = std::env::var_os("PATH") {
        command.env("PATH", path);
    }
    for (name, value) in variables {
        command.env(name, value);
    }
    command.stdin(Stdio::null()).output().expect("program runs")
}

/// Environment variables given to a run.
pub type Variables<'a> = &'a [(&'a str, &'a str)];

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Every file under `root` (relative path → content) and every directory (→ `None`).
pub fn tree(root: &Path) -> BTreeMap<String, Option<Vec<u8>>> {
    let mut found = BTreeMap::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(directory) = pending.pop() {
        for entry in std::fs::read_dir(&directory).expect("read directory") {
            let path = entry.expect("directory entry").path();
            let relative = path.strip_prefix(root).expect("under root").display().to_string();
            if path.is_dir() {
                found.insert(relative, None);
                pending.push(path);
            } else {
                found.insert(relative, Some(std::fs::read(&path).expect("read file")));
            }
        }
    }
    found
}

#[test]
fn env_prints_what_helm_env_prints() {
    let home = tempfile::tempdir().unwrap();
    let kubeconfig = home.path().join("kubeconfig");
    std::fs::write(
        &kubeconfig,
        "apiVersion: v1\nkind: Config\ncurrent-context: a\nclusters:\n- name: c\n  cluster: {server: \
         'https://127.0.0.1:1'}\nusers:\n- name: u\n  user: {}\ncontexts:\n- name: a\n  context: {cluster: c, user: \
         u, namespace: from-kubeconfig}\n- name: b\n  context: {cluster: c, user: u}\n",
    )
    .unwrap();
    let kubeconfig = kubeconfig.to_str().unwrap();
    // (environment, arguments)
    let table: [(Variables, &[&str]); 7] = [
        (&[], &["env"]),
        (&[("HELM_NAMESPACE", "shop"), ("HELM_QPS", "2.5"), ("HELM_MAX_HISTORY", "x")], &["env"]),
        (&[("XDG_CACHE_HOME", "/xc"), ("HELM_DATA_HOME", "/hd"), ("HELM_KUBEASGROUPS", " a,b,")], &["env"]),
        (&[("KUBECONFIG", kubeconfig)], &["env"]),
        (&[("KUBECONFIG", kubeconfig), ("HELM_KUBECONTEXT", "b"), ("HELM_DEBUG", "1")], &["env"]),
        (&[("HELM_BURST_LIMIT", "7")], &["env", "HELM_BURST_LIMIT"]),
        (&[], &["env", "NOT_A_HELM_VARIABLE"]),
    ];
    for (variables, args) in table {
        let outputs = [Program::Helm, Program::Berth].map(|program| {
            let output = run_in(program, args, home.path(), home.path(), variables);
            assert!(output.status.success(), "{program:?} {args:?}: {}", text(&output.stderr));
            // HELM_BIN is the program's own path.
            let bin = format!("HELM_BIN=\"{}\"\n", program.path().display());
            text(&output.stdout).replace(&bin, "HELM_BIN=\"...\"\n")
        });
        assert_eq!(outputs[1], outputs[0], "{variables:?} {args:?}");
    }
}

#[test]
fn version_reports_the_helm_version_it_follows() {
    let home = tempfile::tempdir().unwrap();
    let run = |program, args: &[&str]| {
        let output = run_in(program, args, home.path(), home.path(), &[]);
        (text(&output.stdout), output.status.success())
    };
    let (helm, _) = run(Program::Helm, &["version", "--short"]);
    let (berth, ok) = run(Program::Berth, &["version", "--short"]);
    assert!(ok);
    // Helm: v4.1.4+g<commit>; berth: v4.1.4+berth.<version>. The same release, as a semver parser reads it.
    let release = |text: &str| text.trim().split('+').next().unwrap_or_default().to_string();
    assert_eq!(release(&berth), release(&helm), "{berth} / {helm}");
    assert!(berth.trim().starts_with("v4.1.4+berth."), "{berth}");
    let template = &["version", "--template", "{{.Version}}|{{.KubeClientVersion}}"];
    let (helm, _) = run(Program::Helm, template);
    let (berth, _) = run(Program::Berth, template);
    assert_eq!(berth.split('|').nth(1), helm.split('|').nth(1));
    assert_eq!(release(berth.split('|').next().unwrap()), "v4.1.4");
    // A template naming a field BuildInfo lacks fails in both.
    assert!(!run(Program::Helm, &["version", "--template", "{{.Nope}}"]).1);
    assert!(!run(Program::Berth, &["version", "--template", "{{.Nope}}"]).1);
    assert!(run(Program::Berth, &["version"]).0.starts_with("berth "));
}

#[test]
fn completion_scripts_complete_berths_commands() {
    let home = tempfile::tempdir().unwrap();
    for shell in ["bash", "zsh", "fish", "powershell"] {
        let output = run_in(Program::Berth, &["completion", shell], home.path(), home.path(), &[]);
        let script = text(&output.stdout);
        assert!(output.status.success(), "{shell}");
        for word in ["berth", "search", "create", "template"] {
            assert!(script.contains(word), "{shell} script lacks {word}");
        }
    }
    let refused = run_in(Program::Berth, &["completion", "tcsh"], home.path(), home.path(), &[]);
    assert!(!refused.status.success());
}

#[test]
fn create_writes_helms_starter_chart_byte_for_byte() {
    let root = tempfile::tempdir().unwrap();
    let starters = root.path().join("data/starters/mine");
    std::fs::create_dir_all(starters.join("templates")).unwrap();
    std::fs::create_dir_all(starters.join("charts")).unwrap();
    std::fs::write(starters.join("Chart.yaml"), "apiVersion: v2\nname: mine\nversion: 9.9.9\nkeywords: [x]\n").unwrap();
    std::fs::write(starters.join("values.yaml"), "# values of <CHARTNAME>\nname: <CHARTNAME>\n").unwrap();
    std::fs::write(starters.join("templates/cm.yaml"), "name: {{ include \"<CHARTNAME>.name\" . }}\n").unwrap();
    std::fs::write(starters.join("README.md"), "<CHARTNAME> stays in other files\n").unwrap();
    std::fs::write(starters.join(".helmignore"), "*.bak\n").unwrap();
    std::fs::write(starters.join("notes.bak"), "ignored\n").unwrap();
    let absolute_starter = starters.display().to_string();
    // (arguments, twice: run again over what the first run wrote)
    let table: [(&[&str], bool); 6] = [
        (&["create", "shop"], false),
        (&["create", "nested/shop.v2"], false),
        (&["create", "again"], true),
        (&["create", "from-name", "--starter", "mine"], false),
        (&["create", "out/from-path", "-p", &absolute_starter], false),
        (&["create", "bad name"], false),
    ];
    for (args, twice) in table {
        let results = [Program::Helm, Program::Berth].map(|program| {
            let work = tempfile::tempdir().unwrap();
            std::fs::create_dir_all(work.path().join("nested")).unwrap();
            let data = root.path().join("data");
            let variables = [("HELM_DATA_HOME", data.to_str().unwrap())];
            let mut output = run_in(program, args, work.path(), root.path(), &variables);
            if twice {
                output = run_in(program, args, work.path(), root.path(), &variables);
            }
            let stdout = text(&output.stdout).replace(&work.path().display().to_string(), "WORK");
            (stdout, output.status.success(), tree(work.path()))
        });
        assert_eq!(results[1].0, results[0].0, "stdout of {args:?}");
        assert_eq!(results[1].1, results[0].1, "success of {args:?}");
        let names = |files: &BTreeMap<String, Option<Vec<u8>>>| files.keys().cloned().collect::<Vec<_>>();
        assert_eq!(names(&results[1].2), names(&results[0].2), "files of {args:?}");
        for (name, content) in &results[0].2 {
            assert!(results[1].2.get(name) == Some(content), "{args:?}: {name} differs");
        }
    }
}

/// A Helm home with three repositories: two with cached indexes, one whose cache is missing.
fn search_home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join(".config/helm");
    let cache = home.path().join(".cache/helm/repository");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::create_dir_all(&cache).unwrap();
    let mut repositories = String::from("apiVersion: \"\"\ngenerated: \"0001-01-01T00:00:00Z\"\nrepositories:\n");
    for name in ["web", "data", "gone"] {
        repositories.push_str(&format!("- name: {name}\n  url: http://127.0.0.1:1/{name}\n"));
    }
    std::fs::write(config.join("repositories.yaml"), repositories).unwrap();
    let web = r#"apiVersion: v1
entries:
  nginx:
  - {name: nginx, version: 2.0.0-rc.1, appVersion: "1.27", description: A web server, keywords: [http, proxy]}
  - name: nginx
    version: 1.2.0
    appVersion: "1.26"
    description: A web server that serves pages to everyone who asks for them, quickly and reliably
    keywords: [http, proxy]
  - {name: nginx, version: 1.10.0, description: A web server}
  - {name: nginx, version: 1.9.0, description: A web server}
  proxy-tools:
  - {name: proxy-tools, version: 0.1.0, description: "Tools for nginx: 名前 — ünïcode"}
  cache:
  - {name: cache, version: 3.0.0, description: Caches, keywords: [nginx]}
generated: "2024-01-01T00:00:00Z"
"#;
    let data = r#"apiVersion: v1
entries:
  postgres:
  - {name: postgres, version: 12.1.0, appVersion: "16", description: "The PostgreSQL database <with> & tags"}
  nginx:
  - {name: nginx, version: 0.5.0, description: Another nginx}
generated: "2024-01-01T00:00:00Z"
"#;
    std::fs::write(cache.join("web-index.yaml"), web).unwrap();
    std::fs::write(cache.join("data-index.yaml"), data).unwrap();
    home
}

#[test]
fn search_repo_prints_what_helm_prints() {
    let home = search_home();
    let table: [&[&str]; 20] = [
        &["search", "repo"],
        &["search", "repo", "nginx"],
        &["search", "repo", "NGINX", "--devel"],
        &["search", "repo", "nginx", "-l"],
        &["search", "repo", "nginx", "--versions", "--devel"],
        &["search", "repo", "web", "--version", "~1.1"],
        &["search", "repo", "web", "server"],
        &["search", "repo", "-r", "^pro"],
        &["search", "repo", "--regexp", "web/.*s"],
        &["search", "repo", "nginx", "--max-col-width", "10"],
        &["search", "repo", "nginx", "--max-col-width", "0"],
        &["search", "repo", "nginx", "-o", "json"],
        &["search", "repo", "postgres", "--output", "json"],
        &["search", "repo", "nginx", "-o", "yaml"],
        &["search", "repo", "zzz"],
        &["search", "repo", "zzz", "-o", "json"],
        &["search", "repo", "zzz", "-o", "yaml"],
        &["search", "repo", "zzz", "--fail-on-no-result"],
        &["search", "repo", "-r", "("],
        &["search", "repo", "x", "--version", "xx"],
    ];
    for args in table {
        let [helm, berth] =
            [Program::Helm, Program::Berth].map(|program| run_in(program, args, home.path(), home.path(), &[]));
        assert_eq!(text(&berth.stdout), text(&helm.stdout), "stdout of {args:?}");
        assert_eq!(berth.status.success(), helm.status.success(), "success of {args:?}: {}", text(&berth.stderr));
    }
    let empty = tempfile::tempdir().unwrap();
    let [helm, berth] = [Program::Helm, Program::Berth]
        .map(|program| run_in(program, &["search", "repo", "x"], empty.path(), empty.path(), &[]));
    assert!(!helm.status.success() && !berth.status.success());
    assert!(text(&helm.stderr).contains("no repositories configured"));
    assert!(text(&berth.stderr).contains("no repositories configured"), "{}", text(&berth.stderr));
}
