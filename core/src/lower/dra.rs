//! The resource.k8s.io/v1 objects (DeviceClass, ResourceClaim, ResourceClaimTemplate,
//! ResourceSlice), read and checked as the apiserver validates them
//! (k8s.io/kubernetes pkg/apis/resource/validation), into `crate::dra::Dra`.
//!
//! Two kinds of error: what the apiserver would refuse is an error whatever the settings; what
//! the apiserver accepts but nodecast's allocator does not model (firstAvailable, constraints,
//! consumable capacity, partitionable devices, ...) is refused with code `dra-not-modelled` only
//! when the objects count (`--ignore-dra-requests=false`), since Karpenter never reads them
//! otherwise. `Lowering::finish` decides which apply.

use super::claims::{dns_label, dns_subdomain};
use crate::dra::{cel, AttrValue, Claim, Device, DeviceClass, DeviceKey, Mode, Request, Slice};
use crate::manifest::reader::{At, Sink};

/// The code of errors that apply only when the DRA objects count.
pub const NOT_MODELLED: &str = "dra-not-modelled";

// Apiserver bounds (k8s.io/api resource/v1 types.go).
const MAX_REQUESTS: usize = 32; // DeviceRequestsMaxSize
const MAX_SELECTORS: usize = 32; // DeviceSelectorsMaxSize
const MAX_DEVICES_PER_SLICE: usize = 128; // ResourceSliceMaxDevices
const MAX_ATTRIBUTES_AND_CAPACITIES: usize = 32; // ResourceSliceMaxAttributesAndCapacitiesPerDevice
const MAX_DRIVER_NAME: usize = 63; // DriverNameMaxLength
const MAX_POOL_NAME: usize = 253; // PoolNameMaxLength
const MAX_QUALIFIED_NAME_ID: usize = 32; // DeviceMaxIDLength
const MAX_STRING_ATTRIBUTE: usize = 64; // DeviceAttributeMaxValueLength

/// A C identifier of at most 32 characters, optionally after `<dns subdomain>/`
/// (resource/v1 `QualifiedName` / `FullyQualifiedName` ids).
fn qualified_name(s: &str) -> bool {
    let (domain, id) = match s.split_once('/') {
        Some((d, i)) => (Some(d), i),
        None => (None, s),
    };
    let c_ident = !id.is_empty()
        && id.len() <= MAX_QUALIFIED_NAME_ID
        && !id.as_bytes()[0].is_ascii_digit()
        && id.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_');
    c_ident && domain.is_none_or(dns_subdomain)
}

fn required(at: &At, field: &str, sink: &mut Sink, help: &str) -> Option<String> {
    match sink.opt_scalar(at, field).filter(|s| !s.is_empty()) {
        Some(s) => Some(s),
        None => {
            let child = at.get(field);
            sink.error(child.as_ref().unwrap_or(at), "required", format!("`{field}` is required"), help);
            None
        }
    }
}

fn not_modelled(at: &At, sink: &mut Sink, what: &str) {
    sink.error(
        at,
        NOT_MODELLED,
        format!("{what} is not modelled by nodecast's DRA allocator"),
        "leave --ignore-dra-requests at its default (true), or drop the field",
    );
}

fn name_of(root: &At, sink: &mut Sink, namespaced: bool) -> (String, String) {
    let meta = crate::lower::lower_pod::read_meta(root, sink);
    if !dns_subdomain(&meta.name) {
        let at = root.get("metadata");
        sink.error(
            at.as_ref().unwrap_or(root),
            "invalid-name",
            format!("metadata.name {:?} is not a DNS-1123 subdomain", meta.name),
            "an object name, e.g. \"single-gpu\"",
        );
    }
    (if namespaced { meta.namespace } else { String::new() }, meta.name)
}

fn selectors(at: &At, sink: &mut Sink) -> Vec<cel::Expr> {
    let mut out = Vec::new();
    let items = sink.list(at);
    if items.len() > MAX_SELECTORS {
        sink.error(at, "too-many", format!("{} selectors, at most {MAX_SELECTORS}", items.len()), "fewer selectors");
    }
    for s in &items {
        let Some(c) = s.get("cel") else {
            sink.error(s, "required", "a selector needs `cel`", "cel: {expression: 'device.driver == \"gpu.nvidia.com\"'}");
            continue;
        };
        let Some(expr) = required(&c, "expression", sink, "a CEL expression over `device`") else { continue };
        match cel::compile(&expr) {
            Ok(e) => out.push(e),
            Err(msg) => {
                let at = c.get("expression");
                let code = if msg.starts_with("CEL expression not supported") { NOT_MODELLED } else { "invalid-cel" };
                sink.error(at.as_ref().unwrap_or(&c), code, msg, "the CEL subset of docs/feature-gates.md, section DRA");
            }
        }
    }
    out
}

