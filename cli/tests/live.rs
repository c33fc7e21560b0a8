//! The live reader's HTTP side against a stand-in API server on 127.0.0.1 (canned JSON, plain
//! HTTP): paging with `continue` tokens, apiVersion/kind written on list items, managedFields
//! dropped, `--snapshot` reproducing the live answer byte for byte, and the located errors of a
//! forbidden kind and of a Karpenter API version v1.15 does not serve. The real API server is
//! `make e2e`'s (oracle/envtest/live_test.go); this stand-in only answers what it is given.
#![cfg(feature = "live")]

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_nodecast");

/// Serves `route(path)` -> (status, body) until the test process ends.
fn serve(route: fn(&str) -> (u16, Value)) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut first = String::new();
            if reader.read_line(&mut first).is_err() {
                continue;
            }
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).map_or(true, |n| n == 0) || line == "\r\n" {
                    break;
                }
            }
            let path = first.split_whitespace().nth(1).unwrap_or("").to_string();
            let (status, body) = route(&path);
            let body = body.to_string();
            let _ = write!(
                stream,
                "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    let dir = std::env::temp_dir().join(format!("nodecast-live-{}-{}", std::process::id(), addr.port()));
    std::fs::create_dir_all(&dir).unwrap();
    let kubeconfig = dir.join("kubeconfig");
    std::fs::write(
        &kubeconfig,
        format!(
            "apiVersion: v1\nkind: Config\nclusters: [{{name: c, cluster: {{server: \"http://{addr}\"}}}}]\nusers: [{{name: u, user: {{}}}}]\ncontexts: [{{name: stand-in, context: {{cluster: c, user: u}}}}]\ncurrent-context: stand-in\n"
        ),
    )
    .unwrap();
    kubeconfig.to_string_lossy().into_owned()
}

fn run(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("spawn nodecast")
}

fn empty() -> (u16, Value) {
    (200, json!({"apiVersion": "v1", "kind": "List", "metadata": {}, "items": []}))
}

fn pod(name: &str) -> Value {
    json!({"metadata": {"name": name, "namespace": "serving", "managedFields": [{"manager": "kubectl"}]},
           "spec": {"containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": "1", "memory": "2Gi"}}}]},
           "status": {"phase": "Pending"}})
}

/// A cluster with one NodePool and three pending pods, the pods over two pages.
fn cluster(path: &str) -> (u16, Value) {
    match path {
        "/apis/karpenter.sh/v1/nodepools?limit=500" => (
            200,
            json!({"items": [{"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "general"},
                "spec": {"template": {"spec": {"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
                    "requirements": [{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["m5.large", "m5.xlarge"]}]}}}}]}),
        ),
        "/api/v1/pods?limit=500" => (200, json!({"metadata": {"continue": "pg2+/="}, "items": [pod("web-0"), pod("web-1")]})),
        "/api/v1/pods?limit=500&continue=pg2%2B%2F%3D" => (200, json!({"metadata": {}, "items": [pod("web-2")]})),
        p if p.starts_with("/apis/resource.k8s.io/") || p.starts_with("/apis/autoscaling.x-k8s.io/") || p.contains("nodeoverlays") => (
            404,
            json!({"kind": "Status", "code": 404, "reason": "NotFound", "message": "the server could not find the requested resource"}),
        ),
        _ => empty(),
    }
}

