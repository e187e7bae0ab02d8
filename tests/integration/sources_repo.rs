//! Classic chart repositories against real Helm 4.1.4: charts packaged by `helm package`, indexed by `helm repo
//! index`, served over loopback HTTP. Both tools share one `repositories.yaml` and cache (the same HOME and
//! `HELM_*` variables): a repository added by either is listed and used by both, berth pulls the bytes Helm pulls,
//! and `--version` constraints pick the version Helm picks.

use crate::sources_support::{ChartRepo, FileServer, SourceEnv, TAG, shown_version, stderr};

#[test]
fn repositories_added_by_either_tool_are_listed_updated_and_removed_by_both() {
    let env = SourceEnv::new();
    let one = ChartRepo::new(&env, "one", &["1.0.0"]);
    let two = ChartRepo::new(&env, "two", &["2.0.0"]);
    assert_eq!(env.berth_ok(&["repo", "add", "one", &one.server.url]), "\"one\" has been added to your repositories\n");
    env.helm_ok(&["repo", "add", "two", &two.server.url]);
    // A name wider than 80 columns: Helm's repository table has no width limit.
    let wide = "w".repeat(90);
    env.helm_ok(&["repo", "add", &wide, &two.server.url]);

    // The same list, in the same file.
    let helm_list = env.helm_ok(&["repo", "list"]);
    assert!(helm_list.contains(&one.server.url) && helm_list.contains(&two.server.url), "{helm_list}");
    assert!(helm_list.contains(&wide), "{helm_list}");
    assert_eq!(env.berth_ok(&["repo", "list"]), helm_list);
    env.berth_ok(&["repo", "remove", &wide]);
    assert_eq!(env.berth_ok(&["repo", "list", "-o", "json"]), env.helm_ok(&["repo", "list", "-o", "json"]));

    // Helm's cache files, written by berth where Helm reads them: the index as served, the chart names.
    let cache = env.home().join(".cache/helm/repository");
    env.berth_ok(&["repo", "update", "--timeout", "30s"]);
    let served = std::fs::read(one.dir.join("index.yaml")).expect("served index");
    assert_eq!(std::fs::read(cache.join("one-index.yaml")).expect("berth's cached index"), served);
    assert_eq!(std::fs::read_to_string(cache.join("one-charts.txt")).expect("chart names"), "tag\n");
    // Helm uses the index berth cached (a pull needs no update first).
    let pulled = env.subdir("helm-pull");
    env.helm_ok(&["pull", "two/tag", "-d", &pulled.display().to_string()]);
    assert!(pulled.join("tag-2.0.0.tgz").is_file());

    // Removed by berth: gone for Helm, cache files with it; removed by Helm: gone for berth.
    env.berth_ok(&["repo", "remove", "one"]);
    assert!(!env.helm_ok(&["repo", "list"]).contains(&one.server.url));
    assert!(!cache.join("one-index.yaml").exists() && !cache.join("one-charts.txt").exists());
    env.helm_ok(&["repo", "remove", "two"]);
    let (ours, theirs) = (env.berth(&["repo", "list"]), env.helm(&["repo", "list"]));
    assert_eq!(
        (ours.status.code(), &ours.stdout, &ours.stderr),
        (theirs.status.code(), &theirs.stdout, &theirs.stderr)
    );
    assert_eq!(crate::sources_support::stderr(&ours), "no repositories to show\n");
}

