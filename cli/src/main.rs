//! `nodecast`: the command-line front end of the nodecast core.
//!
//! Every subcommand builds one `nodecast::Request`, calls the matching facade function and
//! prints the answer: `-o json` prints `answer.to_json()` unchanged (the same bytes as the other
//! front ends), the default table output renders it for people.
//!
//! Exit codes, the same for every subcommand: 0 answered (unschedulable pods are an answer, not a
//! failure), 1 invalid input (every error is a validation error of an input object), 2 unusable
//! input (unreadable files, syntax errors, bad catalog, query or trace, ...). The core decides
//! 1 vs 2 once: the failure answer's `errorClass`.

mod advise;
mod ca;
mod live;
mod optimize;
mod out;
#[cfg(feature = "parquet")]
mod parquet_out;
mod render;
mod sweep;
mod table;

use clap::{Args, Parser, Subcommand, ValueEnum};
use nodecast::error::{ErrorClass, InputError};
use nodecast::query::CatalogQuery;
use nodecast::{Answer, Input, Outcome, Request};
use nodecast::{MinValuesPolicy, PreferencePolicy};
use serde_json::{Map, Value};
use std::io::{Read, Write};
use std::process::ExitCode;

/// Exit code: answered.
const OK: u8 = 0;
/// Exit code: the input cannot be used (also for problems the CLI finds itself). A failure
/// answer's exit code is its `errorClass`'s: `ErrorClass::exit_code`.
const UNUSABLE: u8 = 2;

/// Predict what Karpenter v1 provisions, offline and deterministically.
#[derive(Parser, Debug)]
#[command(
    name = "nodecast",
    version,
    propagate_version = true,
    after_help = "Exit codes: 0 answered (unschedulable pods are an answer, not a failure), 1 invalid input (validation errors only), 2 unusable input, 3 the output could not be written (disk full, I/O error), 141 stdout's reader closed the pipe.\nFILE `-` reads stdin."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// What one provisioning pass would do with the pending pods: NodeClaims, placements on
    /// existing nodes, unschedulable pods, NodePool limits and cost.
    Plan(PlanArgs),
    /// What Karpenter's disruption controller would do now (delete / replace nodes) and why
    /// every other node stays.
    Consolidate(ConsolidateArgs),
    /// Why a pod goes where it goes (and why not elsewhere), or why a node is not disrupted.
    Explain(ExplainArgs),
    /// Check the input against every validation rule; errors are located (exit 1).
    Validate(ValidateArgs),
    /// Query the instance-type catalog (like ec2-instance-selector).
    Catalog(CatalogArgs),
    /// Replay a workload trace over simulated time: every NodeClaim launched and terminated,
    /// every pod's wait, the cost of every minute, and the static cluster it is compared with.
    Simulate(SimulateArgs),
    /// Capacity-planning sweep: plan/consolidate/simulate every combination of a spec's
    /// variants, grid, traces and seeds; one CSV row of metrics each.
    Sweep(sweep::SweepArgs),
    /// The cheapest NodeClaims for the pods Karpenter's plan places, under the same
    /// constraints, with a lower bound, beside Karpenter's plan and its gap per month.
    Optimize(optimize::OptimizeArgs),
    /// NodePool edits (bounds, exclusions, spot, weights, splits) that make Karpenter's own plan
    /// cheaper, each verified by planning again: ranked, with the YAML diff and $/month saved.
    Advise(advise::AdviseArgs),
    /// NodePools and EC2NodeClass skeletons equivalent to eksctl/Terraform node groups, and the
    /// Cluster Autoscaler's and Karpenter's plans for the pending pods side by side.
    Migrate(MigrateArgs),
}

/// Options shared by every subcommand.
#[derive(Args, Debug, Clone)]
pub struct Common {
    /// A JSON/YAML file holding a catalog mapping, or a catalog name: `aws-us-east-1` (the default), `aws-cn-north-1`, `aws-us-gov-east-1`, `aws-us-gov-west-1`, or `aws-<region>` with that region's on-demand prices in the inputs.
    #[arg(long, value_name = "FILE_OR_NAME")]
    catalog: Option<String>,
    /// Zones offered by the catalog, comma-separated (e.g. us-east-1a,us-east-1b).
    #[arg(long, value_name = "ZONES", value_delimiter = ',')]
    zones: Option<Vec<String>>,
    /// Spot price as a fraction of the on-demand price (default 0.3).
    #[arg(long, value_name = "F", allow_negative_numbers = true)]
    spot_price_factor: Option<f64>,
    /// Output format.
    #[arg(short = 'o', long, value_enum, default_value_t = Output::Table)]
    output: Output,
}

