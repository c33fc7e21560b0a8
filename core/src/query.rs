//! Catalog queries, like ec2-instance-selector: filter instance types by requirements and GPU.

use crate::catalog as cat;
use crate::error::InputError;
use crate::labels::{self, parse_int};
use crate::model::Model;
use crate::quantity::format_milli;
use crate::requirements::{Operator, Requirement, Requirements};
use crate::resources::{CPU, MEMORY};
use crate::scheduling::{it_labels_compatible, offering_compatible};
use serde::{Deserialize, Serialize};

/// The question of `catalog`: which instance types of the catalog match.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct CatalogQuery {
    /// Only types with a GPU or accelerator.
    pub gpu: bool,
    /// `key Op values`, e.g. `karpenter.k8s.aws/instance-gpu-name In a100,h100`, `kubernetes.io/arch In arm64`,
    /// `karpenter.k8s.aws/instance-cpu Gt 8`.
    pub requirements: Vec<String>,
    /// At most this many rows (cheapest first); 0 = all.
    pub limit: usize,
}

/// One instance type of the catalog, as `catalog` lists it.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CatalogRow {
    /// The instance type, e.g. `m5.large`.
    pub name: String,
    /// vCPUs of the machine (capacity, a Kubernetes quantity).
    pub vcpu: String,
    /// Memory of the machine (`instance-memory` label in Mi, else capacity).
    pub memory: String,
    /// `kubernetes.io/arch`: `amd64` or `arm64`.
    pub arch: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The GPU model (`karpenter.k8s.aws/instance-gpu-name`), when it has GPUs.
    pub gpu_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// GPUs on the machine (`karpenter.k8s.aws/instance-gpu-count`).
    pub gpu_count: Option<String>,
    /// Per GPU, MiB.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_memory_mib: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The accelerator model, e.g. `inferentia2` (`karpenter.k8s.aws/instance-accelerator-name`).
    pub accelerator_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// Accelerators on the machine (`karpenter.k8s.aws/instance-accelerator-count`).
    pub accelerator_count: Option<String>,
    /// CPU pods can request: capacity minus reserved and overhead.
    pub allocatable_cpu: String,
    /// Memory pods can request: capacity minus reserved, overhead and eviction threshold.
    pub allocatable_memory: String,
    /// The catalog's on-demand $/h for the type; rows are sorted by it, cheapest first.
    pub on_demand_price_per_hour: f64,
    /// The cheapest spot $/h over the zones; absent when the type has no spot offering.
    pub spot_price_per_hour: Option<f64>,
}

/// The answer of `catalog`: the matching instance types, cheapest on-demand first.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CatalogAnswer {
    /// Which catalog was searched (the embedded AWS region or a custom one).
    pub source: String,
    /// How many rows `instanceTypes` holds (after `limit`).
    pub count: usize,
    /// The matching instance types.
    pub instance_types: Vec<CatalogRow>,
}

/// Parse `key Op v1,v2` (values may also be space-separated or bracketed).
pub(crate) fn parse_requirement(s: &str) -> Result<(String, Operator, Vec<String>), String> {
    let mut parts = s.split_whitespace();
    let key = parts.next().ok_or("empty requirement")?.to_string();
    let op_text = parts.next().ok_or_else(|| format!("{s:?}: missing operator"))?;
    let op = Operator::parse(op_text).ok_or_else(|| format!("{s:?}: unknown operator {op_text:?}"))?;
    let values: Vec<String> =
        parts.flat_map(|p| p.split(',')).map(|v| v.trim_matches(|c| c == '[' || c == ']').to_string()).filter(|v| !v.is_empty()).collect();
    match op {
        Operator::In | Operator::NotIn if values.is_empty() => Err(format!("{s:?}: {op_text} needs values")),
        Operator::Gt | Operator::Lt | Operator::Gte | Operator::Lte if values.len() != 1 || parse_int(&values[0]).is_none() => {
            Err(format!("{s:?}: {op_text} needs one integer"))
        }
        _ => Ok((labels::normalize_key(&key).to_string(), op, values)),
    }
}

