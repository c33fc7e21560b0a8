//! Lowering NodePools and EC2NodeClasses (their requirements, taints, limits and disruption
//! settings) into the model's pools and classes.

use super::*;
use crate::labels::{KeyId, ValueId};
use std::collections::HashSet;

impl Lowering {
    pub(super) fn node_pool(&mut self, root: &At, sink: &mut Sink) {
        let meta = read_meta(root, sink);
        let version = meta.annotations.iter().find(|(k, _)| k == "karpenter.sh/nodepool-hash-version").map(|(_, v)| v.clone());
        self.pool_hash_versions.push((meta.name.clone(), version));
        let interner = &mut self.interner;
        let spec = root.get("spec");
        let tmpl = spec.as_ref().and_then(|s| s.get("template"));
        let tmpl_meta = tmpl.as_ref().and_then(|t| t.get("metadata"));
        let tspec = tmpl.as_ref().and_then(|t| t.get("spec"));
        let mut pairs = Vec::new();
        if let Some(l) = tmpl_meta.as_ref().and_then(|m| m.get("labels")) {
            for (k, v) in sink.string_map(&l) {
                pairs.push((interner.intern(labels::normalize_key(&k)), interner.intern(&v)));
            }
        }
        pairs.push((interner.intern(labels::NODEPOOL), interner.intern(&meta.name)));
        let mut node_class = None;
        let mut auto = false;
        if let Some(ncr) = tspec.as_ref().and_then(|s| s.get("nodeClassRef")) {
            let group = sink.opt_scalar(&ncr, "group").unwrap_or_default();
            let kind = sink.opt_scalar(&ncr, "kind").unwrap_or_default();
            let name = sink.opt_scalar(&ncr, "name").unwrap_or_default();
            if !group.is_empty() && !kind.is_empty() {
                pairs.push((interner.intern(&format!("{group}/{}", kind.to_ascii_lowercase())), interner.intern(&name)));
            }
            auto = auto_mode::is_auto_ref(&group, &kind);
            if auto {
                pairs.push((interner.intern(auto_mode::COMPUTE_TYPE), interner.intern("auto")));
            }
            node_class = Some(name);
        }
        let labels_set = LabelSet::from_pairs(pairs);
        let mut reqs = crate::requirements::Requirements::new();
        let mut listed = ListedOrder::default();
        if let Some(rs) = tspec.as_ref().and_then(|s| s.get("requirements")) {
            for r in sink.list(&rs) {
                let Some(key) = sink.opt_scalar(&r, "key") else {
                    sink.error(&r, "required", "requirement without `key`", "key: <label key>");
                    continue;
                };
                let key = labels::normalize_key(&key).to_string();
                let op_text = sink.opt_scalar(&r, "operator").unwrap_or_default();
                let Some(op) = crate::requirements::Operator::parse(&op_text) else {
                    let at = r.get("operator").unwrap_or(r);
                    sink.error(
                        &at,
                        "invalid-operator",
                        format!("unknown operator {op_text:?} for key {key:?}"),
                        "one of In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte, Lte",
                    );
                    continue;
                };
                let values = r.get("values").map(|v| sink.string_list(&v)).unwrap_or_default();
                let min_values =
                    r.get("minValues").and_then(|m| sink.int(&m, "an integer 1..50")).map(|m| m.clamp(0, u32::MAX as i64) as u32);
                let ids: Vec<u32> = values.iter().map(|v| interner.intern(v)).collect();
                let kid = interner.intern(&key);
                if op == crate::requirements::Operator::In {
                    listed.record(kid, &ids);
                }
                reqs.add(kid, Requirement::from_operator(op, &ids, interner).with_min_values(min_values), interner);
            }
        }
        let spec_requirements = reqs.clone();
        for (k, v) in labels_set.iter() {
            reqs.add(k, Requirement::in_values([v]), interner);
        }
        if auto {
            auto_mode::restrict(&mut reqs, interner);
        }
        let t = interner.intern("true");
        reqs.add(interner.intern("karpenter.sh/registered"), Requirement::in_values([t]), interner);
        reqs.add(interner.intern("karpenter.sh/initialized"), Requirement::in_values([t]), interner);
        let taints = tspec.as_ref().and_then(|s| s.get("taints")).map(|ts| read_taints(&ts, sink)).unwrap_or_default();
        let startup_taints = tspec.as_ref().and_then(|s| s.get("startupTaints")).map(|ts| read_taints(&ts, sink)).unwrap_or_default();
        let default_expiry = if auto { auto_mode::DEFAULT_EXPIRE_AFTER } else { 720 * 3600 };
        let expire_after = match tspec.as_ref().and_then(|s| s.get("expireAfter")) {
            None => Some(default_expiry),
            Some(at) => duration(&at, true, sink).unwrap_or(Some(default_expiry)),
        };
        // Admission already checked the format (NP-58); only the simulator's drain uses it.
        let termination_grace_period = tspec
            .as_ref()
            .and_then(|s| s.get("terminationGracePeriod"))
            .and_then(|at| parse_duration(at.v.as_str()?, false).ok().flatten())
            .or(auto.then_some(auto_mode::DEFAULT_TERMINATION_GRACE));
        let mut limits = Vec::new();
        if let Some(l) = spec.as_ref().and_then(|s| s.get("limits")) {
            for (k, v) in sink.map(&l) {
                if let Some(q) = sink.quantity(&v) {
                    let key = if k == NODES_KEY { LimitKey::Nodes } else { LimitKey::Resource(self.resources.intern(k)) };
                    limits.push((key, q));
                }
            }
        }
        let weight = spec.as_ref().and_then(|s| sink.opt_int(s, "weight", "an integer 1..100")).unwrap_or(0) as i32;
        let is_static = spec.as_ref().is_some_and(|s| s.get("replicas").is_some());
        // Admission checked it is an integer ≥ 0 (NP-06).
        let replicas = spec.as_ref().and_then(|s| sink.opt_int(s, "replicas", "an integer ≥ 0"));
        let disruption = spec.as_ref().and_then(|s| s.get("disruption")).map(|d| disruption(&d, sink)).unwrap_or(Disruption {
            policy: ConsolidationPolicy::WhenEmptyOrUnderutilized,
            consolidate_after: Some(0),
            budgets: vec![Budget::new(BudgetNodes::Percent(10), vec![], None, None)],
        });
        self.node_pools.push(NodePool {
            name: meta.name,
            weight,
            labels: labels_set,
            requirements: reqs,
            taints,
            startup_taints,
            limits,
            node_class,
            node_class_index: None,
            expire_after,
            termination_grace_period,
            disruption,
            spec_requirements,
            listed_order: listed.finish(),
            template_hash: crate::gohash::nodepool_template_hash(tmpl.as_ref().map(|t| t.v)).map_err(|e| e.0),
            is_static,
            replicas,
            ready: true,
            document: sink.document,
            // Filled in by `document`, which knows the input it came from.
            source: None,
            prefix: String::new(),
            auto_mode: auto,
        });
    }