#[test]
fn a_snapshot_answers_what_the_cluster_answered() {
    let kubeconfig = serve(cluster);
    let dir = std::path::Path::new(&kubeconfig).parent().unwrap().to_path_buf();
    let snap = dir.join("snap.json").to_string_lossy().into_owned();
    let live = run(&["plan", "--kubeconfig", &kubeconfig, "--snapshot", &snap, "-o", "json"]);
    let err = String::from_utf8_lossy(&live.stderr);
    assert_eq!(live.status.code(), Some(0), "{err}");
    // A progress line for the second page, the count of what was read, the kinds not served.
    assert!(err.contains("Pods so far: 2 (reading page 2)"), "{err}");
    assert!(
        err.contains("read 1 NodePool, ") && err.contains(", 3 Pods") && err.contains("from the current context (http://127.0.0.1:"),
        "{err}"
    );
    assert!(err.contains("resource.k8s.io/v1 DeviceClass not served"), "{err}");
    let answer: Value = serde_json::from_slice(&live.stdout).unwrap();
    let text = std::fs::read_to_string(&snap).unwrap();
    assert!(!text.contains("managedFields"), "{text}");
    assert!(text.contains(r#""apiVersion":"v1""#) && text.contains(r#""kind":"Pod""#), "{text}");
    assert_eq!(text.matches(r#""kind":"Pod""#).count(), 3);
    let again = run(&["plan", &snap, "-o", "json"]);
    assert_eq!(again.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&again.stdout), String::from_utf8_lossy(&live.stdout));
    // The time of the read is the plan's --now, recorded in the snapshot and taken from it.
    let read_at = err.split("--now ").nth(1).and_then(|r| r.split(' ').next()).expect("the clock on stderr").to_string();
    assert!(text.contains(&format!(r#""nodecast/read-at":"{read_at}""#)), "{text}");
    let again_err = String::from_utf8_lossy(&again.stderr);
    assert!(again_err.contains(&format!("--now {read_at} (the time the snapshot was read)")), "{again_err}");
    // simulate: time 0 is the time of the read (the trace gives no `start`), from the snapshot too.
    let trace = dir.join("trace.yaml");
    std::fs::write(&trace, "apiVersion: nodecast/v1\nkind: Trace\nend: 1h\nevents: []\n").unwrap();
    let trace = trace.to_string_lossy().into_owned();
    let sim = run(&["simulate", &snap, "--trace", &trace, "-o", "json"]);
    let sim: Value = serde_json::from_slice(&sim.stdout).unwrap();
    assert_eq!(sim["start"], Value::String(read_at.clone()), "{sim}");
    let given = run(&["simulate", &snap, "--trace", &trace, "--now", "2030-01-01T00:00:00Z", "-o", "json"]);
    let given: Value = serde_json::from_slice(&given.stdout).unwrap();
    assert_eq!(given["start"], "2030-01-01T00:00:00Z", "{given}");
    // Three 1-CPU pods were pending: the plan places all three.
    let placed: usize = answer["nodeClaims"].as_array().unwrap().iter().map(|c| c["pods"].as_array().unwrap().len()).sum();
    assert_eq!(placed, 3, "{answer}");
}

fn forbidden(path: &str) -> (u16, Value) {
    if path.starts_with("/apis/karpenter.sh/v1/nodepools") {
        return (
            403,
            json!({"kind": "Status", "code": 403, "reason": "Forbidden",
                   "message": "nodepools.karpenter.sh is forbidden: User \"nobody\" cannot list resource \"nodepools\" in API group \"karpenter.sh\" at the cluster scope"}),
        );
    }
    empty()
}

#[test]
fn a_forbidden_kind_names_the_missing_permission() {
    let kubeconfig = serve(forbidden);
    let out = run(&["validate", "--kubeconfig", &kubeconfig]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("NodePool (/apis/karpenter.sh/v1/nodepools?limit=500): forbidden: missing permission `list` on resource \"nodepools\" in API group \"karpenter.sh\""), "{err}");
}

fn old_karpenter(path: &str) -> (u16, Value) {
    match path {
        "/apis/karpenter.k8s.aws/v1/ec2nodeclasses?limit=500" => (404, json!({"kind": "Status", "code": 404, "reason": "NotFound"})),
        "/apis/karpenter.k8s.aws" => (
            200,
            json!({"kind": "APIGroup", "name": "karpenter.k8s.aws", "versions": [{"groupVersion": "karpenter.k8s.aws/v1beta1", "version": "v1beta1"}]}),
        ),
        _ => empty(),
    }
}

#[test]
fn an_api_version_karpenter_does_not_serve_is_named() {
    let kubeconfig = serve(old_karpenter);
    let out = run(&["plan", "--kubeconfig", &kubeconfig, "--context", "stand-in"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("context stand-in (http://127.0.0.1:")
            && err.contains("EC2NodeClass (/apis/karpenter.k8s.aws/v1/ec2nodeclasses): the cluster serves karpenter.k8s.aws at v1beta1 only; Karpenter v1.15 serves and nodecast reads karpenter.k8s.aws/v1 EC2NodeClass"),
        "{err}"
    );
}