/// DeviceClass `spec`.
pub fn device_class(root: &At, sink: &mut Sink) -> DeviceClass {
    let (_, name) = name_of(root, sink, false);
    let mut class = DeviceClass { name, selectors: Vec::new() };
    let Some(spec) = root.get("spec") else { return class };
    if let Some(s) = spec.get("selectors") {
        class.selectors = selectors(&s, sink);
    }
    if let Some(e) = spec.get("extendedResourceName") {
        not_modelled(&e, sink, "a DeviceClass's extendedResourceName (extended resources backed by DRA)");
    }
    class
}

/// `spec.devices` of a ResourceClaim (or of a template's `spec.spec`).
fn claim_spec(spec: Option<At>, sink: &mut Sink) -> Vec<Request> {
    let mut out = Vec::new();
    let Some(spec) = spec else { return out };
    let Some(devices) = spec.get("devices") else { return out };
    if let Some(c) = devices.get("constraints") {
        if !sink.list(&c).is_empty() {
            not_modelled(&c, sink, "a claim's constraints (matchAttribute, distinctAttribute)");
        }
    }
    let Some(reqs) = devices.get("requests") else { return out };
    let items = sink.list(&reqs);
    if items.len() > MAX_REQUESTS {
        sink.error(&reqs, "too-many", format!("{} requests, at most {MAX_REQUESTS}", items.len()), "fewer requests");
    }
    for r in &items {
        let name = required(r, "name", sink, "a DNS-1123 label, e.g. \"gpu\"").unwrap_or_default();
        if !name.is_empty() && !dns_label(&name) {
            let at = r.get("name");
            sink.error(at.as_ref().unwrap_or(r), "invalid-name", format!("request name {name:?} is not a DNS-1123 label"), "e.g. \"gpu\"");
        } else if !name.is_empty() && out.iter().any(|q: &Request| q.name == name) {
            let at = r.get("name");
            sink.error(at.as_ref().unwrap_or(r), "duplicate", format!("request name {name:?} is used twice"), "unique request names");
        }
        match (r.get("exactly"), r.get("firstAvailable")) {
            (Some(x), None) => {
                let class = required(&x, "deviceClassName", sink, "the name of a DeviceClass").unwrap_or_default();
                if !class.is_empty() && !dns_subdomain(&class) {
                    let at = x.get("deviceClassName");
                    sink.error(
                        at.as_ref().unwrap_or(&x),
                        "invalid-name",
                        format!("deviceClassName {class:?} is not a DNS-1123 subdomain"),
                        "a DeviceClass name",
                    );
                }
                let sel = x.get("selectors").map(|s| selectors(&s, sink)).unwrap_or_default();
                let mode = match sink.opt_scalar(&x, "allocationMode").as_deref() {
                    None | Some("ExactCount") => {
                        let count = match x.get("count") {
                            Some(c) => sink.int_in(&c, 1, i32::MAX as i64, "a device count of at least 1").unwrap_or(1),
                            None => 1,
                        };
                        Mode::ExactCount(count as u32)
                    }
                    Some("All") => {
                        if let Some(c) = x.get("count") {
                            sink.error(&c, "forbidden", "count must not be set with allocationMode All", "drop count, or use ExactCount");
                        }
                        Mode::All
                    }
                    Some(other) => {
                        let at = x.get("allocationMode");
                        sink.error(at.as_ref().unwrap_or(&x), "invalid-value", format!("allocationMode {other:?}"), "ExactCount or All");
                        Mode::ExactCount(1)
                    }
                };
                if let Some(a) = x.get("adminAccess") {
                    if sink.bool(&a) == Some(true) {
                        not_modelled(&a, sink, "adminAccess");
                    }
                }
                if let Some(c) = x.get("capacity") {
                    not_modelled(&c, sink, "a request's capacity (consumable capacity)");
                }
                out.push(Request { name, class, selectors: sel, mode });
            }
            (None, Some(f)) => not_modelled(&f, sink, "firstAvailable (prioritized alternatives)"),
            _ => sink.error(
                r,
                "invalid-request",
                format!("request {name:?} must set exactly one of exactly and firstAvailable"),
                "exactly: {deviceClassName: gpu.nvidia.com}",
            ),
        }
    }
    out
}