    pub(super) fn node_class(&mut self, root: &At, sink: &mut Sink) {
        let meta = read_meta(root, sink);
        let mut nc = NodeClass { name: meta.name, ..Default::default() };
        let status = root.get("status");
        nc.status_zones = status.as_ref().and_then(|s| s.get("subnets")).map(|subnets| {
            let mut zones: Vec<String> = sink.list(&subnets).iter().filter_map(|s| sink.opt_scalar(s, "zone")).collect();
            zones.sort_unstable();
            zones.dedup();
            zones
        });
        let Some(spec) = root.get("spec") else {
            self.node_classes.push(nc);
            return;
        };
        nc.ami_family = sink.opt_scalar(&spec, "amiFamily").unwrap_or_default();
        if nc.ami_family.is_empty() {
            if let Some(terms) = spec.get("amiSelectorTerms") {
                for t in sink.list(&terms) {
                    if let Some(alias) = sink.opt_scalar(&t, "alias") {
                        nc.ami_family = alias.split('@').next().unwrap_or("").to_string();
                    }
                }
            }
        }
        nc.raid0 = sink.opt_scalar(&spec, "instanceStorePolicy").as_deref() == Some("RAID0");
        if let Some(bdms) = spec.get("blockDeviceMappings") {
            let list = sink.list(&bdms);
            let root_dev = match nc.ami_family.to_ascii_lowercase().as_str() {
                "bottlerocket" => "/dev/xvdb",
                f if f.starts_with("windows") => "/dev/sda1",
                _ => "/dev/xvda",
            };
            let mut chosen = None;
            for b in &list {
                let is_root = b.get("rootVolume").and_then(|r| sink.bool(&r)).unwrap_or(false);
                let dev = sink.opt_scalar(b, "deviceName").unwrap_or_default();
                let ebs = b.get("ebs");
                let size = ebs.as_ref().and_then(|e| e.get("volumeSize")).and_then(|s| sink.quantity(&s));
                if is_root {
                    chosen = size.or(chosen);
                    break;
                }
                if dev == root_dev || nc.ami_family.eq_ignore_ascii_case("custom") {
                    chosen = size;
                }
            }
            nc.root_volume_bytes = chosen.map(|m| m / 1000);
        }
        if let Some(k) = spec.get("kubelet") {
            nc.max_pods = sink.opt_int(&k, "maxPods", "an integer ≥ 0");
            nc.pods_per_core = sink.opt_int(&k, "podsPerCore", "an integer ≥ 0");
            for (field, out) in [("kubeReserved", &mut nc.kube_reserved), ("systemReserved", &mut nc.system_reserved)] {
                if let Some(m) = k.get(field) {
                    for (r, v) in sink.map(&m) {
                        if let Some(q) = sink.quantity(&v) {
                            out.push((self.resources.intern(r), q));
                        }
                    }
                }
            }
            let eviction = k.get("evictionHard");
            if let Some(ev) = eviction.as_ref().and_then(|e| e.get("memory.available")) {
                if let Some(s) = sink.scalar(&ev) {
                    if !s.ends_with('%') {
                        nc.eviction_hard_memory = sink.quantity(&ev);
                    }
                }
            }
        }
        nc.reservation_terms = crate::catalog::reservations::read_terms(&spec, sink);
        self.node_classes.push(nc);
    }
}

