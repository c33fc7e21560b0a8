//! The order a provisioning pass tries pods in (R5.4.1).

use crate::model::Model;
use std::cmp::Reverse;
use std::ops::Range;

/// CPU desc, memory desc, creation asc, uid asc, then `namespace/name` (uids are often absent,
/// so this tie-break is common) and the queue position: the order of a stable sort, computed
/// from keys gathered once.
///
/// The strings are copied into one buffer first. Read in place, through pods scattered over
/// the heap, every string comparison of a 20,000-pod sort missed the cache; and `namespace/name`
/// in the buffer is compared exactly as the formatted key, with no allocation per pod.
pub fn queue_order(m: &Model, queue: &[usize]) -> Vec<usize> {
    let (cpu, mem) = (crate::resources::CPU, crate::resources::MEMORY);
    let mut text: Vec<u8> = Vec::with_capacity(queue.len() * 48);
    let mut push = |parts: &[&str]| -> Range<usize> {
        let start = text.len();
        for part in parts {
            text.extend_from_slice(part.as_bytes());
        }
        start..text.len()
    };
    let mut keyed: Vec<Key> = queue
        .iter()
        .map(|&p| {
            let x = &m.pods[p];
            Key {
                head: (Reverse(x.requests.get(cpu)), Reverse(x.requests.get(mem)), x.created),
                uid: push(&[&x.uid]),
                name: push(&[&x.namespace, "/", &x.name]),
                p,
            }
        })
        .collect();
    keyed.sort_unstable_by(|a, b| {
        a.head
            .cmp(&b.head)
            .then_with(|| text[a.uid.clone()].cmp(&text[b.uid.clone()]))
            .then_with(|| text[a.name.clone()].cmp(&text[b.name.clone()]))
            .then(a.p.cmp(&b.p))
    });
    keyed.into_iter().map(|k| k.p).collect()
}

struct Key {
    head: (Reverse<i64>, Reverse<i64>, i64),
    /// Ranges of the shared buffer: the uid, and `namespace/name`.
    uid: Range<usize>,
    name: Range<usize>,
    p: usize,
}

#[cfg(test)]
mod tests {
    use crate::load::Sources;
    use serde_json::json;

    /// Equal requests and no uid or creation time: `namespace/name` decides, compared as the
    /// formatted string (`ns-1/…` before `ns/…`, since `-` sorts before `/`); bigger requests
    /// go first whatever their names.
    #[test]
    fn ties_break_on_the_formatted_namespaced_name() {
        let pod = |ns: &str, name: &str, cpu: &str| {
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns},
                   "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]}})
        };
        let objects = vec![
            pod("ns", "a", "1"),
            pod("ns-1", "b", "1"),
            pod("ns", "0", "1"),
            pod("n", "z", "1"),
            pod("zz", "late", "2"),
            pod("ns0", "a", "1"),
        ];
        let (m, _) = crate::load::model(&Sources { inputs: &[], objects: &objects, catalog: None, settings: &Default::default() })
            .expect("valid pods");
        let order: Vec<String> = super::queue_order(&m, &(0..m.pods.len()).collect::<Vec<_>>())
            .into_iter()
            .map(|p| format!("{}/{}", m.pods[p].namespace, m.pods[p].name))
            .collect();
        assert_eq!(order, ["zz/late", "n/z", "ns-1/b", "ns/0", "ns/a", "ns0/a"]);
    }
}
