//! The JSON layer: today's request/answer wire format (`apiVersion: nodecast/v1`), the only
//! thing the CLI, Python and wasm call. Every function here decodes nothing itself: it reads the
//! [`Request`], asks the typed API ([`crate::Cluster`] and the functions under it) and wraps the
//! typed answer in an [`Answer`] — a tagged union on `status`:
//! `{"status": "success", ...}` or `{"status": "failure", "errors": [...]}`.

use crate::api::{Decision, Plan};
use crate::cluster::Cluster;
use crate::error::{ErrorClass, InputError};
use crate::explain::{Explanation, ValidationReport};
pub use crate::load::Input;
use crate::load::Sources;
use crate::model::Settings;
use crate::query::{CatalogAnswer, CatalogQuery};
use crate::simulate::{SimSettings, Simulation, TraceInput};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The wire format's version, written in every answer.
pub const API_VERSION: &str = "nodecast/v1";

/// What every JSON facade function takes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct Request {
    /// YAML/JSON texts.
    pub inputs: Vec<Input>,
    /// Already-decoded Kubernetes objects (what `yaml.safe_load_all` or a JS object gives).
    pub objects: Vec<Value>,
    /// `"aws-us-east-1"` (default) or a catalog mapping (README, "Catalogs").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub catalog: Option<Value>,
    /// Scheduling settings (feature gates, policies).
    pub settings: Settings,
    /// The clock (RFC 3339) of disruption decisions, and `simulate`'s time 0 when its trace has
    /// no `start`; the core never reads a clock.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub now: Option<String>,
    /// `consolidate`: also the sequence of commands from `now` to this time (RFC 3339),
    /// replayed pass after pass (docs/consolidate-until.md); `simulation` settings apply.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub until: Option<String>,
    /// `explain`: the pod to explain (`name` or `namespace/name`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod: Option<String>,
    /// `explain`: the node to explain.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    /// `explain`: also say why this instance type was or was not chosen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instance_type: Option<String>,
    /// `catalog` queries.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub query: Option<CatalogQuery>,
    /// `simulate`: the workload trace (docs/simulate.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<TraceInput>,
    /// `simulate`: settings (latencies, batching, interruption rate, seed, ...); defaults apply.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub simulation: Option<SimSettings>,
    /// `optimize`: time budget and enumeration limit; defaults apply.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub optimize: Option<crate::optimize::OptimizeSettings>,
    /// `advise`: how many edits to answer and the optimize time budget; defaults apply.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub advise: Option<crate::advise::AdviseSettings>,
    /// `plan`: which autoscaler answers (absent: Karpenter). The CLI sets it to the Cluster
    /// Autoscaler when the inputs describe node groups and no NodePool
    /// ([`wants_cluster_autoscaler`], docs/cluster-autoscaler.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub autoscaler: Option<Autoscaler>,
    /// `simulate`: also run the trace under this autoscaler and answer both side by side
    /// (`cluster-autoscaler`: the node groups of the inputs; kind `Comparison`,
    /// docs/cluster-autoscaler.md "Side by side").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compare: Option<Autoscaler>,
}

/// The node autoscaler a `plan` is asked of.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Autoscaler {
    /// Karpenter v1.15 over the NodePools.
    Karpenter,
    /// The Kubernetes Cluster Autoscaler over the node groups.
    ClusterAutoscaler,
}

/// `{"apiVersion": "nodecast/v1", "kind": K, "status": ..., ...}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Answer<T> {
    /// Always [`API_VERSION`].
    #[serde(rename = "apiVersion")]
    pub api_version: &'static str,
    /// `Plan`, `Decision`, `Explanation`, `Validation`, `CatalogQuery`, `Simulation`, `Error`.
    pub kind: &'static str,
    /// A failure's class (`invalid` or `unusable`), computed once from the errors' kinds: the
    /// CLI's exit code (1 or 2) and Python's exception (`ValidationError` or `InputError`) are
    /// read from it. Absent on success. Added within `nodecast/v1`: an optional field more is a
    /// compatible change (Kubernetes' API convention), so the version is not bumped.
    #[serde(rename = "errorClass", skip_serializing_if = "Option::is_none")]
    pub error_class: Option<ErrorClass>,
    /// The body (success) or the errors (failure).
    #[serde(flatten)]
    pub outcome: Outcome<T>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "status", rename_all = "lowercase")]
