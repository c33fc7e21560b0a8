//! nodecast predicts what Karpenter v1 (v1.15.0) would provision and consolidate, offline and
//! deterministically. It has no I/O: no files, network, clock or environment; time is an input.
//!
//! # Load once, ask many times
//!
//! A [`Cluster`] is decoded, validated and lowered once from YAML/JSON manifests (NodePools,
//! EC2NodeClasses, Nodes, Pods and workloads) and the instance-type catalog (the embedded AWS
//! `us-east-1` data by default). Then ask it, as often as you like, without parsing again:
//!
//! - [`Cluster::plan`]: what one provisioning pass launches for the pending pods ([`api::Plan`]);
//! - [`Cluster::consolidate`]: what the disruption controller does at a given time
//!   ([`api::Decision`]);
//! - [`Cluster::explain_pod`], [`Cluster::explain_node`]: why ([`explain::Explanation`]);
//! - [`Cluster::simulate`]: a workload trace replayed over time ([`simulate::Simulation`]).
//!
//! ```
//! use nodecast::{Cluster, Input, Settings};
//!
//! let manifests = r#"
//! apiVersion: karpenter.sh/v1
//! kind: NodePool
//! metadata: {name: default}
//! spec:
//!   template:
//!     spec:
//!       nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
//!       requirements:
//!       - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
//!       - {key: karpenter.k8s.aws/instance-family, operator: In, values: [m5]}
//! ---
//! apiVersion: v1
//! kind: Pod
//! metadata: {name: web}
//! spec:
//!   containers:
//!   - {name: web, image: nginx, resources: {requests: {cpu: "1", memory: 2Gi}}}
//! "#;
//! let inputs = [Input { name: Some("cluster.yaml".into()), text: manifests.into() }];
//! let cluster = Cluster::from_texts(&inputs, &Settings::default()).expect("valid manifests");
//!
//! let plan = cluster.plan();
//! assert_eq!(plan.node_claims[0].instance_type.as_deref(), Some("m5.large"));
//! assert_eq!(plan.node_claims[0].pods, ["default/web"]);
//!
//! // 2025-03-05T12:00:00Z; no node runs yet, so there is nothing to disrupt.
//! let decision = cluster.consolidate(1_741_176_000).expect("every node is labelled");
//! assert!(decision.disrupted_nodes.is_empty());
//! ```
//!
//! Errors are collected, not stopped at: [`Cluster::load`] returns every located problem
//! ([`InputError`]: code, message, document, object, field path, help).
//!
//! # The JSON layer
//!
//! Every front end (the CLI, Python, wasm) speaks the versioned wire format of [`json`]: build a
//! [`Request`], call [`plan()`], [`consolidate()`], [`validate()`], [`explain()`], [`catalog()`]
//! or [`simulate()`] (or [`call`] with the function's name and the request's JSON), and print
//! the [`Answer`] unchanged — the same bytes from every front end.
//!
//! ```
//! let req = nodecast::Request {
//!     inputs: vec![nodecast::Input { name: None, text: "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec: {containers: [{name: c}]}\n".into() }],
//!     ..Default::default()
//! };
//! let answer = nodecast::plan(&req);
//! let json: serde_json::Value = serde_json::from_str(&answer.to_json()).unwrap();
//! assert_eq!(json["status"], "success");
//! assert_eq!(json["unschedulable"][0]["code"], "no-nodepools");
//! ```
//!
//! The engine's inside (catalog, lowering, scheduling, disruption...) is private to the crate;
//! the project's own benches, conformance runner and fuzzers reach the few items they need
//! through a hidden `internal` module, which is not a stable API.

#![warn(missing_docs)]

pub mod advise;
pub mod api;
pub mod capacity_buffers;
pub(crate) mod catalog;
mod cluster;
#[cfg(feature = "cluster-autoscaler")]
pub mod cluster_autoscaler;
#[cfg(feature = "cluster-autoscaler")]
pub mod compare;
pub(crate) mod cron;
pub(crate) mod diagnostics;
pub(crate) mod disruption;
// Reached from outside only through `internal` (not a published API): undocumented items stay so.
#[allow(missing_docs)]
pub(crate) mod dra;
pub(crate) mod edit;
pub mod error;
pub mod explain;
/// Figures a user reads (monthly cost, accelerators, summary lines), computed once.
pub mod figures;
pub(crate) mod fit;
pub(crate) mod fxhash;
pub mod gates;
pub mod gates_aws;
/// Karpenter's NodePool template hash (hashstructure v2), for drift.
pub mod gohash;
pub(crate) mod golang;
/// Checked fix hints for pods that stay pending.
pub mod hints;
#[doc(hidden)]
pub mod internal;
pub mod interrupt;
pub mod json;
// Reached from outside only through `internal` (not a published API): undocumented items stay so.
#[allow(missing_docs)]
pub(crate) mod labels;
pub(crate) mod load;
pub(crate) mod lower;
pub(crate) mod manifest;
/// `nodecast migrate`: NodePools for the node groups, and both autoscalers' plans.
#[cfg(feature = "cluster-autoscaler")]
pub mod migrate;
pub(crate) mod model;
pub mod node_groups;
pub mod optimize;
pub(crate) mod price;
pub(crate) mod provision;
// Reached from outside only through `internal` (not a published API): undocumented items stay so.
#[allow(missing_docs)]
pub(crate) mod quantity;
pub mod query;
pub mod reason;
/// The cloud provider's node repair policies as an input (`settings.repairPolicies`).
pub mod repair_policies;
// Reached from outside only through `internal` (not a published API): undocumented items stay so.
#[allow(missing_docs)]
pub(crate) mod requirements;
pub mod reservation_report;
pub(crate) mod resources;
/// Karpenter's `--scheduler-config` (`settings.schedulerConfig`): default topology spreads.
pub mod scheduler_config;
pub(crate) mod scheduling;
#[cfg(feature = "schema")]
pub mod schema;
pub mod simulate;
pub mod static_pools;
pub mod sweep;
pub(crate) mod taints;
pub mod unusable;
pub(crate) mod validate;
/// The closed sets of answer strings the core builds (pod outcomes, type verdicts, timeline
/// events...), serialised as the wire format's strings.
pub mod vocab;

pub use cluster::Cluster;
pub use error::{Errors, InputError};
pub use json::{
    advise, call, catalog, consolidate, explain, optimize, plan, simulate, validate, Answer, Input, Outcome, Request, FUNCTIONS,
};
pub use load::Sources;
pub use manifest::{decode as decode_documents, Document, MAX_INPUT_BYTES};
/// The default catalog's name (the embedded AWS data).
pub const DEFAULT_CATALOG: &str = catalog::aws::SOURCE;
pub use model::{MinValuesPolicy, PreferencePolicy, Settings};