/// Karpenter's scheduling policies: only the subcommands that schedule pods take them (a
/// catalog query or validation would silently ignore them).
#[derive(Args, Debug, Clone, Default)]
pub struct Policies {
    /// Karpenter's MIN_VALUES_POLICY.
    #[arg(long, value_enum, ignore_case = true, value_name = "POLICY")]
    min_values_policy: Option<MinValues>,
    /// Karpenter's preference policy (preferred affinities and ScheduleAnyway spreads).
    #[arg(long, value_enum, ignore_case = true, value_name = "POLICY")]
    preference_policy: Option<Preference>,
}

/// Karpenter's feature gates and its --ignore-dra-requests flag (docs/feature-gates.md): the
/// subcommands whose decisions a gate changes take them.
#[derive(Args, Debug, Clone, Default)]
pub struct Gates {
    /// Karpenter's --feature-gates, e.g. NodeOverlay=true, StaticCapacity=true or
    /// ReservedCapacity=false (Karpenter v1.15's defaults otherwise). A gate nodecast does not
    /// model may only keep its default.
    #[arg(long, value_name = "GATE=BOOL,...")]
    pub feature_gates: Option<String>,
    /// Karpenter's --ignore-dra-requests (default true: pods with resource claims are refused);
    /// false runs Karpenter's DRA allocator over the input's resource.k8s.io objects.
    #[arg(long, value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub ignore_dra_requests: Option<bool>,
    /// The AWS provider's --aws-feature-gates, e.g. DRANVIDIAGPU=true (new GPU nodes offer
    /// their GPUs to the DRA allocator) or DRAEFA=true; all off by default.
    #[arg(long, value_name = "GATE=BOOL,...")]
    pub aws_feature_gates: Option<String>,
    /// The cloud provider's node repair policies (YAML/JSON list, docs/feature-gates.md
    /// "NodeRepair") in place of the AWS provider's.
    #[arg(long, value_name = "FILE")]
    pub repair_policies: Option<String>,
    /// Karpenter's --scheduler-config document (YAML/JSON file): podTopologySpread
    /// defaultConstraints for pods without spreads of their own (docs/cli.md).
    #[arg(long, value_name = "FILE")]
    pub scheduler_config: Option<String>,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum AutoscalerArg {
    Karpenter,
    ClusterAutoscaler,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Output {
    Table,
    Json,
}

#[derive(ValueEnum, Clone, Copy, Debug)]
enum MinValues {
    #[value(name = "Strict")]
    Strict,
    #[value(name = "BestEffort")]
    BestEffort,
}

#[derive(ValueEnum, Clone, Copy, Debug)]
enum Preference {
    #[value(name = "Respect")]
    Respect,
    #[value(name = "Ignore")]
    Ignore,
}

#[derive(Args, Debug)]
struct PlanArgs {
    /// Kubernetes manifests (YAML or JSON, many documents each), and `aws ec2
    /// describe-capacity-reservations` output; `-` reads stdin.
    #[arg(value_name = "FILE")]
    files: Vec<String>,
    /// The time of the pass (RFC 3339): a capacity block within 40 minutes of its EndDate is
    /// not launched into, a reservation past its EndDate is gone. Default: none with files; the
    /// time of the read with --context (recorded in --snapshot, so its replay uses it too).
    #[arg(long, value_name = "RFC3339")]
    now: Option<String>,
    /// Which autoscaler answers: Karpenter over the NodePools, or the Cluster Autoscaler over
    /// the node groups of eksctl/Terraform inputs (docs/cluster-autoscaler.md). Default: the
    /// Cluster Autoscaler when the inputs hold node groups and no NodePool.
    #[arg(long, value_enum, value_name = "AUTOSCALER")]
    autoscaler: Option<AutoscalerArg>,
    #[command(flatten)]
    policies: Policies,
    /// ReservedCapacity, NodeOverlay, StaticCapacity and CapacityBuffer change what a
    /// provisioning pass does.
    #[command(flatten)]
    gates: Gates,
    #[command(flatten)]
    common: Common,
    #[command(flatten)]
    live: live::LiveArgs,
}

#[derive(Args, Debug)]
#[command(group(clap::ArgGroup::new("subject").required(true).args(["pod", "node"])))]
struct ExplainArgs {
    /// Kubernetes manifests (YAML or JSON, many documents each); `-` reads stdin.
    #[arg(value_name = "FILE")]
    files: Vec<String>,
    /// The pod to explain (`name` or `namespace/name`; a pending pod of a Deployment or Job is
    /// `<name>-<n>`).
    #[arg(long, value_name = "NAME")]
    pod: Option<String>,
    /// Also say why this instance type was or was not chosen.
    #[arg(long, value_name = "TYPE")]
    instance_type: Option<String>,
    /// Explain why a node is or is not disrupted at --now.
    #[arg(long, value_name = "NAME", conflicts_with = "pod")]
    node: Option<String>,
    /// The clock for --node (RFC 3339, e.g. 2025-03-05T12:00:00Z).
    #[arg(long, value_name = "RFC3339")]
    now: Option<String>,
    /// For a node the pass at --now did not evaluate: follow the passes up to this time
    /// (default: one day after --now) to say when it goes (docs/consolidate-until.md).
    #[arg(long, value_name = "RFC3339", requires = "node")]
    until: Option<String>,
    #[command(flatten)]
    policies: Policies,
    #[command(flatten)]
    gates: Gates,
    #[command(flatten)]
    common: Common,
    #[command(flatten)]
    live: live::LiveArgs,
}

#[derive(Args, Debug)]
struct ConsolidateArgs {
    /// Kubernetes manifests: NodePools, Nodes/NodeClaims, the pods bound to them, PDBs, ...
    #[arg(value_name = "FILE")]
    files: Vec<String>,
    /// The clock (RFC 3339, e.g. 2025-03-05T12:00:00Z): consolidateAfter, budgets and expiry
    /// are evaluated at this time. Required with files (nodecast never reads the system clock
    /// for them); reading a cluster, the default is the time it was read.
    #[arg(long, value_name = "RFC3339")]
    now: Option<String>,
    /// Also the sequence of commands the disruption controller carries out from --now to this
    /// time, pass after pass, with budgets, consolidateAfter and replacements' start-up
    /// (docs/consolidate-until.md).
    #[arg(long, value_name = "RFC3339")]
    until: Option<String>,
    /// Which autoscaler answers: Karpenter's disruption controller over the NodePools, or the
    /// Cluster Autoscaler's scale-down over the node groups of eksctl/Terraform inputs
    /// (docs/cluster-autoscaler.md). Default: the Cluster Autoscaler when the inputs hold node
    /// groups and no NodePool.
    #[arg(long, value_enum, value_name = "AUTOSCALER")]
    autoscaler: Option<AutoscalerArg>,
    #[command(flatten)]
    policies: Policies,
    #[command(flatten)]
    gates: Gates,
    #[command(flatten)]
    common: Common,
    #[command(flatten)]
    live: live::LiveArgs,
}

#[derive(Args, Debug)]
struct MigrateArgs {
    /// The node groups (eksctl ClusterConfig, terraform show -json), the Cluster Autoscaler's
    /// settings and priority ConfigMap, and the workloads; `-` reads stdin.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<String>,
    /// Print only the proposed NodePools and EC2NodeClasses (YAML to apply).
    #[arg(long, conflicts_with = "output")]
    yaml: bool,
    #[command(flatten)]
    gates: Gates,
    #[command(flatten)]
    common: Common,
}

#[derive(Args, Debug)]
struct ValidateArgs {
    /// Kubernetes manifests (YAML or JSON, many documents each); `-` reads stdin.
    #[arg(value_name = "FILE")]
    files: Vec<String>,
    #[command(flatten)]
    common: Common,
    #[command(flatten)]
    live: live::LiveArgs,
}

#[derive(Args, Debug)]
struct CatalogArgs {
    /// Only instance types with a GPU or another accelerator.
    #[arg(long)]
    gpu: bool,
    /// `key Op values`, repeatable, e.g. 'karpenter.k8s.aws/instance-gpu-name In a100,h100',
    /// 'kubernetes.io/arch In arm64', 'karpenter.k8s.aws/instance-cpu Gt 8'.
    #[arg(long = "requirement", short = 'r', value_name = "'KEY OP VALUES'")]
    requirements: Vec<String>,
    /// At most N rows, cheapest first (0 = all).
    #[arg(long, value_name = "N", default_value_t = 0)]
    limit: usize,
    #[command(flatten)]
    common: Common,
}

#[derive(Args, Debug)]
struct SimulateArgs {
    /// Cluster manifests: NodePools, EC2NodeClasses, DaemonSets, PDBs, Nodes, and the workloads
    /// the trace submits by reference.
    #[arg(value_name = "CLUSTER")]
    files: Vec<String>,
    /// The workload trace (YAML/JSON `kind: Trace`, or CSV `time,workload,replicas,runTime`).
    #[arg(long, value_name = "TRACE", required = true)]
    trace: String,
    /// Random seed (start-up latencies, run-time distributions, spot interruptions).
    #[arg(long, value_name = "N")]
    seed: Option<u64>,
    /// Time 0 of the simulation (RFC 3339) when the trace gives no `start`. Default: the time
    /// of the read with --context (recorded in --snapshot), else the trace's own clock.
    #[arg(long, value_name = "RFC3339")]
    now: Option<String>,
    /// Karpenter's --feature-gates for the disruption passes, e.g. SpotToSpotConsolidation=true.
    #[arg(long, value_name = "GATE=BOOL,...")]
    feature_gates: Option<String>,
    /// The cloud provider's node repair policies (YAML/JSON list) in place of the AWS provider's.
    #[arg(long, value_name = "FILE")]
    repair_policies: Option<String>,
    /// Karpenter's --scheduler-config document (YAML/JSON file): default topology spreads.
    #[arg(long, value_name = "FILE")]
    scheduler_config: Option<String>,
    /// Simulation settings (YAML/JSON mapping, docs/simulate.md); --seed overrides its seed.
    #[arg(long, value_name = "FILE")]
    settings: Option<String>,
    /// Output: a readable summary, the JSON answer, or the metric series as CSV / Prometheus text.
    #[arg(short = 'o', long, value_enum, default_value_t = SimOutput::Text)]
    output: SimOutput,
    /// A JSON/YAML file holding a catalog mapping, or a catalog name: `aws-us-east-1` (the default), `aws-cn-north-1`, `aws-us-gov-east-1`, `aws-us-gov-west-1`, or `aws-<region>` with that region's on-demand prices in the inputs.
    #[arg(long, value_name = "FILE_OR_NAME")]
    catalog: Option<String>,
    /// Zones offered by the catalog, comma-separated (e.g. us-east-1a,us-east-1b).
    #[arg(long, value_name = "ZONES", value_delimiter = ',')]
    zones: Option<Vec<String>>,
    /// Spot price as a fraction of the on-demand price (default 0.3).
    #[arg(long, value_name = "F", allow_negative_numbers = true)]
    spot_price_factor: Option<f64>,
    /// Also run the trace under the Cluster Autoscaler over the node groups of the inputs and
    /// answer both side by side (Karpenter over the inputs' NodePools, else over `nodecast
    /// migrate`'s proposal; docs/cluster-autoscaler.md).
    #[arg(long, value_enum, value_name = "AUTOSCALER")]
    compare: Option<CompareArg>,
    #[command(flatten)]
    live: live::LiveArgs,
}

/// The autoscaler `simulate --compare` runs beside Karpenter.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum CompareArg {
    /// The Kubernetes Cluster Autoscaler over the node groups.
    ClusterAutoscaler,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum SimOutput {
    Text,
    Json,
    Csv,
    Prom,
}

/// A problem the CLI itself found (unreadable file, bad option): printed on stderr, exit 2.
struct Fatal(String);

/// Why a subcommand did not answer: a problem with its input, or output it could not write.
enum Failure {
    Fatal(Fatal),
    Write(out::WriteError),
}

impl From<Fatal> for Failure {
    fn from(f: Fatal) -> Self {
        Failure::Fatal(f)
    }
}

impl From<out::WriteError> for Failure {
    fn from(e: out::WriteError) -> Self {
        Failure::Write(e)
    }
}

fn main() -> ExitCode {
    // Before anything opens a file: a closed stdout must stay visible as closed.
    out::init();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // Help, version and usage errors, written through the same checked writers.
            let text = e.render().to_string();
            let written = if e.use_stderr() { out::write_err(&text) } else { out::write_out(&text) };
            return ExitCode::from(match written {
                Ok(()) => u8::try_from(e.exit_code()).unwrap_or(UNUSABLE),
                Err(w) => w.report(),
            });
        }
    };
    let code = match run(cli) {
        Ok(code) => code,
        Err(Failure::Fatal(Fatal(msg))) => {
            // A closed stderr loses the message; the exit code still says what happened.
            let _ = out::write_err(&format!("nodecast: {msg}\n"));
            UNUSABLE
        }
        Err(Failure::Write(e)) => e.report(),
    };
    ExitCode::from(code)
}

