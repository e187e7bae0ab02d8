//! berth as a drop-in `helm`: every command line of `tests/data/helm_dropin/cases.txt` runs, in order, through
//! real Helm 4.1.4 on one simulated cluster and through berth invoked as `helm` (a symlink named `helm`) on
//! another prepared the same way; stdout, the first line of stderr and the exit status must be equal once
//! timestamps are masked (the masks are [`MASKS`], and [`TEMPORARY_FILE`] for the random number Helm gives a
//! temporary file; nothing else is changed). The lines helmfile v1.x issues are
//! among them (the data file names the helmfile function each comes from). Then a Helm 3.17 client continues a
//! release berth made as `helm`.

use crate::helm_dropin_recorded::{RECORDING, Recording};
use crate::peers::{PeerCluster, peers_dir};
use crate::sources_support::FileServer;
use berth_sim::SimConfig;
use regex::Regex;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

const CASES: &str = include_str!("../data/helm_dropin/cases.txt");

/// A bound on each command line (the slowest waits 20 s for a Deployment that never becomes ready).
const LINE_BOUND: Duration = Duration::from_secs(90);

/// Timestamps, the only text that may differ: Go's `Time.String()` (`helm list`), RFC 3339 (`-o json|yaml`),
/// ANSIC (`helm history`, `LAST DEPLOYED`), a bare date (`--time-format 2006-01-02`), the record's
/// `modifiedAt` label (Unix seconds; `=`, YAML's `: ` or JSON's `":`), and the padding of `helm list`'s UPDATED header (its width is the longest
/// timestamp's, whose fraction of a second has as many digits as it needs). The padding after a timestamp is kept
/// as one character of its kind (tab, else space), since its width follows the timestamp's.
const MASKS: [&str; 6] = [
    r"UPDATED",
    r#"modifiedAt(=|: |":)"?\d+"?"#,
    r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d+)? [+-]\d{4} [A-Z]+",
    r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})",
    r"(Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d \d{2}:\d{2}:\d{2} \d{4}",
    r"\d{4}-\d{2}-\d{2}",
];

/// [`MASKS`] as regular expressions, each taking the padding after the timestamp along (see [`masked`]).
pub(crate) fn timestamp_masks() -> Vec<Regex> {
    MASKS.iter().map(|mask| Regex::new(&format!("{mask}(?P<padding>[ \t]*)")).expect("mask")).collect()
}
/// The temporary file Helm's `fileutil.AtomicWriteFile` names in an error (`open DIR/beta-1.2.3.tgz3607060791: no
/// such file or directory`, Go's `os.CreateTemp`): the number after the archive's or the index's name is random
/// (berth's is its process id). Only that number is masked.
const TEMPORARY_FILE: &str = r"(?P<file>\.(?:tgz|yaml))\d{1,10}: no such file or directory";

/// klog's header (`E1129 12:43:23.132329   19927 until.go:159] `: level, date, time, process id, source line),
/// which client-go's complaint at a negative `--timeout` carries: its date, time and process id are masked.
const KLOG_HEADER: &str = r"(?m)^(?P<level>[IWEF])\d{4} \d{2}:\d{2}:\d{2}\.\d{6} +\d+ (?P<source>[\w.]+:\d+\] )";

/// client-go's informer warning when Helm's status watcher stops its watches as the wait ends (`watch ended with
/// error ... context canceled`): printed by Helm now and then, whatever the line, so the whole line is left out.
const REFLECTOR_NOISE: &str =
    r#"(?m)^I<TIME> <PID> reflector\.go:\d+\] "Warning: watch ended with error" .*context canceled.*\n"#;

/// The charts and values both clusters get, at the same relative paths.
/// keeper's ConfigMap and Secret, in both of its versions.
const KEEPER_OBJECTS: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  \
    greeting: {{ .Values.greeting | quote }}\n  size: \"1\"\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  \
    name: {{ .Release.Name }}\ntype: Opaque\nstringData:\n  password: {{ .Values.password | quote }}\n  \
    user: admin\n";

