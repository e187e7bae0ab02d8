//! An install's `crds/` when the CRD exists already: as `helm`, berth writes it as Helm 4.1.4 does
//! (`Install.installCRDs` creates through `Client.Create`, which is server-side apply by default: the CRD takes the
//! chart's fields, another manager's field is a conflict unless `--force-conflicts`; with `--server-side=false` it
//! is created and left when it exists), compared with real Helm 4.1.4 on a cluster of its own, the CRD read back
//! with real kubectl. As `berth`, an existing CRD is left as it is (docs/releases.md).

use crate::helm_dropin::{Side, berth_as_helm, masked, masked_first_line, timestamp_masks};
use crate::peers::peers_dir;
use std::process::{Command, Output};

/// A CRD whose version has the printer columns `columns` (each `NAME:TYPE:PATH`), in chart `chart`.
fn write_chart(side: &Side, chart: &str, columns: &[&str]) {
    let columns: String = columns
        .iter()
        .map(|column| {
            let [name, kind, path] = column.splitn(3, ':').collect::<Vec<_>>()[..] else { panic!("{column}") };
            format!("        - {{name: {name}, type: {kind}, jsonPath: {path}}}\n")
        })
        .collect();
    let crd = format!(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: things.example.com\n\
         spec:\n  group: example.com\n  names: {{kind: Thing, plural: things, singular: thing}}\n  scope: Namespaced\n  \
         versions:\n    - name: v1\n      served: true\n      storage: true\n      additionalPrinterColumns:\n{columns}      \
         schema:\n        openAPIV3Schema: {{type: object, x-kubernetes-preserve-unknown-fields: true}}\n"
    );
    let dir = side.peer.dir.path().join(chart);
    std::fs::create_dir_all(dir.join("crds")).expect("chart directory");
    std::fs::write(dir.join("Chart.yaml"), format!("apiVersion: v2\nname: {chart}\nversion: 0.1.0\n")).expect("chart");
    std::fs::write(dir.join("crds/things.yaml"), crd).expect("CRD file");
}

/// `command` run to its end off the async runtime's threads (the simulated clusters run on them).
async fn output(mut command: Command) -> Output {
    tokio::task::spawn_blocking(move || command.output().expect("the program runs")).await.expect("joined")
}

/// Real kubectl on `side`'s cluster.
fn kubectl(side: &Side, arguments: &[&str]) -> Command {
    let mut command = Command::new(peers_dir().join("kubectl"));
    command.args(arguments).env("KUBECONFIG", side.peer.kubeconfig()).env("HOME", side.peer.dir.path().join("home"));
    command
}

/// The CRD's printer columns (`NAME=PATH`) and its field managers (`MANAGER/OPERATION`), as kubectl reads them.
async fn crd_state(side: &Side) -> String {
    let columns_and_managers = "jsonpath={range .spec.versions[0].additionalPrinterColumns[*]}{.name}={.jsonPath} \
                                {end}{range .metadata.managedFields[*]}{.manager}/{.operation} {end}";
    let output = output(kubectl(side, &["get", "crd", "things.example.com", "-o", columns_and_managers])).await;
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_install_applies_an_existing_crd_as_helm_4() {
    let masks = timestamp_masks();
    let bin = tempfile::tempdir().expect("bin directory");
    let helm = Side::start(peers_dir().join("helm")).await;
    let berth = Side::start(berth_as_helm(bin.path())).await;
    for side in [&helm, &berth] {
        write_chart(side, "one-column", &["Mode:string:.spec.mode"]);
        write_chart(side, "two-columns", &["Mode:string:.spec.mode", "Size:integer:.spec.size"]);
    }
    let other_manager =
        r#"[{"op":"replace","path":"/spec/versions/0/additionalPrinterColumns/0/jsonPath","value":".spec.other"}]"#;
    // Each step: a line for both tools (`None`: kubectl changes the CRD as another manager), and the CRD after it.
    let steps: [Option<&str>; 6] = [
        Some("install a ./one-column"),
        Some("install b ./two-columns"),
        Some("install c ./one-column --server-side=false"),
        None,
        Some("install d ./two-columns"),
        Some("install e ./two-columns --force-conflicts"),
    ];
    let mut seen = [Vec::new(), Vec::new()];
    for step in steps {
        for (side, seen) in [&helm, &berth].into_iter().zip(&mut seen) {
            let command = match step {
                Some(line) => side.command(&line.split(' ').map(str::to_string).collect::<Vec<_>>()),
                None => kubectl(side, &["patch", "crd", "things.example.com", "--type", "json", "-p", other_manager]),
            };
            let output = output(command).await;
            let stdout = masked(&String::from_utf8_lossy(&output.stdout), &masks);
            let stderr = masked_first_line(&output.stderr, &masks);
            seen.push((step, output.status.code(), stdout, stderr, crd_state(side).await));
        }
    }
    let [helm_seen, berth_seen] = seen;
    for (helm_step, berth_step) in helm_seen.iter().zip(&berth_seen) {
        assert_eq!(helm_step, berth_step, "helm (left) and berth as helm (right) differ");
    }
    // What Helm did, so the comparison above cannot pass with both leaving the CRD alone.
    let states: Vec<&str> = helm_seen.iter().map(|step| step.4.as_str()).collect();
    assert_eq!(states[1], "Mode=.spec.mode Size=.spec.size helm/Apply ", "an install applies the CRD");
    assert!(helm_seen[4].3.contains("Apply failed with 1 conflict: conflict with \"kubectl-patch\""), "{helm_seen:?}");
    assert_eq!(states[5], "Mode=.spec.mode Size=.spec.size helm/Apply ", "--force-conflicts takes the field back");

    // As `berth`, an install leaves an existing CRD as it is.
    let output = berth.peer.berth(&["install", "f", "./one-column"]).await;
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(crd_state(&berth).await, states[5], "berth's own install leaves the CRD");
}