pub(super) fn read_taints(ts: &At, sink: &mut Sink) -> Vec<Taint> {
    let mut out = Vec::new();
    for t in sink.list(ts) {
        let key = sink.opt_scalar(&t, "key").unwrap_or_default();
        let value = sink.opt_scalar(&t, "value").unwrap_or_default();
        let effect_text = sink.opt_scalar(&t, "effect").unwrap_or_default();
        match Effect::parse(&effect_text) {
            Some(effect) => out.push(Taint { key, value, effect }),
            None => {
                let at = t.get("effect").unwrap_or(t);
                sink.error(
                    &at,
                    "invalid-effect",
                    format!("unknown taint effect {effect_text:?}"),
                    "NoSchedule, PreferNoSchedule or NoExecute",
                );
            }
        }
    }
    out
}

pub(super) fn duration(at: &At, allow_never: bool, sink: &mut Sink) -> Option<Option<i64>> {
    let s = sink.scalar(at)?;
    match parse_duration(&s, allow_never) {
        Ok(d) => Some(d),
        Err(msg) => {
            sink.error(at, "invalid-duration", msg, if allow_never { "a duration such as 30s, 5m, 720h, or Never" } else { DURATION_HELP });
            None
        }
    }
}

pub(super) fn disruption(d: &At, sink: &mut Sink) -> Disruption {
    let policy = match sink.opt_scalar(d, "consolidationPolicy").as_deref() {
        Some("WhenEmpty") => ConsolidationPolicy::WhenEmpty,
        None | Some("WhenEmptyOrUnderutilized") => ConsolidationPolicy::WhenEmptyOrUnderutilized,
        Some("Balanced") => ConsolidationPolicy::Balanced,
        Some(other) => {
            let at = d.get("consolidationPolicy").unwrap_or(*d);
            sink.error(
                &at,
                "unsupported-value",
                format!("unknown consolidationPolicy {other:?}"),
                "WhenEmpty, WhenEmptyOrUnderutilized or Balanced",
            );
            ConsolidationPolicy::WhenEmptyOrUnderutilized
        }
    };
    let consolidate_after = d.get("consolidateAfter").and_then(|a| duration(&a, true, sink)).unwrap_or(Some(0));
    let budgets = match d.get("budgets") {
        None => vec![Budget::new(BudgetNodes::Percent(10), vec![], None, None)],
        Some(bs) => {
            let mut out = Vec::new();
            for b in sink.list(&bs) {
                let nodes_text = sink.opt_scalar(&b, "nodes").unwrap_or_else(|| "10%".into());
                let nodes = match nodes_text.strip_suffix('%') {
                    Some(p) => p.parse::<u32>().ok().filter(|p| *p <= 100).map(BudgetNodes::Percent),
                    None => nodes_text.parse::<u32>().ok().map(BudgetNodes::Count),
                };
                let Some(nodes) = nodes else {
                    let at = b.get("nodes").unwrap_or(b);
                    sink.error(
                        &at,
                        "invalid-budget",
                        format!("budget nodes {nodes_text:?} is not a count or a percentage ≤ 100%"),
                        "e.g. 1, 10 or 20%",
                    );
                    continue;
                };
                let reasons = b.get("reasons").map(|r| sink.string_list(&r)).unwrap_or_default();
                let schedule = sink.opt_scalar(&b, "schedule");
                let dur = b.get("duration").and_then(|a| duration(&a, false, sink)).flatten();
                out.push(Budget::new(nodes, reasons, schedule, dur));
            }
            out
        }
    };
    Disruption { policy, consolidate_after, budgets }
}

