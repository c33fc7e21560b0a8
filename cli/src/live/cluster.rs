//! The cluster reader behind `live`: one kube-rs client, a `list` per kind (paged, 500 objects a
//! page), every object written as the API server returned it less what nodecast never reads
//! (`managedFields`, kubectl's last-applied copy), in a fixed kind order and the server's
//! namespace/name order within a kind, so the same cluster state gives the same bytes.

use super::LiveArgs;
use crate::Fatal;
use kube::config::{KubeConfigOptions, Kubeconfig};
use serde_json::Value;
use std::time::{Duration, Instant};

/// Whether a kind's absence is an error: Karpenter's own kinds and the built-in ones are always
/// there on a cluster nodecast can answer for; the optional APIs (DRA, NodeOverlay,
/// CapacityBuffer) are read when the cluster serves them.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Need {
    Required,
    IfServed,
}

struct Kind {
    group: &'static str,
    version: &'static str,
    plural: &'static str,
    kind: &'static str,
    need: Need,
}

const fn kind(group: &'static str, version: &'static str, plural: &'static str, kind: &'static str, need: Need) -> Kind {
    Kind { group, version, plural, kind, need }
}

/// Every kind read, in the order written. The versions are the ones Karpenter v1.15 serves and
/// reads (karpenter.sh/v1, karpenter.k8s.aws/v1, NodeOverlay v1alpha1). The ML kinds (PyTorchJob,
/// JobSet, RayCluster, ...) are not read: on a running cluster their controllers already created
/// the pods (read as Pods) and nodecast expands those kinds in full (docs/inputs.md), so reading
/// both would plan their pods twice. README.md's ClusterRole grants exactly these resources.
const KINDS: &[Kind] = &[
    kind("karpenter.sh", "v1", "nodepools", "NodePool", Need::Required),
    kind("karpenter.k8s.aws", "v1", "ec2nodeclasses", "EC2NodeClass", Need::Required),
    kind("karpenter.sh", "v1", "nodeclaims", "NodeClaim", Need::Required),
    kind("karpenter.sh", "v1alpha1", "nodeoverlays", "NodeOverlay", Need::IfServed),
    kind("", "v1", "nodes", "Node", Need::Required),
    kind("scheduling.k8s.io", "v1", "priorityclasses", "PriorityClass", Need::Required),
    kind("apps", "v1", "daemonsets", "DaemonSet", Need::Required),
    kind("apps", "v1", "deployments", "Deployment", Need::Required),
    kind("apps", "v1", "replicasets", "ReplicaSet", Need::Required),
    kind("apps", "v1", "statefulsets", "StatefulSet", Need::Required),
    kind("batch", "v1", "jobs", "Job", Need::Required),
    kind("batch", "v1", "cronjobs", "CronJob", Need::Required),
    kind("policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", Need::Required),
    kind("", "v1", "pods", "Pod", Need::Required),
    kind("resource.k8s.io", "v1", "deviceclasses", "DeviceClass", Need::IfServed),
    kind("resource.k8s.io", "v1", "resourceslices", "ResourceSlice", Need::IfServed),
    kind("resource.k8s.io", "v1", "resourceclaims", "ResourceClaim", Need::IfServed),
    kind("resource.k8s.io", "v1", "resourceclaimtemplates", "ResourceClaimTemplate", Need::IfServed),
    kind("autoscaling.x-k8s.io", "v1beta1", "capacitybuffers", "CapacityBuffer", Need::IfServed),
];

/// Objects per `list` page: bounded memory per response on a large cluster.
const PAGE: usize = 500;

/// The name of the live input when no snapshot file names it.
pub fn source_name(live: &LiveArgs) -> String {
    if live.in_cluster {
        return "cluster (in-cluster)".into();
    }
    match &live.context {
        Some(c) => format!("cluster (context {c})"),
        None => "cluster (current context)".into(),
    }
}

/// Lists every kind and returns the input text.
/// `read_at` (RFC 3339) is recorded in the List's annotations (`super::READ_AT`).
pub fn read(live: &LiveArgs, read_at: &str) -> Result<String, Fatal> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Fatal(format!("cannot start the cluster client: {e}")))?;
    rt.block_on(read_all(live, read_at))
}

/// Where the failure happened, for every message: `context X (https://host:port)`.
struct Place {
    label: String,
    client: kube::Client,
}

