//! EC2NodeClass admission rules EC-01..EC-67 (§6.1–6.3); `spec.kubelet` runtime checks are in
//! `kubelet.rs` (KC-*).

use super::patterns as p;
use super::selectors::{ami_terms, term_list, CAPACITY_RESERVATIONS, SECURITY_GROUPS, SUBNETS};
use super::{get, Ctx};
use serde_json::{Map, Value};

const AMI_FAMILIES: [&str; 7] = ["AL2", "AL2023", "Bottlerocket", "Custom", "Windows2019", "Windows2022", "Windows2025"];
const ENABLED_DISABLED: [&str; 2] = ["enabled", "disabled"];

pub(super) fn validate(cx: &mut Ctx, root: &Map<String, Value>) {
    let Some(spec_v) = get(root, "spec") else {
        cx.required(
            "spec",
            "EC-01",
            "a spec with subnetSelectorTerms, securityGroupSelectorTerms, amiSelectorTerms and role or instanceProfile",
        );
        return;
    };
    let Some(spec) = cx.obj(Some(spec_v), "spec") else {
        return;
    };

    // EC-02..04
    let (has_role, has_profile) = (get(spec, "role").is_some(), get(spec, "instanceProfile").is_some());
    if has_role == has_profile {
        let code = if has_role { "mutually-exclusive" } else { "required" };
        let msg = "must specify exactly one of ['role', 'instanceProfile'] (EC-02)".to_string();
        cx.adm(code, "spec", msg, "either role (an IAM role name) or instanceProfile, not both");
    }
    for (field, id) in [("role", "EC-03"), ("instanceProfile", "EC-04")] {
        let path = format!("spec.{field}");
        if cx.str_(get(spec, field), &path) == Some("") {
            cx.adm("empty-value", &path, format!("{field} cannot be empty ({id})"), &format!("a non-empty {field}"));
        }
    }
    cx.enum_field(get(spec, "amiFamily"), "spec.amiFamily", &AMI_FAMILIES, "EC-05");

    term_list(cx, spec, &SUBNETS);
    term_list(cx, spec, &SECURITY_GROUPS);
    if let Some(terms) = term_list(cx, spec, &CAPACITY_RESERVATIONS) {
        for (tp, t) in terms {
            let path = format!("{tp}.ownerID");
            if let Some(o) = cx.str_(get(t, "ownerID"), &path) {
                if !p::owner_id(o) {
                    cx.pattern("invalid-pattern", &path, o, "^[0-9]{12}$", "EC-32", "a 12-digit AWS account ID");
                }
            }
            cx.enum_field(get(t, "instanceMatchCriteria"), &format!("{tp}.instanceMatchCriteria"), &["open", "targeted"], "EC-32");
        }
    }
    ami_terms(cx, spec);

    if let Some(n) = cx.int(get(spec, "ipPrefixCount"), "spec.ipPrefixCount") {
        cx.range("spec.ipPrefixCount", n, Some(0), Some(i128::from(i32::MAX)), "EC-11");
    }
    cx.enum_field(get(spec, "instanceStorePolicy"), "spec.instanceStorePolicy", &["RAID0"], "EC-12");
    if let Some(c) = cx.obj(get(spec, "cpuOptions"), "spec.cpuOptions") {
        cx.enum_field(get(c, "nestedVirtualization"), "spec.cpuOptions.nestedVirtualization", &ENABLED_DISABLED, "EC-13");
    }
    placement_group(cx, get(spec, "placementGroupSelector"));
    tags(cx, get(spec, "tags"));
    block_devices(cx, get(spec, "blockDeviceMappings"));
    if let Some(m) = cx.obj(get(spec, "metadataOptions"), "spec.metadataOptions") {
        let base = "spec.metadataOptions";
        cx.enum_field(get(m, "httpEndpoint"), &format!("{base}.httpEndpoint"), &ENABLED_DISABLED, "EC-61");
        cx.enum_field(get(m, "httpProtocolIPv6"), &format!("{base}.httpProtocolIPv6"), &ENABLED_DISABLED, "EC-61");
        let hop = format!("{base}.httpPutResponseHopLimit");
        if let Some(n) = cx.int(get(m, "httpPutResponseHopLimit"), &hop) {
            cx.range(&hop, n, Some(1), Some(64), "EC-62");
        }
        cx.enum_field(get(m, "httpTokens"), &format!("{base}.httpTokens"), &["required", "optional"], "EC-63");
    }
    network_interfaces(cx, get(spec, "networkInterfaces"));
    connection_tracking(cx, get(spec, "connectionTracking"));
    // EC-68: free-form at admission; runtime KC-* checks.
    if let Some(k) = cx.obj(get(spec, "kubelet"), "spec.kubelet") {
        super::kubelet::validate(cx, k);
    }
}