/// `status: success` with the body's fields, or `status: failure` with `errors`.
pub enum Outcome<T> {
    /// The answer.
    Success(T),
    /// Why there is none.
    Failure {
        /// Every problem found, located.
        errors: Vec<InputError>,
    },
}

impl<T: Serialize> Answer<T> {
    /// A success of `kind`.
    pub fn success(kind: &'static str, body: T) -> Self {
        Answer { api_version: API_VERSION, kind, error_class: None, outcome: Outcome::Success(body) }
    }

    /// A failure of `kind`.
    pub fn failure(kind: &'static str, mut errors: Vec<InputError>) -> Self {
        // The class is of every error found; only the report is capped.
        let class = ErrorClass::of(&errors);
        crate::error::cap_errors(&mut errors);
        Answer { api_version: API_VERSION, kind, error_class: Some(class), outcome: Outcome::Failure { errors } }
    }

    /// Whether the answer is a success.
    pub fn is_success(&self) -> bool {
        matches!(self.outcome, Outcome::Success(_))
    }

    /// Pretty JSON; the same bytes from every front end.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| {
            format!("{{\"errorClass\":\"unusable\",\"status\":\"failure\",\"errors\":[{{\"code\":\"internal\",\"message\":\"{e}\"}}]}}")
        })
    }

    /// [`Self::to_json`]'s bytes written to `w` as they are produced, so a large answer (tens
    /// of MB for 20,000 pods) is never held whole in memory. `w` should be buffered. Unlike
    /// `to_json`, a serialisation error is returned (after part of the answer was written)
    /// rather than replaced by an internal-error answer.
    pub fn write_json<W: std::io::Write>(&self, w: &mut W) -> std::io::Result<()> {
        serde_json::to_writer_pretty(w, self).map_err(std::io::Error::from)
    }
}

impl Request {
    /// The parts a cluster is loaded from.
    pub fn sources(&self) -> Sources<'_> {
        Sources { inputs: &self.inputs, objects: &self.objects, catalog: self.catalog.as_ref(), settings: &self.settings }
    }
}

fn answer<T: Serialize>(kind: &'static str, r: Result<T, Vec<InputError>>) -> Answer<T> {
    match r {
        Ok(body) => Answer::success(kind, body),
        Err(errors) => Answer::failure(kind, errors),
    }
}

/// What one Karpenter provisioning pass would do with the pending pods.
/// With `now`, the pass happens at that time (reservations' EndDates, docs/reservations.md).
pub fn plan(req: &Request) -> Answer<Plan> {
    let r = optional_now(req).and_then(|now| Ok(Cluster::load(&req.sources())?.plan_at(now)));
    answer("Plan", r)
}

/// Whether a `plan` should be answered by the Cluster Autoscaler: asked for, or (no autoscaler
/// given) chosen by the documents — node groups and no NodePool. Front ends that render both
/// answers (the CLI) ask this and set `autoscaler` accordingly.
#[cfg(feature = "cluster-autoscaler")]
pub fn wants_cluster_autoscaler(req: &Request) -> bool {
    match req.autoscaler {
        Some(a) => a == Autoscaler::ClusterAutoscaler,
        None => crate::cluster_autoscaler::chosen_by_documents(&req.sources()),
    }
}

/// What the Cluster Autoscaler's scale-up does with the pending pods over the node groups of
/// the inputs (`cluster_autoscaler`).
#[cfg(feature = "cluster-autoscaler")]
pub fn plan_node_groups(req: &Request) -> Answer<crate::cluster_autoscaler::NodeGroupPlan> {
    answer("NodeGroupPlan", crate::cluster_autoscaler::plan_request(&req.sources()))
}