async fn read_all(live: &LiveArgs, read_at: &str) -> Result<String, Fatal> {
    let (config, label) = config(live).await?;
    let label = format!("{label} ({})", config.cluster_url);
    let client = kube::Client::try_from(config).map_err(|e| Fatal(format!("{label}: cannot build a client: {}", chain(&e))))?;
    let place = Place { label, client };
    let started = Instant::now();
    let mut text = super::list_header(read_at);
    let mut first = true;
    let mut counts = Vec::new();
    for k in KINDS {
        let n = list_kind(&place, k, &mut text, &mut first).await?;
        if let Some(n) = n {
            counts.push(format!("{n} {}", plural_of(k, n)));
        }
    }
    text.push_str("\n]}\n");
    let _ = crate::out::write_err(&format!(
        "nodecast: read {} from {} in {:.1} s\n",
        counts.join(", "),
        place.label,
        started.elapsed().as_secs_f64()
    ));
    Ok(text)
}

fn plural_of(k: &Kind, n: usize) -> String {
    if n == 1 {
        k.kind.to_string()
    } else if k.kind.ends_with('s') {
        format!("{}es", k.kind)
    } else {
        format!("{}s", k.kind)
    }
}

/// The client configuration: in-cluster, or a kubeconfig (given or the default) at a context.
async fn config(live: &LiveArgs) -> Result<(kube::Config, String), Fatal> {
    let mut config = if live.in_cluster {
        let c = kube::Config::incluster()
            .map_err(|e| Fatal(format!("--in-cluster: not running in a pod with a service account: {}", chain(&e))))?;
        (c, "in-cluster".to_string())
    } else {
        let options = KubeConfigOptions { context: live.context.clone(), ..Default::default() };
        let what = match (&live.kubeconfig, &live.context) {
            (Some(f), Some(c)) => format!("--kubeconfig {f} --context {c}"),
            (Some(f), None) => format!("--kubeconfig {f}"),
            (None, Some(c)) => format!("--context {c}"),
            (None, None) => "the current context".to_string(),
        };
        let loaded = match &live.kubeconfig {
            Some(f) => {
                let kc = Kubeconfig::read_from(f).map_err(|e| Fatal(format!("--kubeconfig {f}: {}", chain(&e))))?;
                kube::Config::from_custom_kubeconfig(kc, &options).await
            }
            None => kube::Config::from_kubeconfig(&options).await,
        };
        let c = loaded.map_err(|e| Fatal(format!("{what}: {}", chain(&e))))?;
        let label = match &live.context {
            Some(ctx) => format!("context {ctx}"),
            None => "the current context".to_string(),
        };
        (c, label)
    };
    // An unreachable server fails in seconds, not after the OS's TCP timeout.
    config.0.connect_timeout = Some(Duration::from_secs(10));
    config.0.read_timeout = Some(Duration::from_secs(120));
    Ok(config)
}

/// The API path of a kind's collection across all namespaces.
fn collection(k: &Kind) -> String {
    if k.group.is_empty() {
        format!("/api/{}/{}", k.version, k.plural)
    } else {
        format!("/apis/{}/{}/{}", k.group, k.version, k.plural)
    }
}

/// Lists one kind into `text`; `None` when an optional kind is not served.
async fn list_kind(place: &Place, k: &Kind, text: &mut String, first: &mut bool) -> Result<Option<usize>, Fatal> {
    let api_version = if k.group.is_empty() { k.version.to_string() } else { format!("{}/{}", k.group, k.version) };
    let mut token: Option<String> = None;
    let mut n = 0usize;
    let mut pages = 0usize;
    loop {
        let mut path = format!("{}?limit={PAGE}", collection(k));
        if let Some(t) = &token {
            path.push_str("&continue=");
            path.push_str(&percent_encode(t));
        }
        let request = http::Request::get(&path).body(Vec::new()).map_err(|e| Fatal(format!("{path}: {e}")))?;
        let page: Value = match place.client.request(request).await {
            Ok(v) => v,
            Err(kube::Error::Api(s)) if s.code == 404 && pages == 0 => {
                return not_served(place, k).await;
            }
            Err(e) => return Err(refused(place, k, &path, e)),
        };
        pages += 1;
        let items = page.get("items").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        for item in items {
            let mut item = item.clone();
            if let Some(obj) = item.as_object_mut() {
                // Items of a built-in kind's list carry no apiVersion/kind.
                obj.insert("apiVersion".into(), Value::String(api_version.clone()));
                obj.insert("kind".into(), Value::String(k.kind.to_string()));
                if let Some(meta) = obj.get_mut("metadata").and_then(Value::as_object_mut) {
                    meta.remove("managedFields");
                    if let Some(a) = meta.get_mut("annotations").and_then(Value::as_object_mut) {
                        a.remove("kubectl.kubernetes.io/last-applied-configuration");
                    }
                }
            }
            text.push_str(if *first { "\n" } else { ",\n" });
            *first = false;
            text.push_str(&serde_json::to_string(&item).map_err(|e| Fatal(format!("{path}: {e}")))?);
            n += 1;
            if text.len() > nodecast::MAX_INPUT_BYTES {
                return Err(Fatal(format!(
                    "{}: the objects read reach the input limit of {} bytes at {n} {}: the cluster is larger than nodecast reads at once",
                    place.label,
                    nodecast::MAX_INPUT_BYTES,
                    plural_of(k, n)
                )));
            }
        }
        token = page.pointer("/metadata/continue").and_then(Value::as_str).filter(|t| !t.is_empty()).map(str::to_string);
        match token {
            Some(_) => {
                // Progress on a large cluster: one line per page after the first.
                let _ = crate::out::write_err(&format!("nodecast: {} so far: {n} (reading page {})\n", plural_of(k, 2), pages + 1));
            }
            None => return Ok(Some(n)),
        }
    }
}