fn run(cli: Cli) -> Result<u8, Failure> {
    match cli.command {
        Command::Plan(a) => {
            let mut req = request(&a.common, &a.policies, &a.gates, &a.files)?;
            let read = live::add_cluster(&a.live, &a.files, &mut req.inputs)?;
            req.now = live::clock(&a.now, &read, &a.live);
            req.autoscaler = a.autoscaler.map(|x| match x {
                AutoscalerArg::Karpenter => nodecast::json::Autoscaler::Karpenter,
                AutoscalerArg::ClusterAutoscaler => nodecast::json::Autoscaler::ClusterAutoscaler,
            });
            if nodecast::json::wants_cluster_autoscaler(&req) {
                let answer = nodecast::json::plan_node_groups(&req);
                return Ok(finish(&answer, a.common.output, ca::plan)?);
            }
            let answer = nodecast::plan(&req);
            Ok(finish(&answer, a.common.output, render::plan)?)
        }
        Command::Consolidate(a) => {
            let mut req = request(&a.common, &a.policies, &a.gates, &a.files)?;
            let read = live::add_cluster(&a.live, &a.files, &mut req.inputs)?;
            let now = live::clock(&a.now, &read, &a.live).ok_or_else(|| {
                Fatal("--now RFC3339 is required with files: the clock disruption decisions are made at (a cluster read live, or its snapshot, defaults it to the time of the read)".into())
            })?;
            req.now = Some(now);
            req.until = a.until.clone();
            req.autoscaler = a.autoscaler.map(|x| match x {
                AutoscalerArg::Karpenter => nodecast::json::Autoscaler::Karpenter,
                AutoscalerArg::ClusterAutoscaler => nodecast::json::Autoscaler::ClusterAutoscaler,
            });
            if nodecast::json::wants_cluster_autoscaler(&req) {
                if req.until.is_some() {
                    return Err(Fatal(
                        "--until is not available with the Cluster Autoscaler: its scale-down answers one time (--now)".into(),
                    )
                    .into());
                }
                let answer = nodecast::json::scale_down_node_groups(&req);
                return Ok(finish(&answer, a.common.output, ca::scale_down)?);
            }
            let answer = nodecast::consolidate(&req);
            Ok(finish(&answer, a.common.output, render::decision)?)
        }
        Command::Explain(a) => {
            let mut req = request(&a.common, &a.policies, &a.gates, &a.files)?;
            let read = live::add_cluster(&a.live, &a.files, &mut req.inputs)?;
            // The clock of the plan (or pass) being explained: as `plan` and `consolidate` take it.
            let now = live::clock(&a.now, &read, &a.live);
            if a.node.is_some() && now.is_none() {
                return Err(Fatal("--node needs --now RFC3339 (the clock disruption decisions are made at)".into()).into());
            }
            req.node = a.node.clone();
            req.now = now;
            req.until = a.until.clone();
            req.pod = a.pod.clone();
            req.instance_type = a.instance_type.clone();
            let answer = nodecast::explain(&req);
            Ok(finish(&answer, a.common.output, render::explain)?)
        }
        Command::Validate(a) => {
            let mut req = request(&a.common, &Policies::default(), &Gates::default(), &a.files)?;
            live::add_cluster(&a.live, &a.files, &mut req.inputs)?;
            let answer = nodecast::validate(&req);
            Ok(finish(&answer, a.common.output, render::validation)?)
        }
        Command::Catalog(a) => {
            let mut req = request(&a.common, &Policies::default(), &Gates::default(), &[])?;
            req.query = Some(CatalogQuery { gpu: a.gpu, requirements: a.requirements.clone(), limit: a.limit });
            let answer = nodecast::catalog(&req);
            Ok(finish(&answer, a.common.output, render::catalog)?)
        }
        Command::Migrate(a) => {
            let req = request(&a.common, &Policies::default(), &a.gates, &a.files)?;
            let answer = nodecast::json::migrate(&req);
            if a.yaml {
                return Ok(finish(&answer, Output::Table, |m| m.manifests.clone())?);
            }
            Ok(finish(&answer, a.common.output, ca::migration)?)
        }
        Command::Simulate(a) => simulate(a),
        Command::Sweep(a) => sweep::run(a),
        Command::Optimize(a) => {
            let mut req = request(&a.common, &a.policies, &a.gates, &a.files)?;
            req.optimize = Some(optimize::settings(&a));
            req.now = a.now.clone();
            // The clock `--time-budget` bounds the whole call by (the core reads none itself).
            let started = std::time::Instant::now();
            let answer = nodecast::interrupt::with_clock(move || started.elapsed().as_secs_f64(), || nodecast::optimize(&req));
            Ok(finish(&answer, a.common.output, optimize::render)?)
        }
        Command::Advise(a) => {
            let mut req = request(&a.common, &a.policies, &a.gates, &a.files)?;
            req.advise = Some(advise::settings(&a));
            req.now = a.now.clone();
            // The clock `--time-budget` bounds the whole call by (the core reads none itself).
            let started = std::time::Instant::now();
            let answer = nodecast::interrupt::with_clock(move || started.elapsed().as_secs_f64(), || nodecast::advise(&req));
            match (&answer.outcome, a.apply, &a.write, a.common.output) {
                (Outcome::Success(advice), Some(_), Some(dir), Output::Table) => {
                    let written = advise::write_files(advice, dir).map_err(Fatal)?;
                    let code = finish(&answer, a.common.output, |_| String::new())?;
                    out::write_out(&written)?;
                    Ok(code)
                }
                (_, Some(_), None, _) => Ok(finish(&answer, a.common.output, advise::render_patch)?),
                _ => Ok(finish(&answer, a.common.output, advise::render)?),
            }
        }
    }
}