/// What the Cluster Autoscaler's scale-down does at `now` with the nodes of the node groups of
/// the inputs (`cluster_autoscaler::scale_down_request`).
#[cfg(feature = "cluster-autoscaler")]
pub fn scale_down_node_groups(req: &Request) -> Answer<crate::cluster_autoscaler::NodeGroupScaleDown> {
    let r = parse_now(req.now.as_deref()).and_then(|now| crate::cluster_autoscaler::scale_down_request(&req.sources(), now));
    answer("NodeGroupScaleDown", r)
}

/// NodePools and EC2NodeClass skeletons equivalent to the node groups of the inputs, with the
/// Cluster Autoscaler's and Karpenter's plans for the pending pods (`migrate`).
#[cfg(feature = "cluster-autoscaler")]
pub fn migrate(req: &Request) -> Answer<crate::migrate::Migration> {
    answer("Migration", crate::migrate::migrate_request(&req.sources()))
}

/// The request's `now` when it has one.
fn optional_now(req: &Request) -> Result<Option<i64>, Vec<InputError>> {
    req.now.as_deref().map(|n| parse_now(Some(n))).transpose()
}

/// [`plan`] without fix hints, for callers that keep only the plan's figures (sweep rows).
pub(crate) fn plan_without_hints(req: &Request) -> Answer<Plan> {
    let r = optional_now(req)
        .and_then(|now| Ok(Cluster::load(&req.sources())?.plan_with_at(crate::provision::RenderOptions { hints: false }, now)));
    answer("Plan", r)
}

/// NodePool edits that make Karpenter's own plan cheaper, each verified by re-planning
/// (`advise` module).
pub fn advise(req: &Request) -> Answer<crate::advise::Advice> {
    let settings = req.advise.clone().unwrap_or_default();
    answer("Advice", optional_now(req).and_then(|now| Cluster::load(&req.sources())?.advise_at(&settings, now)))
}

/// Every validation rule (admission and runtime) plus every decoding/lowering error.
pub fn validate(req: &Request) -> Answer<ValidationReport> {
    answer("Validation", crate::explain::validate(&req.sources()))
}

/// Why a pod goes where it goes (and why not elsewhere), or why an instance type was not
/// chosen; with `node`, why that node is disrupted or stays at `now`.
pub fn explain(req: &Request) -> Answer<Explanation> {
    let r =
        Cluster::load(&req.sources()).and_then(|c| match (req.node.as_deref(), req.pod.as_deref()) {
            (Some(node), _) => {
                let now = parse_now(req.now.as_deref())?;
                let until = parse_until(req.until.as_deref())?;
                c.explain_node_over(node, now, until, req.simulation.as_ref())
            }
            (None, Some(pod)) => c.explain_pod_at(pod, req.instance_type.as_deref(), optional_now(req)?),
            (None, None) => Err(vec![InputError::new("required", "explain needs a pod or a node")
                .help("--pod NAME (or namespace/name), or --node NAME with --now")]),
        });
    answer("Explanation", r)
}

/// What Karpenter's disruption controller would do at `request.now`, and why every other node
/// stays.
pub fn consolidate(req: &Request) -> Answer<Decision> {
    let r = parse_now(req.now.as_deref()).and_then(|now| {
        let until = parse_until(req.until.as_deref())?;
        let c = Cluster::load(&req.sources())?;
        let mut d = c.consolidate_at(now, req.now.as_deref().unwrap_or_default())?;
        if let Some((until, text)) = until {
            d.sequence = Some(c.consolidation_sequence(now, until, &text, req.simulation.as_ref())?);
        }
        Ok(d)
    });
    answer("Decision", r)
}