/// A 404 on a kind's collection: an optional kind is left out (said on stderr); for a required
/// one the API group's discovery tells which versions the cluster serves instead.
async fn not_served(place: &Place, k: &Kind) -> Result<Option<usize>, Fatal> {
    if k.need == Need::IfServed {
        let _ = crate::out::write_err(&format!("nodecast: {} not served by {}: none read\n", api_of(k), place.label));
        return Ok(None);
    }
    let served = served_versions(place, k.group).await;
    let what = match served.as_deref() {
        Some([]) | None => format!("the API group {:?} is not served: Karpenter's CRDs are not installed", k.group),
        Some(versions) if !versions.iter().any(|v| v == k.version) => format!(
            "the cluster serves {} at {} only; Karpenter v1.15 serves and nodecast reads {} (upgrade Karpenter's CRDs, or export the objects converted to {})",
            k.group,
            versions.join(", "),
            api_of(k),
            k.version
        ),
        Some(_) => format!("{} has no {} resource", api_of(k), k.plural),
    };
    Err(Fatal(format!("{}: {} ({}): {what}", place.label, k.kind, collection(k))))
}

fn api_of(k: &Kind) -> String {
    if k.group.is_empty() {
        format!("{} {}", k.version, k.kind)
    } else {
        format!("{}/{} {}", k.group, k.version, k.kind)
    }
}

/// The versions the API server serves of a group (its discovery document), `None` when the
/// group is unknown or the document cannot be read.
async fn served_versions(place: &Place, group: &str) -> Option<Vec<String>> {
    let path = format!("/apis/{group}");
    let request = http::Request::get(&path).body(Vec::new()).ok()?;
    let doc: Value = place.client.request(request).await.ok()?;
    let versions = doc.get("versions")?.as_array()?;
    Some(versions.iter().filter_map(|v| v.get("version").and_then(Value::as_str)).map(str::to_string).collect())
}

/// Why a list was refused, located at the kind and the request: a missing permission names the
/// rule to add; an unreachable server says which.
fn refused(place: &Place, k: &Kind, path: &str, e: kube::Error) -> Fatal {
    let at = format!("{}: {} ({path})", place.label, k.kind);
    match e {
        kube::Error::Api(s) if s.code == 403 => Fatal(format!(
            "{at}: forbidden: missing permission `list` on resource {:?} in API group {:?} (the ClusterRole in README.md, \"Live cluster\", grants it); the server said: {}",
            k.plural, k.group, s.message
        )),
        kube::Error::Api(s) if s.code == 401 => {
            Fatal(format!("{at}: unauthorized: the API server refused the credentials (expired token or certificate?): {}", s.message))
        }
        kube::Error::Api(s) => Fatal(format!("{at}: the API server answered {} {}: {}", s.code, s.reason, s.message)),
        other => Fatal(format!("{at}: cannot reach the API server: {}", chain(&other))),
    }
}

/// An error and its causes, `a: b: c` (kube's top-level messages alone say little).
fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        let s = c.to_string();
        if !text.contains(&s) {
            text.push_str(": ");
            text.push_str(&s);
        }
        cause = c.source();
    }
    text
}

/// A `continue` token in a query string (tokens are base64: `+`, `/`, `=` must be escaped).
fn percent_encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn continue_tokens_are_escaped() {
        assert_eq!(percent_encode("eyJ2Ijo+/="), "eyJ2Ijo%2B%2F%3D");
    }

    #[test]
    fn collections_of_core_and_grouped_kinds() {
        let pods = KINDS.iter().find(|k| k.kind == "Pod").unwrap();
        assert_eq!(collection(pods), "/api/v1/pods");
        let pools = KINDS.iter().find(|k| k.kind == "NodePool").unwrap();
        assert_eq!(collection(pools), "/apis/karpenter.sh/v1/nodepools");
    }

    #[test]
    fn no_kind_is_a_secret_or_read_twice() {
        let mut seen = std::collections::BTreeSet::new();
        for k in KINDS {
            assert_ne!(k.plural, "secrets");
            assert!(seen.insert((k.group, k.plural)), "{} listed twice", k.plural);
        }
    }
}