fn simulate(a: SimulateArgs) -> Result<u8, Failure> {
    let common =
        Common { catalog: a.catalog.clone(), zones: a.zones.clone(), spot_price_factor: a.spot_price_factor, output: Output::Json };
    let gates = Gates {
        feature_gates: a.feature_gates.clone(),
        ignore_dra_requests: None,
        aws_feature_gates: None,
        repair_policies: a.repair_policies.clone(),
        scheduler_config: a.scheduler_config.clone(),
    };
    let mut req = request(&common, &Policies::default(), &gates, &a.files)?;
    // The cluster as read is the simulation's time 0: `--now`, by default the time of the read
    // (a trace's own `start` comes first).
    let read = live::add_cluster(&a.live, &a.files, &mut req.inputs)?;
    req.now = live::clock(&a.now, &read, &a.live);
    let trace = read_inputs(std::slice::from_ref(&a.trace))?.remove(0);
    req.trace = Some(nodecast::simulate::TraceInput { name: trace.name, text: trace.text, format: None });
    let mut settings = match &a.settings {
        None => nodecast::simulate::SimSettings::default(),
        Some(f) => {
            let text = read_file(f)?;
            let docs = nodecast::decode_documents(&text, Some(f)).map_err(|errs| {
                Fatal(format!(
                    "--settings {f}: cannot decode\n{}",
                    errs.iter().map(|e| format!("error: {e}")).collect::<Vec<_>>().join("\n")
                ))
            })?;
            let [doc] = docs.as_slice() else {
                return Err(Fatal(format!("--settings {f}: expected one mapping, found {} documents", docs.len())).into());
            };
            serde_json::from_value(doc.value.clone().into_owned())
                .map_err(|e| Fatal(format!("--settings {f}: {e} (docs/simulate.md lists the fields)")))?
        }
    };
    if let Some(seed) = a.seed {
        settings.seed = seed;
    }
    req.simulation = Some(settings);
    if a.compare.is_some() {
        req.compare = Some(nodecast::json::Autoscaler::ClusterAutoscaler);
        let output = match a.output {
            SimOutput::Text => Output::Table,
            SimOutput::Json => Output::Json,
            SimOutput::Csv | SimOutput::Prom => {
                return Err(Fatal("--compare answers a table or JSON (-o json): the comparison has two runs' series".into()).into())
            }
        };
        return Ok(finish(&nodecast::json::compare(&req), output, ca::comparison)?);
    }
    let answer = nodecast::simulate(&req);
    if let Outcome::Success(s) = &answer.outcome {
        let text = match a.output {
            SimOutput::Csv => nodecast::simulate::render_series_csv(s),
            SimOutput::Prom => nodecast::simulate::render_series_prom(s),
            SimOutput::Json => {
                out::stdout_with(|w| write_json(&answer, w))?;
                return Ok(OK);
            }
            SimOutput::Text => render::simulation(s),
        };
        out::write_out(&text)?;
        return Ok(OK);
    }
    Ok(finish(&answer, if a.output == SimOutput::Json { Output::Json } else { Output::Table }, render::simulation)?)
}