const FILES: &[(&str, &str)] = &[
    ("alpha/Chart.yaml", "apiVersion: v2\nname: alpha\nversion: 0.1.0\nappVersion: \"1.0\"\ndescription: Alpha\n"),
    ("alpha/values.yaml", "size: 1\ngreeting: hello\n"),
    (
        "alpha/templates/objects.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-settings\ndata:\n  \
         greeting: {{ .Values.greeting | quote }}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  \
         name: {{ .Release.Name }}-web\nspec:\n  replicas: {{ .Values.size }}\n  selector:\n    matchLabels:\n      \
         app: {{ .Release.Name }}\n  template:\n    metadata:\n      labels:\n        app: {{ .Release.Name }}\n    \
         spec:\n      containers:\n        - name: web\n          image: nginx:1.27\n",
    ),
    ("alpha/templates/NOTES.txt", "alpha {{ .Release.Name }} in {{ .Release.Namespace }}: {{ .Values.size }}\n"),
    (
        "alpha/crds/widgets.yaml",
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  \
         name: widgets.example.com\nspec:\n  group: example.com\n  names:\n    kind: Widget\n    plural: widgets\n    \
         singular: widget\n  scope: Namespaced\n  versions:\n    - name: v1\n      served: true\n      storage: true\n      \
         schema:\n        openAPIV3Schema:\n          type: object\n          x-kubernetes-preserve-unknown-fields: true\n",
    ),
    ("alpha-values.yaml", "size: 2\n"),
    ("beta/Chart.yaml", "apiVersion: v2\nname: beta\nversion: 1.2.3\n"),
    ("beta/values.yaml", "greeting: hi\n"),
    (
        "beta/templates/configmap.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  \
         greeting: {{ .Values.greeting | quote }}\n",
    ),
    ("beta/templates/NOTES.txt", "beta says {{ .Values.greeting }}\n"),
    ("beta-values.yaml", "greeting: bonjour\n"),
    ("failing/Chart.yaml", "apiVersion: v2\nname: failing\nversion: 0.1.0\n"),
    (
        "failing/templates/deployment.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\n  annotations:\n    \
         sim.berth.dev/pod-waiting-reason: ImagePullBackOff\nspec:\n  replicas: 1\n  selector:\n    matchLabels:\n      \
         app: {{ .Release.Name }}\n  template:\n    metadata:\n      labels:\n        app: {{ .Release.Name }}\n    \
         spec:\n      containers:\n        - name: web\n          image: web:typo\n",
    ),
    ("failing/templates/NOTES.txt", "never printed after a failure\n"),
    // A Deployment ready only after 10 minutes: a wait's timeout, the same in both (`status: InProgress`).
    ("slow/Chart.yaml", "apiVersion: v2\nname: slow\nversion: 0.1.0\n"),
    (
        "slow/templates/deployment.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\n  annotations:\n    \
         sim.berth.dev/ready-after: 10m\nspec:\n  replicas: 1\n  selector:\n    matchLabels:\n      \
         app: {{ .Release.Name }}\n  template:\n    metadata:\n      labels:\n        app: {{ .Release.Name }}\n    \
         spec:\n      containers:\n        - name: web\n          image: web:1\n",
    ),
    // A Job hook that fails, at the event `event` names.
    ("hooked/Chart.yaml", "apiVersion: v2\nname: hooked\nversion: 0.1.0\n"),
    ("hooked/values.yaml", "event: pre-install\n"),
    (
        "hooked/templates/objects.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  a: b\n---\n\
         apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {{ .Release.Name }}-hook\n  annotations:\n    \
         helm.sh/hook: {{ .Values.event }}\n    sim.berth.dev/job-outcome: Failed\nspec:\n  backoffLimit: 0\n  \
         template:\n    spec:\n      restartPolicy: Never\n      containers:\n        - name: hook\n          \
         image: hook:1\n",
    ),
    // A custom resource the server's schema refuses (`spec.mode` is an enum).
    ("refuse/Chart.yaml", "apiVersion: v2\nname: refuse\nversion: 0.1.0\n"),
    (
        "refuse/crds/gadgets.yaml",
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  \
         name: gadgets.example.com\nspec:\n  group: example.com\n  names:\n    kind: Gadget\n    plural: gadgets\n    \
         singular: gadget\n  scope: Namespaced\n  versions:\n    - name: v1\n      served: true\n      storage: true\n      \
         schema:\n        openAPIV3Schema:\n          type: object\n          properties:\n            spec:\n              \
         type: object\n              properties:\n                mode: {type: string, enum: [fast, safe]}\n",
    ),
    (
        "refuse/templates/gadget.yaml",
        "apiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n  mode: slow\n",
    ),
    ("bad-values.yaml", "size: [1, 2\n"),
    (
        "needs-missing/Chart.yaml",
        "apiVersion: v2\nname: needs-missing\nversion: 0.1.0\ndependencies:\n  - name: nope\n    version: 1.0.0\n    \
         repository: \"@edges\"\n",
    ),
    ("no-templates/Chart.yaml", "apiVersion: v2\nname: no-templates\nversion: 0.1.0\n"),
    // Objects the API server refuses on an upgrade (`--set` changes them): a Deployment whose selector is
    // `app` (immutable), a Service of type `type`, a StatefulSet of `service` beside a Service of `clusterIP`,
    // a custom resource whose CRD allows only two `mode`s.
    ("sv-selector/Chart.yaml", "apiVersion: v2\nname: sv-selector\nversion: 0.1.0\n"),
    ("sv-selector/values.yaml", "app: web\n"),
    (
        "sv-selector/templates/deployment.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n  replicas: 1\n  \
         selector:\n    matchLabels:\n      app: {{ .Values.app }}\n  template:\n    metadata:\n      labels:\n        \
         app: {{ .Values.app }}\n    spec:\n      containers:\n        - name: web\n          image: nginx:1.27\n",
    ),
    ("sv-service/Chart.yaml", "apiVersion: v2\nname: sv-service\nversion: 0.1.0\n"),
    ("sv-service/values.yaml", "type: ClusterIP\n"),
    (
        "sv-service/templates/service.yaml",
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n  type: {{ .Values.type }}\n  \
         selector:\n    app: web\n  ports:\n    - port: 80\n",
    ),
    ("sv-stateful/Chart.yaml", "apiVersion: v2\nname: sv-stateful\nversion: 0.1.0\n"),
    ("sv-stateful/values.yaml", "service: db\nclusterIP: \"\"\n"),
    (
        "sv-stateful/templates/objects.yaml",
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n  \
         {{- with .Values.clusterIP }}\n  clusterIP: {{ . }}\n  {{- end }}\n  selector:\n    app: {{ .Release.Name }}\n  \
         ports:\n    - port: 5432\n---\napiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: {{ .Release.Name }}\n\
         spec:\n  serviceName: {{ .Values.service }}\n  replicas: 1\n  selector:\n    matchLabels:\n      \
         app: {{ .Release.Name }}\n  template:\n    metadata:\n      labels:\n        app: {{ .Release.Name }}\n    \
         spec:\n      containers:\n        - name: db\n          image: postgres:17\n",
    ),
    ("sv-dial/Chart.yaml", "apiVersion: v2\nname: sv-dial\nversion: 0.1.0\n"),
    ("sv-dial/values.yaml", "mode: fast\n"),
    (
        "sv-dial/crds/dials.yaml",
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: dials.example.com\n\
         spec:\n  group: example.com\n  names:\n    kind: Dial\n    plural: dials\n    singular: dial\n  \
         scope: Namespaced\n  versions:\n    - name: v1\n      served: true\n      storage: true\n      schema:\n        \
         openAPIV3Schema:\n          type: object\n          properties:\n            spec:\n              type: object\n              \
         properties:\n                mode: {type: string, enum: [fast, safe]}\n",
    ),
    (
        "sv-dial/templates/dial.yaml",
        "apiVersion: example.com/v1\nkind: Dial\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n  mode: {{ .Values.mode }}\n",
    ),
    // A pre-install Job hook without a restart policy: the API server refuses it (a Job's must be OnFailure or Never).
    ("sv-job/Chart.yaml", "apiVersion: v2\nname: sv-job\nversion: 0.1.0\n"),
    (
        "sv-job/templates/job.yaml",
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {{ .Release.Name }}\n  annotations:\n    \
         helm.sh/hook: pre-install\nspec:\n  template:\n    spec:\n      containers:\n        - name: migrate\n          \
         image: migrate:1\n",
    ),
    // A chart with tests: a Pod that passes (its log set), and one that ends as `outcome` says.
    ("tested/Chart.yaml", "apiVersion: v2\nname: tested\nversion: 0.1.0\n"),
    ("tested/values.yaml", "outcome: Complete\n"),
    (
        "tested/templates/configmap.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  a: b\n",
    ),
    ("tested/templates/NOTES.txt", "tested {{ .Release.Name }}\n"),
    (
        "tested/templates/tests/ok.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {{ .Release.Name }}-ok\n  annotations:\n    helm.sh/hook: test\n    \
         sim.berth.dev/logs: \"line one\\nline two\"\nspec:\n  restartPolicy: Never\n  containers:\n    - name: t\n      \
         image: busybox\n",
    ),
    (
        "tested/templates/tests/other.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {{ .Release.Name }}-other\n  annotations:\n    \
         helm.sh/hook: test\n    sim.berth.dev/job-outcome: {{ .Values.outcome }}\nspec:\n  restartPolicy: Never\n  \
         containers:\n    - name: t\n      image: busybox\n",
    ),
    // With `job`, a third test that is a Job (Helm's `--logs` reads a pod named as each test).
    (
        "tested/templates/tests/job.yaml",
        "{{- if .Values.job }}\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {{ .Release.Name }}-job\n  \
         annotations:\n    helm.sh/hook: test\nspec:\n  backoffLimit: 0\n  template:\n    spec:\n      \
         restartPolicy: Never\n      containers:\n        - name: t\n          image: busybox\n{{- end }}\n",
    ),
    // A chart without values.yaml (its record's chart values are `null`) whose subchart holds a Secret.
    ("secretive/Chart.yaml", "apiVersion: v2\nname: secretive\nversion: 0.1.0\n"),
    ("secretive/templates/NOTES.txt", "secretive notes\n"),
    ("secretive/charts/kid/Chart.yaml", "apiVersion: v2\nname: kid\nversion: 0.1.0\n"),
    ("secretive/charts/kid/templates/NOTES.txt", "kid notes {{ .Release.Name }}\n"),
    (
        "secretive/charts/kid/templates/secret.yaml",
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: {{ .Release.Name }}-kid\nstringData:\n  pw: not-a-secret\n",
    ),
    // A values schema (a type, an enum, no other keys) over a declared subchart with a schema of its own.
    (
        "schemed/Chart.yaml",
        "apiVersion: v2\nname: schemed\nversion: 0.1.0\ndependencies:\n  - name: sub\n    version: 0.1.0\n",
    ),
    ("schemed/values.yaml", "size: 1\nmode: fast\n"),
    (
        "schemed/values.schema.json",
        "{\"type\":\"object\",\"properties\":{\"size\":{\"type\":\"integer\"},\"mode\":{\"enum\":[\"fast\",\"safe\"]},\
         \"sub\":{\"type\":\"object\"}},\"required\":[\"size\"],\"additionalProperties\":false}\n",
    ),
    (
        "schemed/templates/configmap.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  size: \"{{ .Values.size }}\"\n",
    ),
    ("schemed/charts/sub/Chart.yaml", "apiVersion: v2\nname: sub\nversion: 0.1.0\n"),
    ("schemed/charts/sub/values.yaml", "port: 80\n"),
    (
        "schemed/charts/sub/values.schema.json",
        "{\"type\":\"object\",\"properties\":{\"port\":{\"type\":\"integer\",\"minimum\":1}}}\n",
    ),
    // A directory that is no chart, and a chart of apiVersion v3 (which only Helm's v2 loader reads).
    ("not-a-chart/README.md", "no Chart.yaml here\n"),
    ("api-v3/Chart.yaml", "apiVersion: v3\nname: api-v3\nversion: 1.0.0\n"),
    // Charts whose render fails: a template calling a function that does not exist, a template that renders
    // YAML that cannot be read.
    ("broken-template/Chart.yaml", "apiVersion: v2\nname: broken-template\nversion: 0.1.0\n"),
    ("broken-template/templates/x.yaml", "a: {{ nope }}\n"),
    ("broken-yaml/Chart.yaml", "apiVersion: v2\nname: broken-yaml\nversion: 0.1.0\n"),
    ("broken-yaml/templates/x.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: [\n"),
    // A ConfigMap and a Secret that values change (helm-diff's lines: a Secret's values are masked unless
    // `--show-secrets`).
    ("keeper/Chart.yaml", "apiVersion: v2\nname: keeper\nversion: 0.1.0\n"),
    ("keeper/values.yaml", "greeting: hi\npassword: one\n"),
    ("keeper/templates/objects.yaml", KEEPER_OBJECTS),
    // keeper's next version, with other default values (helm-diff's `diff local` compares two charts).
    ("keeper-next/Chart.yaml", "apiVersion: v2\nname: keeper\nversion: 0.2.0\n"),
    ("keeper-next/values.yaml", "greeting: hello\npassword: two\n"),
    ("keeper-next/templates/objects.yaml", KEEPER_OBJECTS),
    // A ConfigMap of a fixed name, which a second release of the chart would take from the first (helm-diff's
    // `--take-ownership`), and a Secret of the release's own.
    ("shared/Chart.yaml", "apiVersion: v2\nname: shared\nversion: 0.1.0\n"),
    (
        "shared/templates/objects.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared\ndata:\n  owner: {{ .Release.Name }}\n---\n\
         apiVersion: v1\nkind: Secret\nmetadata:\n  name: {{ .Release.Name }}-own\ntype: Opaque\nstringData:\n  \
         password: {{ .Release.Name }}\n",
    ),
    // A ConfigMap showing what `.Capabilities` and `.Release.IsUpgrade` answer (helm-diff's `--kube-version`
    // and `--api-versions` reach the render only when it does not run on the server).
    ("capable/Chart.yaml", "apiVersion: v2\nname: capable\nversion: 0.1.0\n"),
    (
        "capable/templates/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  \
         kube: {{ .Capabilities.KubeVersion.Version | quote }}\n  \
         x: {{ .Capabilities.APIVersions.Has \"x/v1\" | quote }}\n  upgrade: {{ .Release.IsUpgrade | quote }}\n",
    ),
    // A role for user `scoped` in the release's namespace: its Secrets and ConfigMaps, nothing else (not the
    // namespace itself), as a CI job's namespace-scoped account has.
    ("scoped-role/Chart.yaml", "apiVersion: v2\nname: scoped-role\nversion: 0.1.0\n"),
    (
        "scoped-role/templates/role.yaml",
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: {{ .Release.Name }}\nrules:\n  \
         - apiGroups: [\"\"]\n    resources: [secrets, configmaps]\n    verbs: [\"*\"]\n---\n\
         apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: {{ .Release.Name }}\n\
         roleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: Role\n  name: {{ .Release.Name }}\nsubjects:\n  \
         - apiGroup: rbac.authorization.k8s.io\n    kind: User\n    name: scoped\n",
    ),
];

/// What a line compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Compare {
    /// stdout, stderr's first line and the exit status.
    All,
    /// The exit status and stderr's first line (and its `Error:` line, when a log line comes first) up to the
    /// waiter's ` status: ` (berth's readiness says why an object failed in its own words: docs/helm.md,
    /// "Differences").
    Stage,
    /// The exit status and stderr's first line: stdout differs for a reason docs/helm.md gives.
    Exit,
    /// Like `All`, with the `resourceVersion` and `uid` of the objects read from the cluster masked too (they count
    /// the cluster's writes and creations, and berth and Helm write their release records a different number of
    /// times), and what each cluster's controllers chose for a workload's Pods (name suffix, container ids, node, IPs).
    Objects,
    /// `version`: the Helm version before the build metadata (`+g05fa379` in Helm, `+berth.VERSION` in berth).
    Semver,
    /// Like `All`, with the ages the server prints in the `RESOURCES:` tables (the last column, `5s`, `2m3s`)
    /// masked: they count seconds since each cluster made the object.
    Ages,
    /// Like `All`, with a failed revision's description cut at the waiter's ` status: ` in stdout (to the end of
    /// its JSON string: berth's readiness says why an object failed in its own words, as for `Stage`).
    Waiter,
    /// Like `All`, for a line of the helm-diff plugin's: real Helm runs it through the plugin where
    /// `BERTH_HELM_DIFF_PLUGIN` names one (built by `scripts/helm-diff/build.sh`); elsewhere (CI) berth's answer is
    /// compared with real Helm's recorded one ([`helm_dropin_recorded`](crate::helm_dropin_recorded)).
    HelmDiff,
}