/// `status.allocation` of a ResourceClaim: its devices, and the node its nodeSelector pins.
fn allocation(alloc: &At, sink: &mut Sink) -> crate::dra::Allocation {
    let mut devices = Vec::new();
    let devs = alloc.get("devices");
    if let Some(results) = devs.as_ref().and_then(|d| d.get("results")) {
        for r in sink.list(&results) {
            let driver = required(&r, "driver", sink, "the driver of the allocated device");
            let pool = required(&r, "pool", sink, "the pool of the allocated device");
            let device = required(&r, "device", sink, "the allocated device's name");
            if let (Some(driver), Some(pool), Some(device)) = (driver, pool, device) {
                devices.push(DeviceKey { driver, pool, device });
            }
        }
    }
    let mut node = None;
    if let Some(sel) = alloc.get("nodeSelector") {
        // What the scheduler writes for node-local devices: one term, metadata.name In [node].
        let terms = sel.get("nodeSelectorTerms");
        let single = terms.as_ref().map(|t| sink.list(t)).unwrap_or_default();
        let pinned = single.first().and_then(|t| {
            let f = t.get("matchFields")?;
            let fields = sink.list(&f);
            let one = fields.first()?;
            let ok = fields.len() == 1
                && sink.opt_scalar(one, "key").as_deref() == Some("metadata.name")
                && sink.opt_scalar(one, "operator").as_deref() == Some("In");
            let values = one.get("values").map(|v| sink.string_list(&v)).unwrap_or_default();
            (ok && values.len() == 1 && t.get("matchExpressions").is_none()).then(|| values[0].clone())
        });
        match pinned {
            Some(n) if single.len() == 1 => node = Some(n),
            _ => not_modelled(&sel, sink, "an allocation nodeSelector other than one matchFields term metadata.name In [<node>]"),
        }
    }
    crate::dra::Allocation { node, devices }
}

/// k8s.io/api resource/v1 `ResourceClaimReservedForMaxSize`.
const MAX_RESERVED_FOR: usize = 256;

/// `status.reservedFor` of a ResourceClaim (the consumers the scheduler reserved it for), as the
/// apiserver validates it: `resource`, `name` and `uid` required, each `uid` once, at most 256
/// entries, and only on an allocated claim.
fn reserved_for(list: &At, allocated: bool, sink: &mut Sink) -> Vec<crate::dra::Consumer> {
    if !allocated {
        sink.error(
            list,
            "forbidden",
            "status.reservedFor must be empty while the claim is not allocated",
            "add status.allocation, or drop reservedFor",
        );
    }
    let entries = sink.list(list);
    if entries.len() > MAX_RESERVED_FOR {
        sink.error(list, "too-many", format!("{} reservedFor entries; at most {MAX_RESERVED_FOR}", entries.len()), "fewer consumers");
    }
    let mut out: Vec<crate::dra::Consumer> = Vec::new();
    for e in &entries {
        let resource = required(e, "resource", sink, "\"pods\" for a pod consumer");
        let _ = required(e, "name", sink, "the consumer's name");
        let uid = required(e, "uid", sink, "the consumer's metadata.uid");
        let group = sink.opt_scalar(e, "apiGroup").unwrap_or_default();
        if let (Some(resource), Some(uid)) = (resource, uid) {
            if out.iter().any(|c| c.uid == uid) {
                let at = e.get("uid");
                sink.error(at.as_ref().unwrap_or(e), "duplicate", format!("uid {uid:?} is reserved twice"), "each consumer once");
                continue;
            }
            out.push(crate::dra::Consumer { pod: resource == "pods" && group.is_empty(), uid });
        }
    }
    out
}