/// The request's `until` (RFC 3339) as Unix seconds and its text, when given.
fn parse_until(until: Option<&str>) -> Result<Option<(i64, String)>, Vec<InputError>> {
    let Some(u) = until else { return Ok(None) };
    let t = crate::disruption::parse_now(Some(u)).map_err(|errs| {
        errs.into_iter()
            .map(|mut e| {
                e.message = e.message.replacen("now ", "until ", 1);
                e.path("until")
            })
            .collect::<Vec<_>>()
    })?;
    Ok(Some((t, u.to_string())))
}

/// Query the instance-type catalog.
pub fn catalog(req: &Request) -> Answer<CatalogAnswer> {
    let q = req.query.clone().unwrap_or_default();
    answer("CatalogQuery", crate::query::catalog(req.catalog.as_ref(), &req.settings, &q))
}

/// Replay a workload trace over time (docs/simulate.md): a timeline, per-node and per-pod costs,
/// a summary with the static-cluster comparison, and Karpenter-named time series.
pub fn simulate(req: &Request) -> Answer<Simulation> {
    let r =
        optional_now(req).and_then(|now| crate::simulate::simulate_from(&req.sources(), req.trace.as_ref(), req.simulation.as_ref(), now));
    answer("Simulation", r)
}

/// The trace simulated under the node groups and the Cluster Autoscaler, and under NodePools
/// and Karpenter (the inputs', or `migrate`'s proposal), side by side (`compare`).
#[cfg(feature = "cluster-autoscaler")]
pub fn compare(req: &Request) -> Answer<crate::compare::Comparison> {
    let r = match req.compare {
        Some(Autoscaler::ClusterAutoscaler) => crate::compare::compare(&req.sources(), req.trace.as_ref(), req.simulation.as_ref()),
        _ => Err(vec![compare_karpenter()]),
    };
    answer("Comparison", r)
}

#[cfg(feature = "cluster-autoscaler")]
fn compare_karpenter() -> InputError {
    InputError::new("invalid-value", "compare: karpenter is what simulate runs already; compare with cluster-autoscaler")
        .path("compare")
        .help("cluster-autoscaler")
}

/// The cheapest NodeClaims for the pods Karpenter's plan places, under the same constraints,
/// with a lower bound and the comparison with Karpenter's plan (`optimize` module).
pub fn optimize(req: &Request) -> Answer<crate::optimize::Optimization> {
    let settings = req.optimize.clone().unwrap_or_default();
    answer("Optimization", optional_now(req).and_then(|now| Cluster::load(&req.sources())?.optimize_at(&settings, now)))
}

/// The clock of a request (RFC 3339) as Unix seconds; required.
pub fn parse_now(now: Option<&str>) -> Result<i64, Vec<InputError>> {
    crate::disruption::parse_now(now)
}