struct Case {
    line: usize,
    compare: Compare,
    /// The arguments as the table writes them (before the placeholders are filled in).
    text: String,
    arguments: Vec<String>,
}

fn cases(values_url: &str) -> Vec<Case> {
    CASES
        .lines()
        .enumerate()
        .filter(|(_, text)| !text.trim().is_empty() && !text.starts_with('#'))
        .map(|(index, text)| {
            let (compare, text) = text.split_once('|').unwrap_or_else(|| panic!("line {}: no `|`", index + 1));
            let compare = match compare.trim() {
                "all" => Compare::All,
                "stage" => Compare::Stage,
                "exit" => Compare::Exit,
                "objects" => Compare::Objects,
                "semver" => Compare::Semver,
                "ages" => Compare::Ages,
                "helm-diff" => Compare::HelmDiff,
                "waiter" => Compare::Waiter,
                other => panic!("line {}: unknown comparison `{other}`", index + 1),
            };
            let arguments = text
                .split_whitespace()
                .map(|word| {
                    word.replace("{alpha_values}", "alpha-values.yaml")
                        .replace("{beta_values}", "beta-values.yaml")
                        .replace("{alpha}", "./alpha")
                        .replace("{beta}", "./beta")
                        .replace("{failing}", "./failing")
                        .replace("{slow}", "./slow")
                        .replace("{hooked}", "./hooked")
                        .replace("{refuse}", "./refuse")
                        .replace("{needs_missing}", "./needs-missing")
                        .replace("{tested}", "./tested")
                        .replace("{secretive}", "./secretive")
                        .replace("{schemed}", "./schemed")
                        .replace("{scoped_role}", "./scoped-role")
                        .replace("{keeper_next}", "./keeper-next")
                        .replace("{keeper}", "./keeper")
                        .replace("{shared}", "./shared")
                        .replace("{capable}", "./capable")
                        .replace("{values_url}", &format!("{values_url}/url-values.yaml"))
                        .replace("{beta_url}", &format!("{values_url}/beta-1.2.3.tgz"))
                        .replace("{repo_url}", values_url)
                })
                .collect();
            Case { line: index + 1, compare, text: text.trim().to_string(), arguments }
        })
        .collect()
}