/// A ResourceClaim.
pub fn resource_claim(root: &At, sink: &mut Sink) -> Claim {
    let (namespace, name) = name_of(root, sink, true);
    let requests = claim_spec(root.get("spec"), sink);
    let status = root.get("status");
    let allocation = status.as_ref().and_then(|s| s.get("allocation")).map(|a| allocation(&a, sink));
    let reserved = status.as_ref().and_then(|s| s.get("reservedFor"));
    let reserved_for = reserved.map(|r| reserved_for(&r, allocation.is_some(), sink)).unwrap_or_default();
    Claim { namespace, name, requests, allocation, reserved_for }
}

/// A ResourceClaimTemplate (`spec.spec` is the generated claims' spec).
pub fn resource_claim_template(root: &At, sink: &mut Sink) -> Claim {
    let (namespace, name) = name_of(root, sink, true);
    let spec = root.get("spec");
    let inner = spec.as_ref().and_then(|s| s.get("spec"));
    if inner.is_none() {
        sink.error(
            spec.as_ref().unwrap_or(root),
            "required",
            "a ResourceClaimTemplate needs spec.spec",
            "spec: {spec: {devices: {requests: [...]}}}",
        );
    }
    Claim { namespace, name, requests: claim_spec(inner, sink), allocation: None, reserved_for: Vec::new() }
}

fn device(d: &At, sink: &mut Sink) -> Device {
    let name = required(d, "name", sink, "a DNS-1123 label, e.g. \"gpu-0\"").unwrap_or_default();
    if !name.is_empty() && !dns_label(&name) {
        let at = d.get("name");
        sink.error(at.as_ref().unwrap_or(d), "invalid-name", format!("device name {name:?} is not a DNS-1123 label"), "e.g. \"gpu-0\"");
    }
    let mut dev = Device { name, attributes: Vec::new(), capacity: Vec::new() };
    if let Some(attrs) = d.get("attributes") {
        for (k, v) in sink.map(&attrs) {
            if !qualified_name(k) {
                sink.error(
                    &v,
                    "invalid-name",
                    format!("attribute name {k:?} is not a (domain-qualified) C identifier of at most 32 characters"),
                    "e.g. productName or gpu.nvidia.com/productName",
                );
            }
            let set: Vec<&str> = ["int", "bool", "string", "version"].into_iter().filter(|f| v.get(f).is_some()).collect();
            let value = match set.as_slice() {
                ["int"] => v.get("int").and_then(|x| sink.int(&x, "an integer")).map(AttrValue::Int),
                ["bool"] => v.get("bool").and_then(|x| sink.bool(&x)).map(AttrValue::Bool),
                ["string"] => v.get("string").and_then(|x| sink.scalar(&x)).map(|s| {
                    if s.len() > MAX_STRING_ATTRIBUTE {
                        sink.error(
                            &v,
                            "too-long",
                            format!("string attribute {k:?} is {} bytes, at most {MAX_STRING_ATTRIBUTE}", s.len()),
                            "a shorter value",
                        );
                    }
                    AttrValue::Str(s)
                }),
                ["version"] => v.get("version").and_then(|x| sink.scalar(&x)).map(AttrValue::Version),
                _ => {
                    sink.error(
                        &v,
                        "invalid-attribute",
                        format!("attribute {k:?} must set exactly one of int, bool, string and version"),
                        "e.g. {string: \"NVIDIA A10G\"}",
                    );
                    None
                }
            };
            if let Some(value) = value {
                dev.attributes.push((k.to_string(), value));
            }
        }
    }
    if let Some(cap) = d.get("capacity") {
        for (k, v) in sink.map(&cap) {
            if !qualified_name(k) {
                sink.error(
                    &v,
                    "invalid-name",
                    format!("capacity name {k:?} is not a (domain-qualified) C identifier of at most 32 characters"),
                    "e.g. memory",
                );
            }
            if let Some(p) = v.get("requestPolicy") {
                not_modelled(&p, sink, "a capacity requestPolicy (consumable capacity)");
            }
            match v.get("value") {
                Some(q) => {
                    if let Some(q) = sink.quantity(&q) {
                        dev.capacity.push((k.to_string(), q));
                    }
                }
                None => sink.error(&v, "required", format!("capacity {k:?} needs a value"), "value: 40Gi"),
            }
        }
    }
    if dev.attributes.len() + dev.capacity.len() > MAX_ATTRIBUTES_AND_CAPACITIES {
        sink.error(
            d,
            "too-many",
            format!("{} attributes and capacities, at most {MAX_ATTRIBUTES_AND_CAPACITIES}", dev.attributes.len() + dev.capacity.len()),
            "fewer attributes",
        );
    }
    for (field, what) in [
        ("consumesCounters", "a device's consumesCounters (partitionable devices)"),
        ("allowMultipleAllocations", "allowMultipleAllocations (consumable capacity)"),
        ("taints", "device taints"),
        ("bindingConditions", "binding conditions"),
        ("nodeName", "a per-device node selection"),
        ("nodeSelector", "a per-device node selection"),
        ("allNodes", "a per-device node selection"),
    ] {
        if let Some(at) = d.get(field) {
            not_modelled(&at, sink, what);
        }
    }
    dev
}