#[test]
fn helm_variables_point_both_tools_at_the_same_files() {
    let mut env = SourceEnv::new();
    let repo = ChartRepo::new(&env, "repo", &["1.0.0"]);
    let config = env.dir.path().join("elsewhere/repos.yaml");
    let cache = env.dir.path().join("elsewhere/cache");
    env.vars.push(("HELM_REPOSITORY_CONFIG".into(), config.display().to_string()));
    env.vars.push(("HELM_REPOSITORY_CACHE".into(), cache.display().to_string()));
    env.berth_ok(&["repo", "add", "moved", &repo.server.url]);
    assert!(config.is_file() && cache.join("moved-index.yaml").is_file());
    assert!(!env.home().join(".config/helm/repositories.yaml").exists());
    assert!(env.helm_ok(&["repo", "list"]).contains("moved"));

    // The XDG base directories, when no HELM_* variable is set.
    let mut xdg = SourceEnv::new();
    let (config_home, cache_home) = (xdg.dir.path().join("xdg-config"), xdg.dir.path().join("xdg-cache"));
    xdg.vars.push(("XDG_CONFIG_HOME".into(), config_home.display().to_string()));
    xdg.vars.push(("XDG_CACHE_HOME".into(), cache_home.display().to_string()));
    xdg.helm_ok(&["repo", "add", "by-helm", &repo.server.url]);
    xdg.berth_ok(&["repo", "add", "by-berth", &repo.server.url]);
    assert!(config_home.join("helm/repositories.yaml").is_file());
    assert!(cache_home.join("helm/repository/by-berth-index.yaml").is_file());
    assert_eq!(xdg.berth_ok(&["repo", "list"]), xdg.helm_ok(&["repo", "list"]));
    assert!(xdg.helm_ok(&["repo", "list"]).contains("by-berth"));
}