/// The facade functions by name, for bindings that speak JSON: `"plan"`, `"consolidate"`,
/// `"explain"`, `"validate"`, `"catalog"`, `"simulate"`, and the renderings `"simulate-csv"` and
/// `"simulate-prom"` (the series as CSV / Prometheus text; a failure is still the JSON answer),
/// `"optimize"` and `"advise"`.
pub const FUNCTIONS: [&str; 10] =
    ["plan", "consolidate", "explain", "validate", "catalog", "simulate", "simulate-csv", "simulate-prom", "optimize", "advise"];

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
        "advise" => "Advice",
        "migrate" => "Migration",
        other => {
            let e = InputError::new("unknown-function", format!("unknown function {other:?}")).help(FUNCTIONS.join(", "));
            return Answer::<()>::failure("Error", vec![e]).to_json();
        }
    };
    let req: Request = match serde_json::from_str(request_json) {
        Ok(r) => r,
        Err(e) => {
            let err = InputError::new("invalid-request", format!("the request is not a nodecast/v1 request: {e}"))
                .help(
                "a JSON object with inputs, objects, catalog, settings, now, pod, node, instanceType, query, trace, simulation, optimize, advise, autoscaler, compare",
            );
            return Answer::<()>::failure(kind, vec![err]).to_json();
        }
    };
    match function {
        // Only when asked: `plan` and `consolidate` answer a Plan and a Decision otherwise, which
        // Python's and wasm's typed functions expect; the CLI asks when the documents choose
        // (`wants_cluster_autoscaler`), Python through plan_node_groups/consolidate_node_groups.
        #[cfg(feature = "cluster-autoscaler")]
        "plan" if req.autoscaler == Some(Autoscaler::ClusterAutoscaler) => plan_node_groups(&req).to_json(),
        #[cfg(not(feature = "cluster-autoscaler"))]
        "plan" if req.autoscaler == Some(Autoscaler::ClusterAutoscaler) => {
            let err = InputError::new(
                "not-available",
                "this build of nodecast leaves the Cluster Autoscaler out (the wasm package does, for its size budget)".to_string(),
            )
            .path("autoscaler")
            .help("plan node groups with the CLI (`nodecast plan --autoscaler cluster-autoscaler`) or the Rust crate");
            Answer::<()>::failure("NodeGroupPlan", vec![err]).to_json()
        }
        #[cfg(feature = "cluster-autoscaler")]
        "consolidate" if req.autoscaler == Some(Autoscaler::ClusterAutoscaler) => scale_down_node_groups(&req).to_json(),
        #[cfg(not(feature = "cluster-autoscaler"))]
        "consolidate" if req.autoscaler == Some(Autoscaler::ClusterAutoscaler) => {
            let err = InputError::new(
                "not-available",
                "this build of nodecast leaves the Cluster Autoscaler out (the wasm package does, for its size budget)".to_string(),
            )
            .path("autoscaler")
            .help("scale node groups down with the CLI (`nodecast consolidate --autoscaler cluster-autoscaler`) or the Rust crate");
            Answer::<()>::failure("NodeGroupScaleDown", vec![err]).to_json()
        }
        #[cfg(feature = "cluster-autoscaler")]
        "migrate" => migrate(&req).to_json(),
        #[cfg(not(feature = "cluster-autoscaler"))]
        "migrate" => {
            let err = InputError::new(
                "not-available",
                "this build of nodecast leaves the Cluster Autoscaler out (the wasm package does, for its size budget)".to_string(),
            )
            .help("migrate node groups with the CLI (`nodecast migrate`), Python or the Rust crate");
            Answer::<()>::failure("Migration", vec![err]).to_json()
        }
        #[cfg(feature = "cluster-autoscaler")]
        "simulate" if req.compare.is_some() => compare(&req).to_json(),
        #[cfg(not(feature = "cluster-autoscaler"))]
        "simulate" if req.compare.is_some() => {
            let err = InputError::new(
                "not-available",
                "this build of nodecast leaves the Cluster Autoscaler out (the wasm package does, for its size budget)".to_string(),
            )
            .path("compare")
            .help("compare with the CLI (`nodecast simulate --compare cluster-autoscaler`), Python or the Rust crate");
            Answer::<()>::failure("Comparison", vec![err]).to_json()
        }
        "simulate-csv" | "simulate-prom" if req.compare.is_some() => {
            let err = InputError::new("not-available", format!("{function} renders one run's series; a comparison has two"))
                .path("compare")
                .help("simulate with compare answers JSON (kind Comparison) with both runs' series");
            Answer::<()>::failure("Simulation", vec![err]).to_json()
        }
        "plan" => plan(&req).to_json(),
        "consolidate" => consolidate(&req).to_json(),
        "explain" => explain(&req).to_json(),
        "validate" => validate(&req).to_json(),
        "simulate" => simulate(&req).to_json(),
        "optimize" => optimize(&req).to_json(),
        "advise" => advise(&req).to_json(),
        "simulate-csv" | "simulate-prom" => {
            let answer = simulate(&req);
            match &answer.outcome {
                Outcome::Success(s) if function == "simulate-csv" => crate::simulate::render_series_csv(s),
                Outcome::Success(s) => crate::simulate::render_series_prom(s),
                Outcome::Failure { .. } => answer.to_json(),
            }
        }
        _ => catalog(&req).to_json(),
    }
}