/// The instance types of `catalog` (the embedded AWS catalog when `None`) that `q` selects.
pub fn catalog(
    catalog: Option<&serde_json::Value>,
    settings: &crate::model::Settings,
    q: &CatalogQuery,
) -> Result<CatalogAnswer, Vec<InputError>> {
    let (cat, tables) = cat::build(catalog)?;
    let mut m = crate::lower::lower(&[], cat, tables, settings.clone())?;
    let mut reqs = Requirements::new();
    let mut errors = Vec::new();
    for (i, r) in q.requirements.iter().enumerate() {
        match parse_requirement(r) {
            Ok((k, _, _)) if !known_key(&m, &k) => {
                // An unknown key would match nothing (In) or everything (NotIn) without a word;
                // a key written without its prefix is the usual slip.
                let suggestion = m
                    .catalog
                    .label_keys()
                    .iter()
                    .map(|&id| m.interner.str(id))
                    .find(|full| full.rsplit_once('/').is_some_and(|(_, short)| short == k));
                let help = match suggestion {
                    Some(full) => format!("did you mean {full}?"),
                    None => "a label key of the catalog's instance types, e.g. karpenter.k8s.aws/instance-gpu-name".to_string(),
                };
                errors.push(
                    InputError::new("unknown-label-key", format!("{r:?}: no instance type of the catalog has a label {k:?}"))
                        .path(format!("query.requirements[{i}]"))
                        .help(help),
                );
            }
            Ok((k, op, vals)) => {
                let ids: Vec<u32> = vals.iter().map(|v| m.interner.intern(v)).collect();
                let k = m.interner.intern(&k);
                let r = Requirement::from_operator(op, &ids, &m.interner);
                reqs.add(k, r, &m.interner);
            }
            Err(e) => errors.push(
                InputError::new("invalid-requirement", e)
                    .path(format!("query.requirements[{i}]"))
                    .help("key Op values, e.g. kubernetes.io/arch In arm64"),
            ),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let rows = rows(&m, &reqs, q.gpu);
    let mut rows = rows;
    if q.limit > 0 {
        rows.truncate(q.limit);
    }
    Ok(CatalogAnswer { source: m.catalog.source.clone(), count: rows.len(), instance_types: rows })
}

fn known_key(m: &Model, key: &str) -> bool {
    m.interner.get(key).is_some_and(|id| m.catalog.is_label_key(id))
}

fn rows(m: &Model, reqs: &Requirements, gpu: bool) -> Vec<CatalogRow> {
    let label = |it: &cat::InstanceType, k: &str| m.interner.get(k).and_then(|k| it.labels.get(k)).map(|v| m.interner.str(v).to_string());
    let mut out: Vec<(f64, CatalogRow)> = m
        .catalog
        .types
        .iter()
        .filter(|it| it_labels_compatible(it, reqs, m) && it.offerings.iter().any(|o| offering_compatible(o, reqs, m)))
        .filter(|it| {
            !gpu || label(it, "karpenter.k8s.aws/instance-gpu-name").is_some()
                || label(it, "karpenter.k8s.aws/instance-accelerator-name").is_some()
                || m.resources.get("nvidia.com/gpu").is_some_and(|g| it.allocatable.get(g) > 0)
        })
        .map(|it| {
            let spot = it.offerings.iter().filter(|o| o.capacity_type == m.keys.spot).map(|o| o.price).fold(f64::MAX, f64::min);
            (
                it.on_demand_price,
                CatalogRow {
                    name: it.name.clone(),
                    vcpu: format_milli(it.capacity.get(CPU), crate::quantity::Unit::Decimal),
                    memory: label(it, "karpenter.k8s.aws/instance-memory")
                        .map(|v| format!("{v}Mi"))
                        .unwrap_or_else(|| format_milli(it.capacity.get(MEMORY), crate::quantity::Unit::Bytes)),
                    arch: label(it, labels::ARCH).unwrap_or_default(),
                    gpu_name: label(it, "karpenter.k8s.aws/instance-gpu-name"),
                    gpu_count: label(it, "karpenter.k8s.aws/instance-gpu-count"),
                    gpu_memory_mib: label(it, "karpenter.k8s.aws/instance-gpu-memory"),
                    accelerator_name: label(it, "karpenter.k8s.aws/instance-accelerator-name"),
                    accelerator_count: label(it, "karpenter.k8s.aws/instance-accelerator-count"),
                    allocatable_cpu: format_milli(it.allocatable.get(CPU), crate::quantity::Unit::Decimal),
                    allocatable_memory: format_milli(it.allocatable.get(MEMORY), crate::quantity::Unit::Bytes),
                    on_demand_price_per_hour: it.on_demand_price,
                    spot_price_per_hour: (spot < f64::MAX).then(|| crate::price::round_price(spot)),
                },
            )
        })
        .collect();
    out.sort_by(|a, b| a.0.total_cmp(&b.0).then_with(|| a.1.name.cmp(&b.1.name)));
    out.into_iter().map(|(_, r)| r).collect()
}