/// One side: a cluster with the files, and the program run as `helm` on it.
pub(crate) struct Side {
    pub(crate) peer: PeerCluster,
    pub(crate) program: PathBuf,
}

impl Side {
    pub(crate) async fn start(program: PathBuf) -> Side {
        let peer = PeerCluster::start(SimConfig::default()).await;
        for (path, text) in FILES {
            let path = peer.dir.path().join(path);
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("chart directory");
            std::fs::write(path, text).expect("file written");
        }
        Side { peer, program }
    }

    pub(crate) fn command(&self, arguments: &[String]) -> Command {
        command(&self.peer, &self.program, arguments)
    }

    async fn run(&self, arguments: &[String]) -> Output {
        self.run_command(self.command(arguments), arguments).await
    }

    /// [`Side::run`] with Helm's plugins read from `plugins` (`HELM_PLUGINS`; Helm 4 installs a local plugin as a
    /// link there, as the helm-diff lines' plugin is linked).
    async fn run_with_plugins(&self, arguments: &[String], plugins: &Path) -> Output {
        let mut command = self.command(arguments);
        command.env("HELM_PLUGINS", plugins);
        self.run_command(command, arguments).await
    }

    pub(crate) async fn run_command(&self, mut command: Command, arguments: &[String]) -> Output {
        let running = tokio::task::spawn_blocking(move || command.output().expect("the program runs"));
        tokio::time::timeout(LINE_BOUND, running)
            .await
            .unwrap_or_else(|_| panic!("{arguments:?} did not end within {LINE_BOUND:?}"))
            .expect("joined")
    }
}