/// A ResourceSlice; `generation` and `count` of its pool are returned for the completeness check.
pub fn resource_slice(root: &At, sink: &mut Sink) -> (Slice, i64, i64) {
    let (_, name) = name_of(root, sink, false);
    let mut slice = Slice { name, driver: String::new(), pool: String::new(), node: None, devices: Vec::new() };
    let (mut generation, mut count) = (0, 1);
    let Some(spec) = root.get("spec") else {
        sink.error(root, "required", "a ResourceSlice needs a spec", "spec: {driver, pool, nodeName, devices}");
        return (slice, generation, count);
    };
    if let Some(driver) = required(&spec, "driver", sink, "a DNS subdomain of at most 63 characters, e.g. gpu.nvidia.com") {
        if driver.len() > MAX_DRIVER_NAME || !dns_subdomain(&driver) {
            let at = spec.get("driver");
            sink.error(
                at.as_ref().unwrap_or(&spec),
                "invalid-name",
                format!("driver {driver:?} is not a DNS subdomain of at most 63 characters"),
                "e.g. gpu.nvidia.com",
            );
        }
        slice.driver = driver;
    }
    match spec.get("pool") {
        Some(pool) => {
            if let Some(p) = required(&pool, "name", sink, "the pool's name, e.g. the node's name") {
                if p.len() > MAX_POOL_NAME || p.split('/').any(|s| !dns_subdomain(s)) {
                    let at = pool.get("name");
                    sink.error(
                        at.as_ref().unwrap_or(&pool),
                        "invalid-name",
                        format!("pool name {p:?} is not one or more DNS subdomains separated by /"),
                        "e.g. node-1",
                    );
                }
                slice.pool = p;
            }
            generation = pool.get("generation").and_then(|g| sink.int_in(&g, 0, i64::MAX, "a generation of at least 0")).unwrap_or(0);
            count = match pool.get("resourceSliceCount") {
                Some(c) => sink.int_in(&c, 1, i64::MAX, "a resourceSliceCount of at least 1").unwrap_or(1),
                None => {
                    sink.error(&pool, "required", "`resourceSliceCount` is required", "1 for a pool of one slice");
                    1
                }
            };
        }
        None => sink.error(&spec, "required", "`pool` is required", "pool: {name: node-1, generation: 0, resourceSliceCount: 1}"),
    }
    let node_name = sink.opt_scalar(&spec, "nodeName").filter(|s| !s.is_empty());
    let all_nodes = spec.get("allNodes").and_then(|a| sink.bool(&a)).unwrap_or(false);
    let selector = spec.get("nodeSelector");
    let per_device = spec.get("perDeviceNodeSelection").and_then(|a| sink.bool(&a)).unwrap_or(false);
    match (node_name.is_some() as u8) + (all_nodes as u8) + (selector.is_some() as u8) + (per_device as u8) {
        1 => {}
        _ => sink.error(
            &spec,
            "invalid-slice",
            "exactly one of nodeName, nodeSelector, allNodes and perDeviceNodeSelection must be set",
            "nodeName: <the node the devices are on>",
        ),
    }
    if let Some(s) = &selector {
        not_modelled(s, sink, "a ResourceSlice nodeSelector");
    }
    if per_device {
        let at = spec.get("perDeviceNodeSelection");
        not_modelled(at.as_ref().unwrap_or(&spec), sink, "perDeviceNodeSelection");
    }
    slice.node = node_name;
    if let Some(c) = spec.get("sharedCounters") {
        not_modelled(&c, sink, "sharedCounters (partitionable devices)");
    }
    if let Some(devs) = spec.get("devices") {
        let items = sink.list(&devs);
        if items.len() > MAX_DEVICES_PER_SLICE {
            sink.error(
                &devs,
                "too-many",
                format!("{} devices, at most {MAX_DEVICES_PER_SLICE}", items.len()),
                "split the pool into more slices",
            );
        }
        for d in &items {
            let dev = device(d, sink);
            if !dev.name.is_empty() && slice.devices.iter().any(|x| x.name == dev.name) {
                sink.error(d, "duplicate", format!("device name {:?} is used twice in the slice", dev.name), "unique device names");
            }
            slice.devices.push(dev);
        }
    }
    (slice, generation, count)
}