/// `answer.to_json()` and a newline, streamed (the caller's writer is buffered).
fn write_json<T: serde::Serialize>(answer: &Answer<T>, out: &mut dyn Write) -> std::io::Result<()> {
    answer.write_json(&mut &mut *out)?;
    out.write_all(b"\n")
}

/// Print an answer and return the exit code: `-o json` prints the facade's JSON unchanged (also
/// for failures); failures are also printed on stderr, one located error per line. Output that
/// cannot be written is an error (`out`): the answer was not delivered.
fn finish<T: serde::Serialize>(answer: &Answer<T>, output: Output, table: fn(&T) -> String) -> Result<u8, out::WriteError> {
    match (&answer.outcome, output) {
        // Streamed: the answer's JSON is never one string in memory (tens of MB at 20,000 pods).
        (_, Output::Json) => out::stdout_with(|w| write_json(answer, w))?,
        (Outcome::Success(body), Output::Table) => out::write_out(&table(body))?,
        (Outcome::Failure { .. }, Output::Table) => {}
    }
    Ok(match &answer.outcome {
        Outcome::Success(_) => OK,
        Outcome::Failure { errors } => {
            // The answer's own exit code says it failed; a stderr that cannot take the errors
            // leaves only that code (there is nowhere left to say more).
            let _ = print_errors(errors);
            // The core decided the class once (`errorClass` of the JSON answer): 1 when every
            // error is a validation error of an input object, 2 otherwise.
            answer.error_class.map_or(UNUSABLE, ErrorClass::exit_code)
        }
    })
}

