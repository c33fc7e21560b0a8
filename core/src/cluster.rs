//! Load once, ask many times: a [`Cluster`] is decoded, validated and lowered once, then asked
//! for a plan, a disruption decision, explanations or a simulation — none of which parses again.

use crate::api::{Decision, Plan, Warning};
use crate::error::Errors;
use crate::explain::Explanation;
use crate::load::{self, Input, Sources};
use crate::model::{Model, Settings};
use crate::simulate::{SimSettings, Simulation, TraceInput};
use serde_json::Value;

/// A cluster loaded from manifests: NodePools, EC2NodeClasses, nodes, pods and workloads, the
/// instance-type catalog and the settings, lowered to the model the solver works on.
///
/// Loading reports every located problem at once ([`Errors`]); a NodePool that would not be
/// Ready in Karpenter (runtime validation) is kept but skipped, with a [`Warning`].
#[derive(Debug, Clone)]
pub struct Cluster {
    model: Model,
    warnings: Vec<Warning>,
    /// What the cluster was loaded from: a simulation's trace may bring manifests of its own,
    /// which are lowered together with these.
    inputs: Vec<Input>,
    objects: Vec<Value>,
    catalog: Option<Value>,
}

impl Cluster {
    /// Decode, validate and lower `sources` once.
    pub fn load(sources: &Sources) -> Result<Cluster, Errors> {
        let (model, warnings) = load::model(sources)?;
        Ok(Cluster {
            model,
            warnings,
            inputs: sources.inputs.to_vec(),
            objects: sources.objects.to_vec(),
            catalog: sources.catalog.cloned(),
        })
    }

    /// [`Cluster::load`] from YAML/JSON texts with the embedded AWS catalog.
    pub fn from_texts(inputs: &[Input], settings: &Settings) -> Result<Cluster, Errors> {
        Cluster::load(&Sources { inputs, objects: &[], catalog: None, settings })
    }