/// The order Karpenter's Go sets hold a NodePool's `In` values in (`NodePool::listed_order`).
/// A set of at most 8 values fills its slots in insertion order: the order listed, duplicates
/// kept at their first place. A second `In` on the same key is intersected as
/// `sets.Intersection` does, walking the smaller set (the one already held on equal sizes);
/// Go starts that walk, too, at a random slot, so the walked set's listed order is only the
/// likeliest one, which is all this order claims. Other operators only remove values, which
/// the use (ranking the values a claim still allows) filters anyway. A larger set is a hashed
/// table whose order is unrelated to insertion: no order is kept for it or what walking it
/// builds.
#[derive(Default)]
struct ListedOrder(Vec<(KeyId, Vec<ValueId>, bool)>);

impl ListedOrder {
    /// Linear in the values (hashed membership): a requirement may list very many.
    fn record(&mut self, key: KeyId, values: &[ValueId]) {
        let mut seen: HashSet<ValueId> = HashSet::with_capacity(values.len());
        let set: Vec<ValueId> = values.iter().copied().filter(|&v| seen.insert(v)).collect();
        let ordered = set.len() <= 8;
        match self.0.iter_mut().find(|(k, _, _)| *k == key) {
            None => self.0.push((key, set, ordered)),
            Some((_, held, held_ordered)) => {
                let walk_new = set.len() < held.len();
                let (walk, other) = if walk_new { (&set, &*held) } else { (&*held, &set) };
                let other: HashSet<ValueId> = other.iter().copied().collect();
                let kept: Vec<ValueId> = walk.iter().copied().filter(|v| other.contains(v)).collect();
                *held_ordered = if walk_new { ordered } else { *held_ordered };
                *held = kept;
            }
        }
    }

    fn finish(self) -> Vec<(KeyId, Vec<ValueId>)> {
        let mut out: Vec<(KeyId, Vec<ValueId>)> =
            self.0.into_iter().filter(|(_, v, ordered)| *ordered && v.len() >= 2).map(|(k, v, _)| (k, v)).collect();
        out.sort_by_key(|(k, _)| *k);
        out
    }
}