fn print_errors(errors: &[InputError]) -> Result<(), out::WriteError> {
    let mut text = String::new();
    for e in errors {
        text.push_str(&format!("error: {}\n", flag_located(e)));
    }
    let n = errors.len();
    text.push_str(&format!("{n} error{}\n", if n == 1 { "" } else { "s" }));
    out::write_err(&text)
}

/// Catalog options the CLI turned into the request's catalog mapping are located at the flag
/// the user typed (`--zones`), not at a mapping they never wrote. Only the table output; `-o json`
/// stays the facade's answer.
fn flag_located(e: &InputError) -> InputError {
    let flags = [("catalog.zones", "--zones"), ("catalog.spotPriceFactor", "--spot-price-factor")];
    let given = |flag: &str| std::env::args().any(|a| a == flag || a.starts_with(&format!("{flag}=")));
    let mut e = e.clone();
    if let Some(path) = e.path.as_deref() {
        if let Some((field, flag)) = flags.iter().find(|(f, _)| path.starts_with(f)).filter(|(_, flag)| given(flag)) {
            e.path = Some(format!("{flag}{}", &path[field.len()..]));
            e.object = None;
        }
    }
    e
}

/// The request every subcommand starts from: inputs, catalog and settings.
fn request(common: &Common, policies: &Policies, gates: &Gates, files: &[String]) -> Result<Request, Fatal> {
    let mut req = Request { inputs: read_inputs(files)?, catalog: catalog(common)?, ..Default::default() };
    if let Some(p) = policies.min_values_policy {
        req.settings.min_values_policy = match p {
            MinValues::Strict => MinValuesPolicy::Strict,
            MinValues::BestEffort => MinValuesPolicy::BestEffort,
        };
    }
    if let Some(p) = policies.preference_policy {
        req.settings.preference_policy = match p {
            Preference::Respect => PreferencePolicy::Respect,
            Preference::Ignore => PreferencePolicy::Ignore,
        };
    }
    if let Some(gates) = &gates.feature_gates {
        feature_gates(gates, &mut req.settings)?;
    }
    if let Some(on) = gates.ignore_dra_requests {
        req.settings.ignore_dra_requests = on;
    }
    if let Some(spec) = &gates.aws_feature_gates {
        req.settings.aws_feature_gates.apply(spec).map_err(|e| Fatal(format!("--aws-feature-gates: {e}")))?;
    }
    if let Some(f) = &gates.repair_policies {
        req.settings.repair_policies = Some(policy_list(f)?);
    }
    if let Some(f) = &gates.scheduler_config {
        req.settings.scheduler_config = Some(one_document(f, "--scheduler-config", "podTopologySpread: {defaultConstraints: [...]}")?);
    }
    Ok(req)
}

