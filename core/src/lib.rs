//! nodecast: predict what Karpenter v1 would provision and consolidate, offline and
//! deterministically. No I/O: no files, network, clock or environment; time is an input.
//!
//! One facade serves every front end: build a [`api::Request`], call [`plan`], [`consolidate`],
//! [`validate`], [`explain`], [`catalog`] or [`simulate`], and serialise the [`api::Answer`] it
//! returns.
//!
//! ```
//! let req = nodecast::api::Request {
//!     inputs: vec![nodecast::api::Input { name: None, text: r#"
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
//! "#.into() }],
//!     ..Default::default()
//! };
//! let answer = nodecast::plan(&req);
//! let json: serde_json::Value = serde_json::from_str(&answer.to_json()).unwrap();
//! assert_eq!(json["status"], "success");
//! assert_eq!(json["nodeClaims"][0]["instanceType"], "m5.large");
//! ```

pub mod api;
pub mod catalog;
pub mod cron;
pub mod diagnostics;
pub mod disruption;
pub mod error;
pub mod explain;
pub mod fxhash;
pub mod golang;
pub mod labels;
pub mod manifest;
pub mod model;
pub mod optimize;
pub mod plan;
pub mod quantity;
pub mod query;
pub mod requirements;
pub mod resources;
pub mod scheduling;
pub mod simulate;
pub mod sweep;
pub mod taints;
pub mod validate;

pub use api::{Answer, Input, Request};

/// What one Karpenter provisioning pass would do with the pending pods.
pub fn plan(req: &Request) -> Answer<api::Plan> {
    plan::plan(req)
}

/// Every validation rule (admission and runtime) plus every decoding/lowering error.
pub fn validate(req: &Request) -> Answer<explain::ValidationReport> {
    explain::validate(req)
}

/// Why a pod goes where it goes (and why not elsewhere), or why an instance type was not chosen.
pub fn explain(req: &Request) -> Answer<explain::Explanation> {
    explain::explain(req)
}

/// What Karpenter's disruption controller would do at `request.now`, and why every other node
/// stays.
pub fn consolidate(req: &Request) -> Answer<api::Decision> {
    disruption::consolidate(req)
}

/// Query the instance-type catalog.
pub fn catalog(req: &Request) -> Answer<query::CatalogAnswer> {
    query::catalog(req)
}

/// Replay a workload trace over time (docs/simulate.md): a timeline, per-node and per-pod costs,
/// a summary with the static-cluster comparison, and Karpenter-named time series.
pub fn simulate(req: &Request) -> Answer<simulate::Simulation> {
    simulate::simulate(req)
}

/// The cheapest NodeClaims for the pods Karpenter's plan places, under the same constraints,
/// with a lower bound and the comparison with Karpenter's plan (`optimize` module).
pub fn optimize(req: &Request) -> Answer<optimize::Optimization> {
    optimize::optimize(req)
}

/// The facade functions by name, for bindings that speak JSON: `"plan"`, `"consolidate"`,
/// `"explain"`, `"validate"`, `"catalog"`, `"simulate"`, and the renderings `"simulate-csv"` and
/// `"simulate-prom"` (the series as CSV / Prometheus text; a failure is still the JSON answer),
/// and `"optimize"`.
pub const FUNCTIONS: [&str; 9] =
    ["plan", "consolidate", "explain", "validate", "catalog", "simulate", "simulate-csv", "simulate-prom", "optimize"];

/// JSON in, JSON out: run facade function `function` on a JSON `Request` and return the
/// answer's JSON — the exact bytes `nodecast <function> -o json` prints (without the newline).
/// A request that is not valid JSON for the schema gives a failure answer, never a panic.
pub fn call(function: &str, request_json: &str) -> String {
    let kind = match function {
        "plan" => "Plan",
        "consolidate" => "Decision",
        "explain" => "Explanation",
        "validate" => "Validation",
        "catalog" => "CatalogQuery",
        "simulate" | "simulate-csv" | "simulate-prom" => "Simulation",
        "optimize" => "Optimization",
        other => {
            let e = error::InputError::new("unknown-function", format!("unknown function {other:?}")).help(FUNCTIONS.join(", "));
            return Answer::<()>::failure("Error", vec![e]).to_json();
        }
    };
    let req: Request = match serde_json::from_str(request_json) {
        Ok(r) => r,
        Err(e) => {
            let err = error::InputError::new("invalid-request", format!("the request is not a nodecast/v1 request: {e}")).help(
                "a JSON object with inputs, objects, catalog, settings, now, pod, node, instanceType, query, trace, simulation, optimize",
            );
            return Answer::<()>::failure(kind, vec![err]).to_json();
        }
    };
    match function {
        "plan" => plan(&req).to_json(),
        "consolidate" => consolidate(&req).to_json(),
        "explain" => explain(&req).to_json(),
        "validate" => validate(&req).to_json(),
        "simulate" => simulate(&req).to_json(),
        "optimize" => optimize(&req).to_json(),
        "simulate-csv" | "simulate-prom" => {
            let answer = simulate(&req);
            match &answer.outcome {
                api::Outcome::Success(s) if function == "simulate-csv" => simulate::render_series_csv(s),
                api::Outcome::Success(s) => simulate::render_series_prom(s),
                api::Outcome::Failure { .. } => answer.to_json(),
            }
        }
        _ => catalog(&req).to_json(),
    }
}