/// EC-43.
fn placement_group(cx: &mut Ctx, v: Option<&Value>) {
    let base = "spec.placementGroupSelector";
    let Some(m) = cx.obj(v, base) else { return };
    let name_path = format!("{base}.name");
    if cx.str_(get(m, "name"), &name_path) == Some("") {
        let msg = format!("Invalid value: \"\": {name_path} in body should be at least 1 chars long (EC-43)");
        cx.adm("empty-value", &name_path, msg, "a non-empty placement group name");
    }
    let id_path = format!("{base}.id");
    if let Some(id) = cx.str_(get(m, "id"), &id_path) {
        if !p::exact_id(id, "pg-") {
            cx.pattern("invalid-pattern", &id_path, id, "^pg-[0-9a-z]+$", "EC-43", "an ID such as pg-0123456789abcdef0");
        }
    }
    match (get(m, "name").is_some(), get(m, "id").is_some()) {
        (false, false) => {
            cx.adm("required", base, "expected at least one, got none, ['name', 'id'] (EC-43)".to_string(), "a name or an id")
        }
        (true, true) => {
            cx.adm("mutually-exclusive", base, "'name' and 'id' are mutually exclusive (EC-43)".to_string(), "either name or id")
        }
        _ => {}
    }
}

/// EC-50..EC-55.
fn tags(cx: &mut Ctx, v: Option<&Value>) {
    for (k, _) in cx.str_map(v, "spec.tags") {
        let path = format!("spec.tags[{k}]");
        let restricted = if k.is_empty() {
            cx.adm("invalid-tag", &path, "empty tag keys aren't supported (EC-50)".to_string(), "a non-empty tag key");
            continue;
        } else if k == "eks:eks-cluster-name" {
            ("eks:eks-cluster-name", "EC-51")
        } else if k.starts_with("kubernetes.io/cluster") {
            ("kubernetes.io/cluster/", "EC-52")
        } else if k == "karpenter.sh/nodepool" {
            ("karpenter.sh/nodepool", "EC-53")
        } else if k == "karpenter.sh/nodeclaim" {
            ("karpenter.sh/nodeclaim", "EC-54")
        } else if k == "karpenter.k8s.aws/ec2nodeclass" {
            ("karpenter.k8s.aws/ec2nodeclass", "EC-55")
        } else {
            continue;
        };
        let msg = format!("tag contains a restricted tag matching {} ({})", restricted.0, restricted.1);
        cx.adm("restricted-tag", &path, msg, "a tag key Karpenter does not set itself");
    }
}

/// EC-56..EC-60.
fn block_devices(cx: &mut Ctx, v: Option<&Value>) {
    let base = "spec.blockDeviceMappings";
    let Some(list) = cx.arr(v, base) else { return };
    if !cx.max_items(base, list.len(), 50, "EC-56", "block device mappings") {
        return;
    }
    let mut roots = 0;
    for (i, m) in list.iter().enumerate() {
        let mp = format!("{base}[{i}]");
        let Some(m) = cx.item_obj(m, &mp) else {
            continue;
        };
        if cx.bool_(get(m, "rootVolume"), &format!("{mp}.rootVolume")) == Some(true) {
            roots += 1;
        }
        cx.str_(get(m, "deviceName"), &format!("{mp}.deviceName"));
        let ep = format!("{mp}.ebs");
        let Some(ebs) = cx.obj(get(m, "ebs"), &ep) else {
            continue;
        };
        let snapshot = cx.str_(get(ebs, "snapshotID"), &format!("{ep}.snapshotID"));
        let sp = format!("{ep}.volumeSize");
        if let Some(s) = cx.str_(get(ebs, "volumeSize"), &sp) {
            if !p::volume_size(s) {
                let re = "^((?:[1-9][0-9]{0,3}|[1-4][0-9]{4}|[5][0-8][0-9]{3}|59000)Gi|(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|[6][0-3][0-9]{3}|64000)G|([1-9]||[1-5][0-7]|58)Ti|([1-9]||[1-5][0-9]|6[0-3]|64)T)$";
                cx.pattern(
                    "invalid-pattern",
                    &sp,
                    s,
                    re,
                    "EC-59",
                    "a size such as 20Gi (1Gi..59000Gi), 100G (1G..64000G), up to 58Ti or 64T",
                );
            }
        }
        cx.enum_field(
            get(ebs, "volumeType"),
            &format!("{ep}.volumeType"),
            &["standard", "io1", "io2", "gp2", "sc1", "st1", "gp3"],
            "EC-60",
        );
        for f in ["iops", "throughput"] {
            cx.int(get(ebs, f), &format!("{ep}.{f}"));
        }
        for f in ["encrypted", "deleteOnTermination"] {
            cx.bool_(get(ebs, f), &format!("{ep}.{f}"));
        }
        cx.str_(get(ebs, "kmsKeyID"), &format!("{ep}.kmsKeyID"));
        let rp = format!("{ep}.volumeInitializationRate");
        if let Some(r) = cx.int(get(ebs, "volumeInitializationRate"), &rp) {
            cx.range(&rp, r, Some(100), Some(300), "EC-58");
        }
        if get(ebs, "snapshotID").is_none() && get(ebs, "volumeSize").is_none() {
            let msg = "snapshotID or volumeSize must be defined (EC-57)".to_string();
            cx.adm("invalid-block-device-mapping", &ep, msg, "a volumeSize such as 20Gi, or a snapshotID");
        }
        if get(ebs, "volumeInitializationRate").is_some() && snapshot.unwrap_or("").is_empty() {
            let msg = "snapshotID must be set when volumeInitializationRate is set (EC-58)".to_string();
            cx.adm("invalid-block-device-mapping", &ep, msg, "a non-empty snapshotID, or no volumeInitializationRate");
        }
    }
    if roots > 1 {
        let msg = "must have only one blockDeviceMappings with rootVolume (EC-56)".to_string();
        cx.adm("invalid-block-device-mapping", base, msg, "at most one mapping with rootVolume: true");
    }
}