/// `--repair-policies FILE`: a YAML/JSON list of policies (the decoder hands a top-level list
/// over as one document per item; a `---` stream of policies reads the same).
fn policy_list(f: &str) -> Result<Vec<nodecast::repair_policies::RepairPolicySpec>, Fatal> {
    let text = read_file(f)?;
    let docs = nodecast::decode_documents(&text, Some(f)).map_err(|errs| {
        Fatal(format!(
            "--repair-policies {f}: cannot decode\n{}",
            errs.iter().map(|e| format!("error: {e}")).collect::<Vec<_>>().join("\n")
        ))
    })?;
    let items: Vec<serde_json::Value> = docs.iter().map(|d| d.value.clone().into_owned()).collect();
    serde_json::from_value(serde_json::Value::Array(items)).map_err(|e| {
        Fatal(format!(
            "--repair-policies {f}: {e} (expected a list of conditionType, conditionStatus, reasonRegex, tolerationDuration, terminationGracePeriod, priority, action)"
        ))
    })
}

/// A flag's file: one YAML/JSON document decoded into `T`; the core validates the values
/// (located at `settings.<field>...`).
fn one_document<T: serde::de::DeserializeOwned>(f: &str, flag: &str, shape: &str) -> Result<T, Fatal> {
    let text = read_file(f)?;
    let docs = nodecast::decode_documents(&text, Some(f)).map_err(|errs| {
        Fatal(format!("{flag} {f}: cannot decode\n{}", errs.iter().map(|e| format!("error: {e}")).collect::<Vec<_>>().join("\n")))
    })?;
    let [doc] = docs.as_slice() else {
        return Err(Fatal(format!("{flag} {f}: expected one document, found {}", docs.len())));
    };
    serde_json::from_value(doc.value.clone().into_owned()).map_err(|e| Fatal(format!("{flag} {f}: {e} (expected {shape})")))
}

/// Reads at most `MAX_INPUT_BYTES` (+1 to tell "exactly the limit" from "more"), so an endless
/// or huge input (`/dev/zero`, a multi-GB file) is refused after reading the limit, not after
/// exhausting memory.
fn read_bounded(r: impl Read, name: &str) -> Result<String, Fatal> {
    let limit = nodecast::MAX_INPUT_BYTES;
    let mut bytes = Vec::new();
    r.take(limit as u64 + 1).read_to_end(&mut bytes).map_err(|e| Fatal(format!("{name}: cannot read: {e}")))?;
    if bytes.len() > limit {
        return Err(Fatal(format!("{name}: input is larger than the limit of {limit} bytes")));
    }
    String::from_utf8(bytes).map_err(|e| Fatal(format!("{name}: not UTF-8 text (invalid byte at offset {})", e.utf8_error().valid_up_to())))
}

fn read_file(path: &str) -> Result<String, Fatal> {
    let f = std::fs::File::open(path).map_err(|e| Fatal(format!("{path}: cannot read: {e}")))?;
    read_bounded(f, path)
}