    /// Warnings of loading (NodePools skipped as not Ready, ...), shown in every answer.
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }

    /// The lowered model (for benchmarks and tools; its shape is not a stable API).
    #[doc(hidden)]
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// What one Karpenter provisioning pass does with the pending pods.
    pub fn plan(&self) -> Plan {
        self.plan_with(crate::provision::RenderOptions::default())
    }

    /// [`Cluster::plan`] rendered with `opts` (internal callers that read only the plan's
    /// figures skip the fix hints' re-plans).
    pub(crate) fn plan_with(&self, opts: crate::provision::RenderOptions) -> Plan {
        self.plan_with_at(opts, None)
    }

    /// [`Cluster::plan`] for a pass at `now` (Unix seconds): capacity reservations are
    /// resolved at that time (a capacity block within 40 minutes of its end is not offered).
    pub fn plan_at(&self, now: Option<i64>) -> Plan {
        self.plan_with_at(crate::provision::RenderOptions::default(), now)
    }

    /// [`Cluster::plan_with`] at `now`.
    /// Running NodeClaims of reservations that ended by `now` are first changed as the AWS
    /// provider's controllers change them (as `consolidate` does): a capacity block's are
    /// deleted and their pods provisioned again in this pass, an ODCR's become on-demand.
    pub(crate) fn plan_with_at(&self, opts: crate::provision::RenderOptions, now: Option<i64>) -> Plan {
        let mut model = crate::catalog::resolve::at_time(&self.model, now);
        let changes = now.map(|t| crate::catalog::reservation_time::changes(&model, t)).unwrap_or_default();
        // Nodes already deleting in the input (deletionTimestamp on the Node or NodeClaim):
        // Karpenter's provisioner provisions for their currently reschedulable pods in every
        // pass, as for those of the NodeClaims a reservation end deletes below.
        let mut warnings = self.warnings.clone();
        // Static scale-down first: the NodeClaims it deletes are deleting nodes of this pass.
        let (scale_down, needs_now) = crate::static_pools::deprovision::choose(&model, now);
        let scale_down_out = crate::static_pools::deprovision_out(&model, &scale_down);
        if needs_now {
            warnings.push(Warning {
                code: "static-deprovisioning-needs-now".into(),
                message: "which NodeClaims static scale-down deletes depends on the time (do-not-disrupt durations, expireAfter): without one they were read as active and as a full lifetime (give the time with --now)".into(),
                object: None,
            });
        }
        for d in &scale_down {
            model.to_mut().nodes[d.node].marked_for_deletion = true;
        }
        let deleting: Vec<usize> = (0..model.nodes.len()).filter(|&k| model.nodes[k].marked_for_deletion).collect();
        if !deleting.is_empty() {
            let undecided =
                crate::catalog::reservation_time::pend_pods_of_deleting(model.to_mut(), &deleting, now, crate::disruption::fully_blocked);
            if !undecided.is_empty() {
                let pods: Vec<String> = undecided.iter().map(|&p| model.pods[p].key()).collect();
                warnings.push(Warning {
                    code: "deleting-node-pods-need-now".into(),
                    message: format!(
                        "{} pod(s) on deleting nodes carry a karpenter.sh/do-not-disrupt duration ({}): whether Karpenter provisions for them again depends on the time of the pass; they stay on their nodes here (give the time with --now)",
                        pods.len(),
                        pods.join(", ")
                    ),
                    object: None,
                });
            }
        }
        if let (Some(t), false) = (now, changes.is_empty()) {
            crate::catalog::reservation_time::apply_for_pass(model.to_mut(), &changes, t, crate::disruption::fully_blocked);
        }
        let sol = crate::scheduling::solve(&model);
        // Cancelled (crate::interrupt): the caller drops the answer, so rendering a cut-short
        // pass (half a second for 100,000 pods) would only delay the stop.
        if crate::interrupt::poll() {
            return Plan::default();
        }
        let mut plan = crate::provision::render_with(&model, &sol, warnings, opts);
        plan.reservation_changes = crate::reservation_report::changes_out(&model, &changes);
        if !scale_down_out.is_empty() {
            plan.static_deprovisioned = scale_down_out;
            plan.summary = crate::figures::plan_summary(&plan);
        }
        plan
    }

    /// What the disruption controller does at `now` (Unix seconds), and why every other node
    /// stays. An error when a managed node lacks the labels that price it.
    pub fn consolidate(&self, now: i64) -> Result<Decision, Errors> {
        let text = jiff::Timestamp::from_second(now).map(|t| t.to_string()).unwrap_or_default();
        self.consolidate_at(now, &text)
    }

    /// [`Cluster::consolidate`] with the clock as the answer shows it.
    pub(crate) fn consolidate_at(&self, now: i64, now_text: &str) -> Result<Decision, Errors> {
        let mut model = crate::catalog::resolve::at_time(&self.model, Some(now));
        // Emptiness spares the nodes the last provisioning pass put buffer pods on.
        if !model.capacity_buffers.is_empty() {
            let hosts = crate::capacity_buffers::hosts(&model);
            model.to_mut().buffer_hosts = hosts;
        }
        crate::disruption::consolidate(&model, &self.warnings, now, now_text)
    }

    /// The commands the disruption controller carries out from `now` to `until` (Unix seconds),
    /// pass after pass (`simulate::consolidation_sequence`).
    pub fn consolidation_sequence(
        &self,
        now: i64,
        until: i64,
        until_text: &str,
        settings: Option<&crate::simulate::SimSettings>,
    ) -> Result<crate::api::ConsolidationSequence, Errors> {
        let sources =
            Sources { inputs: &self.inputs, objects: &self.objects, catalog: self.catalog.as_ref(), settings: &self.model.settings };
        crate::simulate::consolidation_sequence(&sources, &self.model, &self.warnings, now, until, until_text, settings)
    }

    /// [`Cluster::explain_node`], and for a node the pass did not evaluate (one command per pass),
    /// what the passes that follow do with it: the sequence to `until` (default: one day after
    /// `now`) says in which pass and command it goes, or that it stays.
    pub fn explain_node_over(
        &self,
        node: &str,
        now: i64,
        until: Option<(i64, String)>,
        settings: Option<&crate::simulate::SimSettings>,
    ) -> Result<Explanation, Errors> {
        let mut ex = self.explain_node(node, now)?;
        let Some(n) = ex.node.as_mut() else { return Ok(ex) };
        let not_evaluated = n.node.reasons.first().is_some_and(|r| r.code == crate::reason::ReasonCode::NotEvaluated);
        if !not_evaluated {
            return Ok(ex);
        }
        let (until, text) = until.unwrap_or_else(|| (now + 86_400, crate::simulate::rfc3339(now + 86_400)));
        let seq = self.consolidation_sequence(now, until, &text, settings)?;
        // The steps of later passes (the first is this pass's own command).
        let later: Vec<&crate::api::ConsolidationStep> = seq.steps.iter().filter(|s| s.decided_after_seconds > 0).collect();
        let goes = later.iter().find(|s| s.disrupted_nodes.iter().any(|d| d == node));
        n.summary.push_str(&match goes {
            Some(s) if s.decided_after_seconds < s.after_seconds => format!(
                "; Karpenter carries out one command per pass and then looks again: it goes in the pass at {} (+{} s), carried out {} s later once Karpenter has validated it again: {}",
                crate::simulate::rfc3339(now + s.decided_after_seconds),
                s.decided_after_seconds,
                s.after_seconds - s.decided_after_seconds,
                s.command
            ),
            Some(s) => format!(
                "; Karpenter carries out one command per pass and then looks again: it goes in the pass at {} (+{} s): {}",
                s.time, s.after_seconds, s.command
            ),
            None => format!(
                "; Karpenter carries out one command per pass and then looks again: the passes up to {text} ({} more commands) leave it running",
                later.len()
            ),
        });
        Ok(ex)
    }

    /// The cheapest NodeClaims for the pods Karpenter's plan places, under the same
    /// constraints, with a lower bound and the comparison with Karpenter's plan.
    pub fn optimize(&self, settings: &crate::optimize::OptimizeSettings) -> Result<crate::optimize::Optimization, Errors> {
        self.optimize_at(settings, None)
    }

    /// [`Cluster::optimize`] for a pass at `now` (Unix seconds): capacity reservations are
    /// resolved at that time, as [`Cluster::plan_at`] resolves them.
    pub fn optimize_at(
        &self,
        settings: &crate::optimize::OptimizeSettings,
        now: Option<i64>,
    ) -> Result<crate::optimize::Optimization, Errors> {
        let model = crate::catalog::resolve::at_time(&self.model, now);
        let text = now.map(|t| jiff::Timestamp::from_second(t).map(|t| t.to_string()).unwrap_or_default());
        let clock = now.zip(text.as_deref());
        let mut answer = crate::optimize::optimize(&model, &self.warnings, settings, clock)?;
        // The running cluster beside Karpenter's consolidation: its command now, and the
        // commands it carries out pass after pass for a day.
        if let (Some(r), Some((t, text))) = (answer.running.as_mut(), clock) {
            let decision = self.consolidate_at(t, text)?;
            let until = t + 86_400;
            let seq = self.consolidation_sequence(t, until, &crate::simulate::rfc3339(until), None)?;
            r.karpenter = Some(crate::optimize::running::KarpenterConsolidation {
                command: decision.command,
                price_per_hour_after: decision.price_per_hour_after,
                until: seq.until,
                commands: seq.steps.len(),
                price_per_hour_at_until: seq.price_per_hour_at_until,
            });
        }
        Ok(answer)
    }

    /// NodePool edits that make Karpenter's own plan cheaper, each verified by planning again
    /// with the edit applied, best first, with the YAML diff and the gap to the optimum.
    pub fn advise(&self, settings: &crate::advise::AdviseSettings) -> Result<crate::advise::Advice, Errors> {
        self.advise_at(settings, None)
    }

    /// [`Cluster::advise`] for a pass at `now` (Unix seconds): every plan it compares, the
    /// edited ones included, resolves capacity reservations at that time.
    pub fn advise_at(&self, settings: &crate::advise::AdviseSettings, now: Option<i64>) -> Result<crate::advise::Advice, Errors> {
        let sources =
            Sources { inputs: &self.inputs, objects: &self.objects, catalog: self.catalog.as_ref(), settings: &self.model.settings };
        let model = crate::catalog::resolve::at_time(&self.model, now);
        crate::advise::advise(&sources, &model, &self.warnings, settings, now)
    }

    /// Why pod `pod` (`name` or `namespace/name`) goes where the provisioning pass puts it,
    /// and, with `instance_type`, why that type was or was not chosen.
    pub fn explain_pod(&self, pod: &str, instance_type: Option<&str>) -> Result<Explanation, Errors> {
        self.explain_pod_at(pod, instance_type, None)
    }

    /// [`Cluster::explain_pod`] for a pass at `now` (see [`Cluster::plan_at`]).
    pub fn explain_pod_at(&self, pod: &str, instance_type: Option<&str>, now: Option<i64>) -> Result<Explanation, Errors> {
        let model = crate::catalog::resolve::at_time(&self.model, now);
        crate::explain::explain_pod(&model, &self.warnings, pod, instance_type)
    }

    /// Why node `node` is disrupted at `now` (Unix seconds) or stays.
    pub fn explain_node(&self, node: &str, now: i64) -> Result<Explanation, Errors> {
        let model = crate::catalog::resolve::at_time(&self.model, Some(now));
        crate::explain::explain_node(&model, node, now)
    }

    /// Replay `trace` over this cluster (docs/simulate.md). The cluster is lowered again only
    /// when the trace carries manifests of its own.
    pub fn simulate(&self, trace: &TraceInput, settings: &SimSettings) -> Result<Simulation, Errors> {
        let sources =
            Sources { inputs: &self.inputs, objects: &self.objects, catalog: self.catalog.as_ref(), settings: &self.model.settings };
        crate::simulate::simulate_loaded(&sources, Some((&self.model, &self.warnings)), Some(trace), Some(settings), None)
    }
}