/// `program` run on `peer`'s cluster from its directory, with a private HOME and no inherited Helm setting.
fn command(peer: &PeerCluster, program: &Path, arguments: &[String]) -> Command {
    let home = peer.dir.path().join("home");
    let mut command = Command::new(program);
    let helm_diff = ["HELM_DIFF_COLOR", "HELM_DIFF_OUTPUT", "HELM_DIFF_OUTPUT_CONTEXT", "HELM_DIFF_TPL"];
    let helm_diff_switches =
        ["HELM_DIFF_THREE_WAY_MERGE", "HELM_DIFF_NORMALIZE_MANIFESTS", "HELM_DIFF_USE_UPGRADE_DRY_RUN"];
    let helm = ["HELM_DRIVER", "HELM_NAMESPACE", "HELM_KUBECONTEXT", "HELM_DEBUG", "HELM_PLUGINS"];
    for variable in helm.into_iter().chain(helm_diff).chain(helm_diff_switches).chain(["BERTH_HELM", "BERTH_LOG"]) {
        command.env_remove(variable);
    }
    command
        .args(arguments)
        .env("HOME", &home)
        .env("KUBECONFIG", peer.kubeconfig())
        .env("HELM_CACHE_HOME", home.join("helm-cache"))
        .env("HELM_CONFIG_HOME", home.join("helm-config"))
        .env("HELM_DATA_HOME", home.join("helm-data"))
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::null())
        .current_dir(peer.dir.path());
    command
}