/// `--feature-gates` in Karpenter's spelling (`Name=true,Other=false`), parsed by the core
/// (`nodecast::gates`) as every front end does. A gate nodecast does not model may only keep its
/// default: the core refuses the request otherwise (a located `settings.featureGates.*` error).
fn feature_gates(spec: &str, settings: &mut nodecast::Settings) -> Result<(), Fatal> {
    settings.feature_gates.apply(spec).map_err(|e| Fatal(format!("--feature-gates: {e}")))
}

/// Each FILE becomes one input named after its path; `-` reads stdin (once).
fn read_inputs(files: &[String]) -> Result<Vec<Input>, Fatal> {
    let mut inputs = Vec::with_capacity(files.len());
    let mut stdin_read = false;
    for f in files {
        if f == "-" {
            if stdin_read {
                return Err(Fatal("`-` (stdin) given more than once".into()));
            }
            stdin_read = true;
            let text = read_bounded(std::io::stdin().lock(), "<stdin>")?;
            inputs.push(Input { name: Some("<stdin>".into()), text });
        } else {
            let text = read_file(f)?;
            inputs.push(Input { name: Some(f.clone()), text });
        }
    }
    Ok(inputs)
}

/// The catalog of the request: `--catalog` (a file with a mapping, or a name) with `--zones` and
/// `--spot-price-factor` merged in. `None` leaves the core's default (`aws-us-east-1`).
fn catalog(common: &Common) -> Result<Option<Value>, Fatal> {
    let mut overrides = Map::new();
    if let Some(zones) = &common.zones {
        let zones: Vec<Value> = zones.iter().map(|z| z.trim()).filter(|z| !z.is_empty()).map(|z| Value::String(z.to_string())).collect();
        if zones.is_empty() {
            return Err(Fatal("--zones: give at least one zone, e.g. --zones us-east-1a,us-east-1b".into()));
        }
        overrides.insert("zones".into(), Value::Array(zones));
    }
    if let Some(f) = common.spot_price_factor {
        let n = serde_json::Number::from_f64(f).ok_or_else(|| Fatal(format!("--spot-price-factor: {f} is not a finite number")))?;
        overrides.insert("spotPriceFactor".into(), Value::Number(n));
    }
    let base = match common.catalog.as_deref() {
        None => None,
        Some(spec) => Some(catalog_spec(spec)?),
    };
    if overrides.is_empty() {
        return Ok(base);
    }
    let mut mapping = match base {
        None => Map::from_iter([("source".to_string(), Value::String(nodecast::DEFAULT_CATALOG.to_string()))]),
        Some(Value::String(name)) => Map::from_iter([("source".to_string(), Value::String(name))]),
        Some(Value::Object(m)) => m,
        Some(other) => return Ok(Some(other)),
    };
    mapping.extend(overrides);
    Ok(Some(Value::Object(mapping)))
}

/// `--catalog X`: an existing file is read and decoded (YAML or JSON, one mapping); anything
/// else is a catalog name for the core to resolve.
fn catalog_spec(spec: &str) -> Result<Value, Fatal> {
    let path = std::path::Path::new(spec);
    let looks_like_file = spec.contains(std::path::MAIN_SEPARATOR) || [".yaml", ".yml", ".json"].iter().any(|e| spec.ends_with(e));
    if !path.is_file() {
        if looks_like_file {
            return Err(Fatal(format!("--catalog {spec}: no such file")));
        }
        return Ok(Value::String(spec.to_string()));
    }
    let text = read_file(spec)?;
    let docs = match nodecast::decode_documents(&text, Some(spec)) {
        Ok(d) => d,
        Err(errors) => {
            let lines: Vec<String> = errors.iter().map(|e| format!("error: {e}")).collect();
            return Err(Fatal(format!("--catalog {spec}: cannot decode\n{}", lines.join("\n"))));
        }
    };
    match docs.as_slice() {
        // The form a request file (and the README) writes, `catalog: {source: ...}`: the
        // mapping under a lone `catalog` key.
        [one] if one.prefix.is_empty() => match one.value.as_object() {
            Some(m) if m.len() == 1 && m.contains_key("catalog") => Ok(m["catalog"].clone()),
            Some(m) if m.contains_key("catalog") => Err(Fatal(format!(
                "--catalog {spec}: a `catalog:` key beside other keys ({}); give the catalog mapping alone, or `catalog:` as the file's only key",
                m.keys().filter(|k| *k != "catalog").cloned().collect::<Vec<_>>().join(", ")
            ))),
            _ => Ok(one.value.clone().into_owned()),
        },
        _ => Err(Fatal(format!(
            "--catalog {spec}: expected one catalog mapping (source / zones / instanceTypes ...), found {} documents",
            docs.len()
        ))),
    }
}