#[test]
fn pulled_archives_are_the_bytes_helm_pulls() {
    let env = SourceEnv::new();
    let repo = ChartRepo::new(&env, "repo", &["1.0.0", "1.2.0"]);
    env.helm_ok(&["repo", "add", "repo", &repo.server.url]);
    for reference in [&["repo/tag"][..], &["repo/tag", "--version", "1.0.0"], &["tag", "--repo", &repo.server.url]] {
        let (by_berth, by_helm) = (env.subdir("berth"), env.subdir("helm"));
        let args = |dir: &std::path::Path| -> Vec<String> {
            ["pull"]
                .iter()
                .map(|s| s.to_string())
                .chain(reference.iter().map(|s| s.to_string()))
                .chain(["-d".to_string(), dir.display().to_string()])
                .collect()
        };
        let berth_args = args(&by_berth);
        let helm_args = args(&by_helm);
        let pulled = env.berth(&berth_args.iter().map(String::as_str).collect::<Vec<_>>());
        // No progress line on a pipe.
        assert!(pulled.status.success() && pulled.stderr.is_empty(), "{pulled:?}");
        env.helm_ok(&helm_args.iter().map(String::as_str).collect::<Vec<_>>());
        let names = |dir: &std::path::Path| -> Vec<String> {
            let mut names: Vec<String> = std::fs::read_dir(dir)
                .expect("pulled")
                .map(|entry| entry.expect("entry").file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            names
        };
        assert_eq!(names(&by_berth), names(&by_helm), "{reference:?}");
        for name in names(&by_helm) {
            assert_eq!(std::fs::read(by_berth.join(&name)).ok(), std::fs::read(by_helm.join(&name)).ok(), "{name}");
        }
        std::fs::remove_dir_all(&by_berth).expect("cleaned");
        std::fs::remove_dir_all(&by_helm).expect("cleaned");
    }

    // --untar: the same files.
    let (by_berth, by_helm) = (env.subdir("berth-untar"), env.subdir("helm-untar"));
    env.berth_ok(&["pull", "repo/tag", "--untar", "-d", &by_berth.display().to_string()]);
    env.helm_ok(&["pull", "repo/tag", "--untar", "-d", &by_helm.display().to_string()]);
    for file in ["Chart.yaml", "values.yaml", "README.md", "templates/configmap.yaml"] {
        let (ours, theirs) = (by_berth.join("tag").join(file), by_helm.join("tag").join(file));
        assert_eq!(std::fs::read(&ours).ok(), std::fs::read(&theirs).ok(), "{file}");
        assert!(theirs.is_file(), "{file} was unpacked by helm");
    }
}

#[test]
fn version_constraints_resolve_to_the_version_helm_picks() {
    let env = SourceEnv::new();
    let versions = ["0.9.0", "1.0.0", "1.2.0", "1.2.3", "1.3.0-rc.1", "1.10.0", "2.0.0-alpha.1", "2.0.0"];
    let repo = ChartRepo::new(&env, "repo", &versions);
    env.helm_ok(&["repo", "add", "repo", &repo.server.url]);
    let constraints = [
        "",
        "1.2.0",
        "^1",
        "^1.2",
        "~1.2.0",
        "1.x",
        "1.2.x",
        "*",
        ">=1.0.0 <1.2.0",
        ">1.0, <1.10",
        "<1.2",
        "!=2.0.0",
        "^1.3.0-0",
        ">=2.0.0-0",
        "~0.9 || ^2",
        ">0.0.0-0",
        "v1.2.3",
        "=1.0.0",
    ];
    for constraint in constraints {
        for devel in [false, true] {
            let mut args = vec!["show", "chart", "repo/tag"];
            if !constraint.is_empty() {
                args.extend(["--version", constraint]);
            }
            if devel {
                args.push("--devel");
            }
            let helm = env.helm(&args);
            let berth = env.berth(&args);
            if helm.status.success() {
                let expected = shown_version(&String::from_utf8_lossy(&helm.stdout));
                assert!(berth.status.success(), "{args:?}: helm picks {expected}, berth fails: {berth:?}");
                assert_eq!(shown_version(&String::from_utf8_lossy(&berth.stdout)), expected, "{args:?}");
            } else {
                assert_eq!(berth.status.code(), Some(2), "{args:?}: helm finds none, berth: {berth:?}");
            }
        }
    }
}

#[test]
fn template_of_a_repository_chart_is_helms() {
    let env = SourceEnv::new();
    let repo = ChartRepo::new(&env, "repo", &["1.0.0", "1.1.0"]);
    env.berth_ok(&["repo", "add", "repo", &repo.server.url]);
    let args = ["template", "rel", "repo/tag", "--version", "~1.0"];
    let ours = env.berth_ok(&args);
    assert_eq!(ours, env.helm_ok(&args));
    assert!(ours.contains("version: \"1.0.0\""), "{ours}");
    let with_repo = ["template", "rel", "tag", "--repo", &repo.server.url, "--version", "1.1.0", "--set", "colour=red"];
    let ours = env.berth_ok(&with_repo);
    assert_eq!(ours, env.helm_ok(&with_repo));
    assert!(ours.contains("version: \"1.1.0\"") && ours.contains("colour: \"red\""), "{ours}");
}

#[test]
fn repo_index_writes_the_entries_helm_writes() {
    let env = SourceEnv::new();
    let (ours, theirs) = (env.subdir("ours"), env.subdir("theirs"));
    for dir in [&ours, &theirs] {
        env.package(crate::sources_support::TAG, "1.0.0", dir);
        env.package(crate::sources_support::TAG, "1.1.0", &dir.join("sub"));
    }
    env.berth_ok(&["repo", "index", &ours.display().to_string(), "--url", "https://charts.example/x"]);
    env.helm_ok(&["repo", "index", &theirs.display().to_string(), "--url", "https://charts.example/x"]);
    // Creation times differ by when each ran; everything else is the same.
    let timeless = |dir: &std::path::Path| -> String {
        std::fs::read_to_string(dir.join("index.yaml"))
            .expect("index")
            .lines()
            .filter(|line| !line.trim_start().starts_with("created:") && !line.starts_with("generated:"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(timeless(&ours), timeless(&theirs));
}

#[test]
fn packaged_charts_load_and_render_as_helms() {
    let env = SourceEnv::new();
    let (ours, theirs) = (env.subdir("ours"), env.subdir("theirs"));
    let chart = crate::sources_support::TAG;
    let out = env.berth_ok(&["package", chart, "--version", "3.1.4", "-d", &ours.display().to_string()]);
    assert!(out.starts_with("Successfully packaged chart and saved it to: "), "{out}");
    env.helm_ok(&["package", chart, "--version", "3.1.4", "-d", &theirs.display().to_string()]);
    let (ours, theirs) = (ours.join("tag-3.1.4.tgz"), theirs.join("tag-3.1.4.tgz"));
    for what in ["chart", "values", "readme"] {
        let show = |archive: &std::path::Path| env.helm_ok(&["show", what, &archive.display().to_string()]);
        assert_eq!(show(&ours), show(&theirs), "helm show {what}");
    }
    let render =
        |archive: &std::path::Path| -> String { env.helm_ok(&["template", "rel", &archive.display().to_string()]) };
    assert_eq!(render(&ours), render(&theirs));
}

#[test]
fn repository_credentials_are_stored_by_either_tool_and_scoped_as_helm_scopes_them() {
    let env = SourceEnv::new();
    let (index_dir, charts_dir) = (env.subdir("index"), env.subdir("charts"));
    let credentials = Some(("bob", "hunter2-pw"));
    // The index on one server, the archives it points to on another (another host:port).
    let index = FileServer::start_with_auth(&index_dir, credentials);
    let charts = FileServer::start_with_auth(&charts_dir, credentials);
    env.package(TAG, "1.0.0", &charts_dir);
    env.helm_ok(&["repo", "index", &charts_dir.display().to_string(), "--url", &charts.url]);
    std::fs::copy(charts_dir.join("index.yaml"), index_dir.join("index.yaml")).expect("index copied");

    // Without credentials: refused, with the repository's way out.
    let refused = env.berth(&["repo", "add", "secured", &index.url]);
    let message = stderr(&refused);
    assert_eq!(refused.status.code(), Some(2), "{message}");
    assert!(message.contains("401") && message.contains("hint: the repository at 127.0.0.1:"), "{message}");
    assert!(!env.helm(&["repo", "add", "secured", &index.url]).status.success());

    // Stored by Helm: berth reads the index with them; the archives on the other host get them only with
    // --pass-credentials, for berth as for Helm.
    env.helm_ok(&["repo", "add", "secured", &index.url, "--username", "bob", "--password", "hunter2-pw"]);
    env.berth_ok(&["repo", "update", "secured"]);
    let pull = |tool: &str, dir: &str| {
        let dir = env.subdir(dir).display().to_string();
        let args = ["pull", "secured/tag", "-d", dir.as_str()];
        if tool == "helm" { env.helm(&args) } else { env.berth(&args) }
    };
    let (ours, theirs) = (pull("berth", "scoped-berth"), pull("helm", "scoped-helm"));
    assert!(!theirs.status.success(), "helm sends credentials to the repository's host only: {theirs:?}");
    assert_eq!(ours.status.code(), Some(2), "berth: {ours:?}");
    assert!(stderr(&ours).contains("401") && !stderr(&ours).contains("hunter2-pw"), "{ours:?}");

    // Stored by berth with --pass-credentials: both download.
    env.berth_ok(&[
        "repo",
        "add",
        "secured",
        &index.url,
        "--username",
        "bob",
        "--password",
        "hunter2-pw",
        "--pass-credentials",
        "--force-update",
    ]);
    let (ours, theirs) = (pull("berth", "all-berth"), pull("helm", "all-helm"));
    assert!(ours.status.success() && theirs.status.success(), "berth: {ours:?}\nhelm: {theirs:?}");
    let read = |dir: &str| std::fs::read(env.work().join(dir).join("tag-1.0.0.tgz")).expect("pulled");
    assert_eq!(read("all-berth"), read("all-helm"));
    let repositories = std::fs::read_to_string(env.home().join(".config/helm/repositories.yaml")).expect("file");
    assert!(repositories.contains("pass_credentials_all: true"), "{repositories}");
}

#[test]
fn downloads_show_progress_on_a_terminal_and_nothing_on_a_pipe() {
    let env = SourceEnv::new();
    let repo = ChartRepo::new(&env, "repo", &["1.0.0"]);
    let (on_terminal, on_pipe) = (env.subdir("terminal"), env.subdir("pipe"));
    let args = |dir: &std::path::Path| {
        ["pull", "tag", "--repo", &repo.server.url, "-d", &dir.display().to_string()].map(str::to_string)
    };
    let terminal_args = args(&on_terminal);
    let Some(output) = env.berth_on_terminal(&terminal_args.each_ref().map(String::as_str)) else { return };
    let shown = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{output:?}");
    assert!(shown.contains("downloading tag-1.0.0.tgz") && shown.contains("(100%)"), "{shown:?}");
    assert!(shown.ends_with("\r\u{1b}[2K"), "the progress line is cleared at the end: {shown:?}");
    let pipe_args = args(&on_pipe);
    let output = env.berth(&pipe_args.each_ref().map(String::as_str));
    assert!(output.status.success() && output.stdout.is_empty() && output.stderr.is_empty(), "{output:?}");
    assert_eq!(
        std::fs::read(on_terminal.join("tag-1.0.0.tgz")).ok(),
        std::fs::read(on_pipe.join("tag-1.0.0.tgz")).ok()
    );
}