/// The text with every timestamp replaced by `<TIME>`, and the number of a temporary file by `<NUMBER>`.
pub(crate) fn masked(text: &str, masks: &[Regex]) -> String {
    let temporary_file = Regex::new(TEMPORARY_FILE).expect("temporary file mask");
    let mut text = temporary_file.replace_all(text, "${file}<NUMBER>: no such file or directory").into_owned();
    let klog_header = Regex::new(KLOG_HEADER).expect("klog header mask");
    text = klog_header.replace_all(&text, "${level}<TIME> <PID> ${source}").into_owned();
    let reflector_noise = Regex::new(REFLECTOR_NOISE).expect("reflector noise mask");
    text = reflector_noise.replace_all(&text, "").into_owned();
    for mask in masks {
        text = mask
            .replace_all(&text, |captures: &regex::Captures<'_>| {
                let padding = captures.name("padding").map_or("", |padding| match padding.as_str() {
                    "" => "",
                    text if text.contains('\t') => "\t",
                    _ => " ",
                });
                format!("<TIME>{padding}")
            })
            .into_owned();
    }
    text
}

/// The first line of stderr once masked: Helm's flaky informer line ([`REFLECTOR_NOISE`]) is left out before the
/// first line is taken, so the line after it is compared.
pub(crate) fn masked_first_line(stderr: &[u8], masks: &[Regex]) -> String {
    first_line(masked(&String::from_utf8_lossy(stderr), masks).as_bytes())
}

pub(crate) fn first_line(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).lines().next().unwrap_or_default().to_string()
}