/// EC-64..EC-66.
fn network_interfaces(cx: &mut Ctx, v: Option<&Value>) {
    let base = "spec.networkInterfaces";
    let Some(list) = cx.arr(v, base) else { return };
    if !cx.max_items(base, list.len(), 150, "EC-64", "network interfaces") {
        return;
    }
    let mut items: Vec<(i128, i128, &str)> = Vec::new();
    let mut complete = true;
    for (i, n) in list.iter().enumerate() {
        let np = format!("{base}[{i}]");
        let Some(n) = cx.item_obj(n, &np) else {
            complete = false;
            continue;
        };
        let int_field = |cx: &mut Ctx, f: &str| -> Option<i128> {
            let fp = format!("{np}.{f}");
            let Some(v) = get(n, f) else {
                cx.required(&fp, "EC-64", "an integer >= 0");
                return None;
            };
            cx.int(Some(v), &fp).filter(|&x| cx.range(&fp, x, Some(0), None, "EC-64"))
        };
        let card = int_field(cx, "networkCardIndex");
        let device = int_field(cx, "deviceIndex");
        let tp = format!("{np}.interfaceType");
        let itype = match get(n, "interfaceType") {
            None => {
                cx.required(&tp, "EC-64", "interface or efa-only");
                None
            }
            Some(v) => cx.enum_field(Some(v), &tp, &["interface", "efa-only"], "EC-64"),
        };
        match (card, device, itype) {
            (Some(c), Some(d), Some(t)) => items.push((c, d, t)),
            _ => complete = false,
        }
    }
    // The CEL rules only run on a list whose items passed the schema.
    if !complete || items.is_empty() {
        return;
    }
    if !items.iter().any(|&(c, d, t)| c == 0 && d == 0 && t == "interface") {
        let msg = "networkInterfaces must include a primary interface with interfaceType='interface' (EC-65)".to_string();
        cx.adm("invalid-network-interfaces", base, msg, "an item with networkCardIndex 0, deviceIndex 0, interfaceType interface");
    }
    let dup_pair = items.iter().enumerate().any(|(i, a)| items[..i].iter().any(|b| a.0 == b.0 && a.1 == b.1));
    let two_efa = items.iter().enumerate().any(|(i, a)| a.2 == "efa-only" && items[..i].iter().any(|b| b.2 == "efa-only" && b.0 == a.0));
    if dup_pair || two_efa {
        let msg = "networkInterfaces must not have duplicate networkCardIndex and deviceIndex pairs, and can have at most one efa device per network card (EC-66)".to_string();
        cx.adm("invalid-network-interfaces", base, msg, "unique (networkCardIndex, deviceIndex) pairs and at most one efa-only per card");
    }
}

/// EC-67 (`spec.connectionTracking`; UNSURE about the location, the spec lists it with the
/// spec-level fields).
fn connection_tracking(cx: &mut Ctx, v: Option<&Value>) {
    let base = "spec.connectionTracking";
    let Some(m) = cx.obj(v, base) else { return };
    let fields = [("tcpEstablishedTimeout", 60, 432_000), ("udpStreamTimeout", 60, 180), ("udpTimeout", 30, 60)];
    let mut any = false;
    for (f, lo, hi) in fields {
        let fp = format!("{base}.{f}");
        if get(m, f).is_some() {
            any = true;
        }
        if let Some(n) = cx.int(get(m, f), &fp) {
            cx.range(&fp, n, Some(lo), Some(hi), "EC-67");
        }
    }
    if !any {
        let msg = "at least one of tcpEstablishedTimeout, udpStreamTimeout, or udpTimeout must be set (EC-67)".to_string();
        cx.adm("required", base, msg, "tcpEstablishedTimeout (60..432000), udpStreamTimeout (60..180) or udpTimeout (30..60)");
    }
}