/// Karpenter's pool gathering (dynamicresources/pool.go): only the slices of a pool's newest
/// generation count, and a pool with fewer slices than its `resourceSliceCount` is incomplete
/// and offers nothing. Returns the usable slices, in input order.
pub fn usable_slices(slices: Vec<(Slice, i64, i64)>) -> Vec<Slice> {
    let newest =
        |driver: &str, pool: &str| slices.iter().filter(|(s, _, _)| s.driver == driver && s.pool == pool).map(|(_, g, _)| *g).max();
    let keep: Vec<bool> = slices
        .iter()
        .map(|(s, g, count)| {
            let top = newest(&s.driver, &s.pool);
            let present = slices.iter().filter(|(o, og, _)| o.driver == s.driver && o.pool == s.pool && Some(*og) == top).count() as i64;
            Some(*g) == top && present >= *count
        })
        .collect();
    slices.into_iter().zip(keep).filter(|(_, k)| *k).map(|((s, _, _), _)| s).collect()
}

impl super::Lowering {
    /// Read one resource.k8s.io object. `before`: where this object's errors start in the sink;
    /// the `dra-not-modelled` ones are set aside for `finish_dra`.
    pub(super) fn dra_object(&mut self, root: &At, api: &str, kind: &str, sink: &mut Sink, before: usize) {
        if api != "resource.k8s.io/v1" {
            sink.error(
                root,
                NOT_MODELLED,
                format!("{api} {kind}: nodecast reads resource.k8s.io/v1 only"),
                "apiVersion: resource.k8s.io/v1",
            );
        } else {
            let twice = match kind {
                "DeviceClass" => {
                    let c = device_class(root, sink);
                    let twice = self.dra.class(&c.name).is_some();
                    self.dra.classes.push(c);
                    twice
                }
                "ResourceClaim" => {
                    let c = resource_claim(root, sink);
                    let twice = self.dra.claim(&c.namespace, &c.name).is_some();
                    self.dra.claims.push(c);
                    twice
                }
                "ResourceClaimTemplate" => {
                    let c = resource_claim_template(root, sink);
                    let twice = self.dra.template(&c.namespace, &c.name).is_some();
                    self.dra.templates.push(c);
                    twice
                }
                _ => {
                    let s = resource_slice(root, sink);
                    let twice = self.dra_slices.iter().any(|(o, _, _)| o.name == s.0.name);
                    self.dra_slices.push(s);
                    twice
                }
            };
            if twice {
                let at = root.get("metadata");
                sink.error(
                    at.as_ref().unwrap_or(root),
                    "duplicate",
                    format!("a {kind} of this name is defined twice"),
                    "one object per name",
                );
            }
        }
        let mut i = before;
        while i < sink.errors.len() {
            if sink.errors[i].code == NOT_MODELLED {
                self.dra_unmodelled.push(sink.errors.remove(i));
            } else {
                i += 1;
            }
        }
    }

    /// The DRA objects of the model. With `--ignore-dra-requests=false` they count: their
    /// `skipped` entries go, duplicates and what nodecast does not model are errors. With the
    /// default, Karpenter never reads them and they stay listed as skipped.
    pub(super) fn finish_dra(&mut self, settings: &crate::model::Settings) -> crate::dra::Dra {
        let mut dra = std::mem::take(&mut self.dra);
        dra.slices = usable_slices(std::mem::take(&mut self.dra_slices));
        if settings.ignore_dra_requests {
            return crate::dra::Dra::default();
        }
        self.errors.append(&mut self.dra_unmodelled);
        let skipped = std::mem::take(&mut self.dra_skipped);
        self.skipped.retain(|s| !skipped.iter().any(|(d, k)| *d == s.document && *k == s.kind));
        dra
    }
}