/// What a line's comparison looks at.
fn seen(output: &Output, compare: Compare, masks: &[Regex]) -> Seen {
    let stderr = masked_first_line(&output.stderr, masks);
    match compare {
        Compare::All | Compare::HelmDiff => {
            (output.status.code(), masked(&String::from_utf8_lossy(&output.stdout), masks), stderr)
        }
        Compare::Stage => {
            // The first line, and the `Error:` line when a log line comes first (a failed upgrade's warning).
            let whole = masked(&String::from_utf8_lossy(&output.stderr), masks);
            let error_line = whole.lines().skip(1).find(|line| line.starts_with("Error: ")).unwrap_or_default();
            let stage = [stderr.as_str(), error_line]
                .map(|line| line.split_once(" status: ").map_or(line, |(stage, _)| stage))
                .join("\n");
            (output.status.code(), String::new(), stage)
        }
        Compare::Exit => (output.status.code(), String::new(), stderr),
        Compare::Waiter => {
            let stdout = masked(&String::from_utf8_lossy(&output.stdout), masks);
            let waiter = Regex::new(r#" status: (?:[^"\\]|\\.)*"#).expect("waiter mask");
            (output.status.code(), waiter.replace_all(&stdout, " status: <WAITER>").into_owned(), stderr)
        }
        Compare::Objects => {
            let stdout = masked(&String::from_utf8_lossy(&output.stdout), masks);
            // YAML's `resourceVersion: "173"` and JSON's `"resourceVersion":"173"` (no space after the colon).
            let versions = Regex::new(r#"resourceVersion"?:\s*"?\d+"?"#).expect("resourceVersion mask");
            let stdout = versions.replace_all(&stdout, "resourceVersion: <VERSION>");
            // The uid counts the cluster's creations too (a real server's are random).
            let uids = Regex::new(r#"uid"?:\s*"?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"?"#)
                .expect("uid mask");
            let stdout = uids.replace_all(&stdout, "uid: <UID>");
            // A workload's Pods (in `info.resources`) are made by each cluster's controllers: their names end in a
            // random suffix (`generateName`, Kubernetes' alphabet), their containers, nodes and addresses are
            // each cluster's own, so two Pods of a ReplicaSet read alike once those are masked, in whatever order.
            let pods = Regex::new(
                r#"(?P<name>name"?:\s*"?[a-z0-9-]+-[0-9a-f]{8,10}-)[bcdfghjklmnpqrstvwxz2456789]{5}\b|containerd://[0-9a-f]{64}|\b(?:10\.244|172\.18)\.\d+\.\d+\b|\bsim-node-\d+\b"#,
            )
            .expect("pod mask");
            let stdout = pods.replace_all(&stdout, |captures: &regex::Captures<'_>| match captures.name("name") {
                Some(name) => format!("{}<SUFFIX>", name.as_str()),
                None => "<POD>".to_string(),
            });
            (output.status.code(), stdout.into_owned(), stderr)
        }
        Compare::Ages => {
            let stdout = masked(&String::from_utf8_lossy(&output.stdout), masks);
            let ages = Regex::new(r"(?m)\b\d+[smhdy](\d+[smh])?$").expect("age mask");
            (output.status.code(), ages.replace_all(&stdout, "<AGE>").into_owned(), stderr)
        }
        Compare::Semver => {
            let stdout = String::from_utf8_lossy(&output.stdout);
            let version = stdout.split_once('+').map_or(stdout.as_ref(), |(version, _)| version).to_string();
            (output.status.code(), version, stderr)
        }
    }
}

/// Runs `line` with `program` on `peer`'s cluster and asserts it succeeds; its stdout.
async fn ok_line(peer: &PeerCluster, program: &Path, line: &str) -> String {
    let arguments: Vec<String> = line.split_whitespace().map(str::to_string).collect();
    let mut command = command(peer, program, &arguments);
    let running = tokio::task::spawn_blocking(move || command.output().expect("the program runs"));
    let output = tokio::time::timeout(LINE_BOUND, running)
        .await
        .unwrap_or_else(|_| panic!("{line} did not end within {LINE_BOUND:?}"))
        .expect("joined");
    assert!(output.status.success(), "{} {line}: {}", program.display(), String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// What a line's comparison looks at: the exit status, stdout and stderr's first line, as [`seen`] reads them.
pub(crate) type Seen = (Option<i32>, String, String);

/// A line whose two runs read differently, described with what each printed (and each tool's whole stderr).
pub(crate) fn difference(title: &str, expected: &Seen, actual: &Seen, stderrs: [&str; 2]) -> String {
    let [helm, berth] = stderrs;
    format!(
        "{title}:\n  helm:  exit {:?}, stderr {:?}\n{}\n  berth: exit {:?}, stderr {:?}\n{}\n  helm's whole stderr: \
         {helm}\n  berth's whole stderr: {berth}",
        expected.0, expected.2, expected.1, actual.0, actual.2, actual.1
    )
}

/// berth under the name `helm`, in a directory of its own.
pub(crate) fn berth_as_helm(dir: &Path) -> PathBuf {
    let program = dir.join("helm");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_berth"), &program).expect("symlink named helm");
    program
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_helm_command_line_answers_as_helm_4() {
    let masks = timestamp_masks();
    let served = tempfile::tempdir().expect("served directory");
    std::fs::write(served.path().join("url-values.yaml"), "size: 2\ngreeting: from-a-url\n").expect("values");
    // The beta chart as an archive at a URL (`pull URL`), packaged by real Helm.
    for (path, text) in FILES.iter().filter(|(path, _)| path.starts_with("beta/")) {
        let path = served.path().join("source").join(path);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("chart directory");
        std::fs::write(path, text).expect("chart file");
    }
    let packaged = Command::new(peers_dir().join("helm"))
        .args(["package", "source/beta"])
        .env("HOME", served.path().join("home"))
        .current_dir(served.path())
        .output()
        .expect("helm package runs");
    assert!(packaged.status.success(), "{}", String::from_utf8_lossy(&packaged.stderr));
    // The served directory as a chart repository (`{repo_url}`), its index written by real Helm.
    let indexed = Command::new(peers_dir().join("helm"))
        .args(["repo", "index", "."])
        .env("HOME", served.path().join("home"))
        .current_dir(served.path())
        .output()
        .expect("helm repo index runs");
    assert!(indexed.status.success(), "{}", String::from_utf8_lossy(&indexed.stderr));
    let server = FileServer::start(served.path());
    let bin = tempfile::tempdir().expect("bin directory");
    let helm = Side::start(peers_dir().join("helm")).await;
    let berth = Side::start(berth_as_helm(bin.path())).await;
    // Real Helm's plugins for the helm-diff lines: a directory of their own, so the other lines (`plugin list`,
    // `help`) see only the plugins the table installs.
    let plugins = tempfile::tempdir().expect("plugins directory");
    let plugin = std::env::var_os("BERTH_HELM_DIFF_PLUGIN").map(PathBuf::from);
    if let Some(plugin) = &plugin {
        std::os::unix::fs::symlink(plugin, plugins.path().join("diff")).expect("the plugin linked");
    }
    let recorded =
        std::fs::read_to_string(RECORDING).map_or_else(|_| Ok(Recording::default()), |text| Recording::parse(&text));
    let recorded = recorded.unwrap_or_else(|error| panic!("{error}"));
    let mut recording = Recording::default();
    let mut differences = Vec::new();
    let mut compared = 0;
    for case in cases(&server.url) {
        let berth_output = berth.run(&case.arguments).await;
        let actual = seen(&berth_output, case.compare, &masks);
        // A helm-diff line's key in the recording: its text and how many times it ran before.
        let key = (case.text.clone(), recording.entries.keys().filter(|(text, _)| *text == case.text).count() + 1);
        let (expected, helm_stderr) = if case.compare == Compare::HelmDiff && plugin.is_none() {
            // Real Helm's recorded answer: the line changes nothing, so the cluster it leaves is the same.
            let Some(expected) = recorded.entries.get(&key).cloned() else {
                differences.push(format!(
                    "line {}: no recorded answer of helm-diff for `{}` ({RECORDING})",
                    case.line, case.text
                ));
                continue;
            };
            recording.entries.insert(key, expected.clone());
            (expected, "(recorded: its first line only)".to_string())
        } else {
            let helm_output = match case.compare {
                Compare::HelmDiff => helm.run_with_plugins(&case.arguments, plugins.path()).await,
                _ => helm.run(&case.arguments).await,
            };
            let expected = seen(&helm_output, case.compare, &masks);
            if case.compare == Compare::HelmDiff {
                recording.entries.insert(key, expected.clone());
            }
            (expected, stderr_of(&helm_output).into_owned())
        };
        compared += 1;
        if expected != actual {
            let title = format!("line {} `helm {}`", case.line, case.arguments.join(" "));
            differences.push(difference(&title, &expected, &actual, [&helm_stderr, &stderr_of(&berth_output)]));
        }
    }
    if plugin.is_some() && std::env::var_os("BERTH_RECORD_HELM_DIFF").is_some() {
        std::fs::write(RECORDING, recording.render(RECORDING_HEADER)).expect("the recording written");
    }
    // Every recorded answer is of a line the table still has.
    let stale: Vec<_> = recorded.entries.keys().filter(|key| !recording.entries.contains_key(*key)).collect();
    assert!(plugin.is_some() || stale.is_empty(), "recorded answers of lines the table no longer has: {stale:?}");
    assert!(compared >= 550, "only {compared} lines compared");
    eprintln!("{compared} lines compared, {} of them helm-diff's", recording.entries.len());
    assert!(differences.is_empty(), "{} of {compared} lines differ:\n{}", differences.len(), differences.join("\n"));
}

/// What the recording's file says of itself.
const RECORDING_HEADER: &str = "What real Helm 4.1.4 with the helm-diff plugin v3.15.11 answered to the helm-diff lines of \
    cases.txt,\nrecorded by `BERTH_HELM_DIFF_PLUGIN=DIR BERTH_RECORD_HELM_DIFF=1 cargo test --test integration \
    every_helm_command_line`\n(DIR: the plugin scripts/helm-diff/build.sh builds). Written by the test: do not edit.";

/// A process's whole stderr, as text.
pub(crate) fn stderr_of(output: &Output) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(&output.stderr)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn helm_3_continues_a_release_berth_made_as_helm() {
    let bin = tempfile::tempdir().expect("bin directory");
    let berth = Side::start(berth_as_helm(bin.path())).await;
    let helm3 = peers_dir().join("helm3");
    let berth_program = berth.program.clone();
    let peer = &berth.peer;
    ok_line(peer, &berth_program, "install alpha ./alpha -n team-a --create-namespace --wait").await;
    ok_line(peer, &berth_program, "upgrade alpha ./alpha -n team-a --set size=3 --labels tier=web").await;
    let history = ok_line(peer, &helm3, "history alpha -n team-a -o json").await;
    let history: serde_json::Value = serde_json::from_str(&history).expect("Helm 3's history JSON");
    let statuses: Vec<(u64, &str)> = history
        .as_array()
        .expect("a list")
        .iter()
        .map(|entry| (entry["revision"].as_u64().unwrap_or(0), entry["status"].as_str().unwrap_or_default()))
        .collect();
    assert_eq!(statuses, [(1, "superseded"), (2, "deployed")]);
    assert_eq!(ok_line(peer, &helm3, "get values alpha -n team-a -o json").await.trim(), r#"{"size":3}"#);
    ok_line(peer, &helm3, "upgrade alpha ./alpha -n team-a --reuse-values --set greeting=hey --wait").await;
    ok_line(peer, &helm3, "rollback alpha 1 -n team-a --wait").await;
    let listed = ok_line(peer, &berth_program, "history alpha -n team-a -o json").await;
    let listed: serde_json::Value = serde_json::from_str(&listed).expect("berth's history JSON");
    let described: Vec<(u64, &str, &str)> = listed
        .as_array()
        .expect("a list")
        .iter()
        .map(|entry| {
            let text = |key: &str| entry[key].as_str().unwrap_or_default();
            (entry["revision"].as_u64().unwrap_or(0), text("status"), text("description"))
        })
        .collect();
    assert_eq!(
        described,
        [
            (1, "superseded", "Install complete"),
            (2, "superseded", "Upgrade complete"),
            (3, "superseded", "Upgrade complete"),
            (4, "deployed", "Rollback to 1")
        ]
    );
    ok_line(peer, &berth_program, "upgrade alpha ./alpha -n team-a --wait").await;
    ok_line(peer, &helm3, "uninstall alpha -n team-a").await;
    assert_eq!(ok_line(peer, &berth_program, "list -A -q").await, "");
}
