//! Already-decoded objects (a notebook's dicts, a JS object) behave like the same YAML text:
//! a `kind: List` or a bare array among `objects` expands into its items, with located paths.

use serde_json::{json, Value};

const POOL_AND_POD: &str = r#"{"apiVersion":"karpenter.sh/v1","kind":"NodePool","metadata":{"name":"default"},
 "spec":{"template":{"spec":{"nodeClassRef":{"group":"karpenter.k8s.aws","kind":"EC2NodeClass","name":"default"},"requirements":[]}}}}"#;

fn pod(name: &str, cpu: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
           "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]}})
}

fn plan(objects: Value) -> Value {
    let pool: Value = serde_json::from_str(POOL_AND_POD).unwrap();
    let mut all = vec![pool];
    all.extend(objects.as_array().unwrap().iter().cloned());
    let answer = nodecast::call("plan", &json!({ "objects": all }).to_string());
    serde_json::from_str(&answer).unwrap()
}

fn placed_pods(answer: &Value) -> Vec<String> {
    let mut pods: Vec<String> = answer["nodeClaims"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["pods"].as_array().unwrap().iter().map(|p| p.as_str().unwrap().to_string()))
        .collect();
    pods.sort();
    pods
}

#[test]
fn a_list_among_objects_expands_like_yaml() {
    let list = json!([{"apiVersion": "v1", "kind": "PodList", "items": [pod("a", "1"), pod("b", "1")]}]);
    let answer = plan(list);
    assert_eq!(answer["status"], "success", "{answer}");
    assert_eq!(placed_pods(&answer), ["default/a", "default/b"]);

    let flat = plan(json!([pod("a", "1"), pod("b", "1")]));
    assert_eq!(answer["nodeClaims"], flat["nodeClaims"], "a List must plan exactly like its items");
}

#[test]
fn errors_inside_a_list_object_are_located_by_item() {
    let answer = plan(json!([{"kind": "List", "items": [pod("ok", "1"), pod("bad", "1.5.0")]}]));
    assert_eq!(answer["status"], "failure", "{answer}");
    let err = &answer["errors"][0];
    assert_eq!(err["code"], "invalid-quantity");
    assert_eq!(err["source"], "objects");
    assert_eq!(err["document"], 1);
    assert_eq!(err["path"], "items[1].spec.containers[0].resources.requests.cpu");
}

#[test]
fn a_scalar_object_is_a_located_error() {
    let answer = plan(json!([42]));
    assert_eq!(answer["status"], "failure");
    assert_eq!(answer["errors"][0]["code"], "wrong-type");
    assert_eq!(answer["errors"][0]["document"], 1);
    assert!(answer["errors"][0]["message"].as_str().unwrap().contains("mapping"));
}

/// Volumes are not modelled: a pending pod that mounts a PersistentVolumeClaim is still planned,
/// with a warning naming it, and the volume kinds and HPAs are skipped with what is not followed.
#[test]
fn volumes_and_autoscalers_are_said_not_modelled() {
    let mut with_pvc = pod("db-0", "1");
    with_pvc["spec"]["volumes"] = json!([{"name": "data", "persistentVolumeClaim": {"claimName": "data-db-0"}}]);
    let mut with_configmap = pod("web", "1");
    with_configmap["spec"]["volumes"] = json!([{"name": "cfg", "configMap": {"name": "web"}}]);
    let answer = plan(json!([
        with_pvc,
        with_configmap,
        {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data-db-0"}},
        {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "web"}},
    ]));
    assert_eq!(answer["status"], "success", "{answer}");
    assert_eq!(placed_pods(&answer), ["default/db-0", "default/web"]);
    let warnings: Vec<&Value> = answer["warnings"].as_array().unwrap().iter().filter(|w| w["code"] == "volumes-not-modelled").collect();
    assert_eq!(warnings.len(), 1, "{answer}");
    let message = warnings[0]["message"].as_str().unwrap();
    assert!(message.starts_with("1 pending pod(s)") && message.contains("default/db-0") && !message.contains("default/web"), "{message}");
    let skipped = answer["skipped"].as_array().unwrap();
    let reason = |kind: &str| skipped.iter().find(|s| s["kind"] == kind).unwrap()["reason"].as_str().unwrap().to_string();
    assert!(reason("PersistentVolumeClaim").contains("volume topology"), "{skipped:?}");
    assert!(reason("HorizontalPodAutoscaler").contains("changes replicas over time"), "{skipped:?}");
}
