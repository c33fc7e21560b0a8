//! Request → model, shared by every question: decode every input, validate (admission errors
//! make the input unusable, runtime errors skip the NodePool), lower, and the checks that need
//! the whole model (missing node classes, pods bound to unknown nodes).

use crate::api::Warning;
use crate::catalog;
use crate::error::InputError;
use crate::lower;
use crate::manifest::{self, Document};
use crate::model::{Model, Settings};
use crate::validate::{self, Layer};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One text input (a file's contents, stdin, a string from a notebook).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Input {
    /// Shown in error locations (`cluster.yaml`, `<stdin>`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// YAML or JSON, one or many documents.
    pub text: String,
}

/// What a cluster is loaded from, borrowed: the texts, the already-decoded objects, the catalog
/// and the settings.
#[derive(Debug, Clone, Copy)]
pub struct Sources<'a> {
    /// YAML/JSON texts.
    pub inputs: &'a [Input],
    /// Already-decoded Kubernetes objects.
    pub objects: &'a [Value],
    /// `"aws-us-east-1"` (default when `None`) or a catalog mapping.
    pub catalog: Option<&'a Value>,
    /// Scheduling settings (feature gates, policies).
    pub settings: &'a Settings,
}

/// Decode every input and object of a request.
pub fn documents<'a>(req: &Sources<'a>) -> Result<Vec<Document<'a>>, Vec<InputError>> {
    let mut docs = Vec::new();
    let mut errors = Vec::new();
    for input in req.inputs {
        match manifest::decode(&input.text, input.name.as_deref()) {
            Ok(d) => docs.extend(d),
            Err(e) => errors.extend(e),
        }
    }
    for (i, obj) in req.objects.iter().enumerate() {
        // Objects carry no source text; a List or an array among them expands like one in YAML.
        manifest::split(std::borrow::Cow::Borrowed(obj), Some("objects"), i, &mut docs, &mut errors);
    }
    if errors.is_empty() {
        Ok(docs)
    } else {
        Err(errors)
    }
}

/// Validation findings split by layer: admission errors make the input unusable; runtime
/// errors make Karpenter mark the NodePool not Ready, so it is skipped (R1.1.2).
pub fn validation(docs: &[Document]) -> (Vec<InputError>, Vec<InputError>, Vec<Warning>) {
    let (admission, runtime) = layered(docs, true);
    let (errors, notes) = split_stored(runtime);
    (admission, errors, notes)
}

/// Runtime findings that fail validation, and the fields of stored objects a newer server
/// added (`Layer::Stored`), which are only worth a warning.
fn split_stored(runtime: Vec<(Layer, InputError)>) -> (Vec<InputError>, Vec<Warning>) {
    let mut errors = Vec::new();
    let mut notes = Vec::new();
    for (layer, e) in runtime {
        match layer {
            Layer::Stored => notes.push(finding_warning(&e, "")),
            _ => errors.push(e),
        }
    }
    (errors, notes)
}

/// A validation finding as an answer's warning: its words, where, and what follows from it.
fn finding_warning(e: &InputError, consequence: &str) -> Warning {
    let at = e.path.clone().map(|p| format!(" (at {p})")).unwrap_or_default();
    Warning { code: e.code.clone(), message: format!("{}{at}{consequence}", e.message), object: e.object.clone() }
}

/// [`validation`] with the layer of each runtime finding. `required`: also the fields the API
/// server requires of NodeClaims and apps/v1 workloads, which `plan` reads leniently and
/// `validate` reports (validate/required.rs).
fn layered(docs: &[Document], required: bool) -> (Vec<InputError>, Vec<(Layer, InputError)>) {
    let mut admission = Vec::new();
    let mut runtime = Vec::new();
    for d in docs {
        let lenient = validate::validate_layered(d.index, &d.value, validate::Provider::Aws);
        let strict = if required { validate::required_fields(d.index, &d.value) } else { Vec::new() };
        for (layer, mut e) in lenient.into_iter().chain(strict.into_iter().map(|e| (Layer::Admission, e))) {
            e.source = e.source.or_else(|| d.source.clone());
            if !d.prefix.is_empty() {
                e.path = Some(match e.path.take() {
                    Some(p) => format!("{}.{p}", d.prefix),
                    None => d.prefix.clone(),
                });
            }
            match layer {
                Layer::Admission => admission.push(e),
                _ => runtime.push((layer, e)),
            }
        }
    }
    (admission, runtime)
}

/// A model with the warnings of loading it, or the errors that refuse the request.
type Loaded = Result<(Model, Vec<Warning>), Vec<InputError>>;

/// Build the model of a request: decode, validate, lower.
pub fn model(req: &Sources) -> Result<(Model, Vec<Warning>), Vec<InputError>> {
    req.settings.check()?;
    if let Some(done) = streamed(req) {
        return done;
    }
    let docs = documents(req)?;
    let (admission, runtime) = layered(&docs, false);
    if !admission.is_empty() {
        return Err(admission);
    }
    let (cat, tables) = catalog::build(req.catalog)?;
    let model = lower::lower(&docs, cat, tables, req.settings.clone())?;
    drop(docs);
    whole_model(model, runtime)
}

/// [`model`] one document at a time: each is decoded, validated and lowered, then dropped
/// before the next is decoded, so the decoded trees of a large input never all sit in memory
/// (20,000 pods: ~130 MB of trees) and each is lowered while it is still in cache. Texts the
/// fast YAML reader takes (`manifest::streamable`) are streamed; others are decoded whole and go
/// through the same steps. `None` when a TrainJob runtime may be involved (TrainJobs refer to
/// runtimes anywhere in the input, so those are collected up front), when a text turns out to
/// leave the fast subset half-way, on any decoding error, or when the catalog is refused:
/// [`model`] then starts over the whole-input way, which reports every error in its usual
/// order (decoding, admission, catalog, lowering). The answer is the same either way: the same
/// documents reach the same validation and lowering in the same order.
fn streamed(req: &Sources) -> Option<Loaded> {
    let s = stream(req, false)?;
    if !s.admission.is_empty() {
        return Some(Err(s.admission));
    }
    Some(s.lowered?.and_then(|model| whole_model(model, s.runtime)))
}

/// What [`stream`] found: the documents it read, the validation findings by layer, and the
/// lowered model (or lowering's errors), when lowering ran to the end.
struct Streamed {
    documents: usize,
    admission: Vec<InputError>,
    runtime: Vec<(Layer, InputError)>,
    lowered: Option<Result<Model, Vec<InputError>>>,
}

/// Decode, validate and lower a request one document at a time (see [`streamed`], which says
/// when this gives up with `None`). `past_admission`: keep lowering after an admission error
/// (`validate` reports lowering's errors too); otherwise lowering stops at the first one.
fn stream(req: &Sources, past_admission: bool) -> Option<Streamed> {
    // PriorityClasses are read up front too (pods may come before them): lower/priority.rs.
    if req.inputs.iter().any(|i| i.text.contains("trainer.kubeflow.org") || i.text.contains("PriorityClass")) {
        return None;
    }
    let mut objects = Vec::new();
    let mut errors = Vec::new();
    for (i, obj) in req.objects.iter().enumerate() {
        manifest::split(std::borrow::Cow::Borrowed(obj), Some("objects"), i, &mut objects, &mut errors);
    }
    if !errors.is_empty() {
        return None;
    }
    let (cat, tables) = catalog::build(req.catalog).ok()?;
    let mut lowerer = lower::Lowerer::new(tables, &objects);
    let mut admission = Vec::new();
    let mut runtime = Vec::new();
    let mut interrupted = false;
    let mut documents = 0;
    let mut take = |next: manifest::Next| {
        // Cancelled: the caller drops the answer (crate::interrupt), as in `lower::lower`.
        interrupted = interrupted || crate::interrupt::poll();
        // Once the input is refused at admission, lowering the rest is wasted (unless the
        // caller reports lowering's errors too).
        match next {
            manifest::Next::Document(d) => {
                let (a, r) = layered(std::slice::from_ref(d), past_admission);
                admission.extend(a);
                runtime.extend(r);
                if (past_admission || admission.is_empty()) && !interrupted {
                    lowerer.add(d);
                }
            }
            // A plain Pod of JSON text in its typed shape: validation has no rules for Pods
            // (`validate::validate_layered`), so only lowering reads it; when the typed
            // lowering declines, the same item comes back as a Document.
            manifest::Next::Pod { pod, source, index, prefix } => {
                let lowering = (past_admission || admission.is_empty()) && !interrupted;
                if lowering && !lowerer.add_typed_pod(pod, source, index, prefix) {
                    return false;
                }
            }
        }
        documents += 1;
        true
    };
    for input in req.inputs {
        let name = input.name.as_deref();
        if manifest::streamable(&input.text) {
            // Plain Pods typed only with `typed-pods` (lower/mod.rs says why).
            if !manifest::decode_streamed_typed(&input.text, name, cfg!(feature = "typed-pods"), &mut take) {
                return None;
            }
        } else {
            // A text outside the fast subset (a hand-written NodePool with comments) is decoded
            // whole, as `documents` does; its errors are reported by starting over.
            for d in manifest::decode(&input.text, name).ok()?.iter() {
                take(manifest::Next::Document(d));
            }
        }
    }
    for d in &objects {
        take(manifest::Next::Document(d));
    }
    let lowered = (past_admission || admission.is_empty()).then(|| lowerer.finish(cat, req.settings.clone()));
    Some(Streamed { documents, admission, runtime, lowered })
}

/// The number of documents, the validation errors, and what lowering made of the documents.
pub type StreamedValidation = (usize, Vec<InputError>, Vec<Warning>, Result<Model, Vec<InputError>>);

/// `validate`'s inputs, streamed like [`model`] (a 20,000-pod input's decoded trees never all
/// in memory): the number of documents, the validation errors (admission, then runtime, each
/// in document order, as [`validation`] gives them) and what lowering made of every document.
/// `None` where [`model`] would decode whole too (see [`streamed`]).
pub fn validation_streamed(req: &Sources) -> Option<StreamedValidation> {
    let s = stream(req, true)?;
    let mut errors = s.admission;
    let (runtime, notes) = split_stored(s.runtime);
    errors.extend(runtime);
    Some((s.documents, errors, notes, s.lowered?))
}

/// The warnings of runtime validation and the checks that need the whole model.
fn whole_model(mut model: Model, runtime: Vec<(Layer, InputError)>) -> Loaded {
    let mut warnings = Vec::new();
    for (layer, e) in runtime {
        let object = e.object.clone().unwrap_or_default();
        // A NodePool (or the EC2NodeClass it uses) that fails runtime validation is not Ready,
        // so provisioning ignores it (R1.1.2). An unparsable budget schedule keeps the NodePool
        // Ready; it only blocks disruption.
        let not_ready = match layer {
            Layer::NodePoolRuntime => object.strip_prefix("NodePool/").map(|n| (n.to_string(), false)),
            Layer::NodeClassRuntime => object.strip_prefix("EC2NodeClass/").map(|n| (n.to_string(), true)),
            _ => None,
        };
        let mut consequence = "";
        if let Some((name, is_class)) = not_ready {
            for np in model.node_pools.iter_mut() {
                if (!is_class && np.name == name) || (is_class && np.node_class.as_deref() == Some(name.as_str())) {
                    np.ready = false;
                    consequence = "; Karpenter would not provision from the affected NodePool";
                }
            }
        }
        warnings.push(Warning { object: Some(object), ..finding_warning(&e, consequence) });
    }
    for (pool, e) in missing_node_classes(&model) {
        model.node_pools[pool].ready = false;
        // A warning has no location fields of its own: the file says which of several
        // NodePools of one name (or which input) to edit.
        let file = match (&e.source, e.document) {
            (Some(s), Some(d)) => format!(" (in {s}, document {d})"),
            (None, Some(d)) => format!(" (in document {d})"),
            _ => String::new(),
        };
        let message = format!("{}{file}; Karpenter would not provision from the affected NodePool", e.message);
        warnings.push(Warning { code: e.code, message, object: e.object });
    }
    // A NodePool whose requirements leave nothing to launch is skipped by every provisioning
    // pass (not Ready and static pools are said above or are deliberate): say so, or it
    // silently vanishes from the answers.
    // What the price and offering documents replaced and what fell back (catalog::prices).
    warnings.extend(model.catalog.notes.iter().map(|(code, message)| Warning {
        code: code.clone(),
        message: message.clone(),
        object: None,
    }));
    if model.node_pools.iter().any(|np| np.auto_mode) && !crate::catalog::auto_mode_fee::given(&model) {
        warnings.push(Warning {
            code: "auto-mode-fee-not-included".into(),
            message: "prices of EKS Auto Mode NodeClaims are EC2 prices: Auto Mode's per-instance management fee is not \
                      in nodecast's data and is not included (give a fee table to add it: docs/prices-and-places.md)"
                .into(),
            object: None,
        });
    }
    warnings.extend(status_zone_notes(&model));
    warnings.extend(unusable_warnings(&model).1);
    warnings.extend(volume_warning(&model));
    check_bound_pods(&model)?;
    crate::static_pools::apply(&mut model, &mut warnings)?;
    Ok((model, warnings))
}

/// What Karpenter's own EC2NodeClass status changed: the NodePools launching only in the zones
/// of the class's resolved subnets (lower/mod.rs), one `nodeclass-status-zones` note each, so
/// that the answer says where the narrowing came from (a live cluster's status, or a file's).
fn status_zone_notes(model: &Model) -> Vec<Warning> {
    let mut out = Vec::new();
    for np in &model.node_pools {
        let Some(class) = np.node_class_index.map(|i| &model.node_classes[i]) else { continue };
        let Some(zones) = &class.status_zones else { continue };
        let message = if zones.is_empty() {
            format!(
                "EC2NodeClass {} has no subnets in its status: Karpenter offers no instance type with it, so NodePool {} launches nothing",
                class.name, np.name
            )
        } else {
            format!(
                "EC2NodeClass {}'s status resolves subnets in {}: NodePool {} launches only there (Karpenter offers its instance types in those zones alone)",
                class.name,
                zones.join(", "),
                np.name
            )
        };
        out.push(Warning { code: "nodeclass-status-zones".into(), message, object: Some(format!("NodePool/{}", np.name)) });
    }
    out
}

/// The NodePools whose requirements leave them nothing to launch (not Ready pools have a
/// warning of their own, static ones launch by design), with a `nodepool-launches-nothing`
/// warning each.
pub fn unusable_warnings(model: &Model) -> (Vec<crate::unusable::Unusable>, Vec<Warning>) {
    use crate::unusable::UnusableKind as K;
    let found: Vec<crate::unusable::Unusable> =
        crate::unusable::all(model).into_iter().filter(|u| matches!(u.kind, K::Requirements | K::MinValues | K::Allocatable)).collect();
    let warnings = found
        .iter()
        .map(|u| {
            let np = &model.node_pools[u.pool];
            Warning {
                code: crate::unusable::WARNING.into(),
                message: format!("NodePool {} can launch nothing: {}; Karpenter skips it in every provisioning pass", np.name, u.message),
                object: Some(format!("NodePool/{}", np.name)),
            }
        })
        .collect();
    (found, warnings)
}

/// Pods that mount PersistentVolumeClaims or ephemeral volumes, in one warning: Karpenter's
/// volume topology (a bound volume's zone, a StorageClass's allowedTopologies) and CSI attach
/// limits would constrain where they go, and nodecast plans them without either.
fn volume_warning(model: &Model) -> Option<Warning> {
    let pending = model.pods.iter().filter(|p| p.volumes && p.node_name.is_none());
    let count = pending.clone().count();
    let first: Vec<String> = pending.take(3).map(|p| p.key()).collect();
    let more = if count > first.len() { format!(" and {} more", count - first.len()) } else { String::new() };
    (count > 0).then(|| Warning {
        code: "volumes-not-modelled".into(),
        message: format!(
            "{count} pending pod(s) mount PersistentVolumeClaims or ephemeral volumes ({}{more}): Karpenter adds a bound \
             volume's zone (or its StorageClass's allowedTopologies) to the pod's requirements and counts CSI attach \
             limits; nodecast does not model volumes, so it may plan these pods in a zone their volumes are not in",
            first.join(", ")
        ),
        object: None,
    })
}

/// NodePools whose `nodeClassRef` names an EC2NodeClass the input does not hold while it holds
/// others: Karpenter marks such a NodePool not Ready (its node class is not found) and never
/// launches from it. An input without any EC2NodeClass is read as "node classes not modelled"
/// (the conformance format's rule), and its NodePools stay Ready. Each finding is located at
/// the NodePool's document of `docs` (the documents the model was lowered from).
pub fn missing_node_classes(m: &Model) -> Vec<(usize, InputError)> {
    m.node_pools
        .iter()
        .enumerate()
        .filter(|(_, np)| np.node_class_index.is_none())
        .filter_map(|(i, np)| {
            let class = np.node_class.as_deref()?;
            // Per kind: EC2NodeClasses and Auto Mode NodeClasses are separate sets of names.
            let known: Vec<&str> = m.node_classes.iter().filter(|c| c.auto_mode == np.auto_mode).map(|c| c.name.as_str()).collect();
            if known.is_empty() {
                return None;
            }
            let kind = if np.auto_mode { "NodeClass" } else { "EC2NodeClass" };
            let mut e = InputError::new(
                "node-class-not-found",
                format!("NodePool {:?} uses {kind} {class:?}, which is not in the input (it has {})", np.name, known.join(", ")),
            )
            .object(format!("NodePool/{}", np.name))
            .path("spec.template.spec.nodeClassRef.name")
            .help(format!("fails at runtime (NodePool not Ready): add the {kind} or name one of the input's"));
            e.source = np.source.clone();
            e.document = Some(np.document);
            if !np.prefix.is_empty() {
                e.path = e.path.map(|p| format!("{}.{p}", np.prefix));
            }
            Some((i, e))
        })
        .collect()
}

fn check_bound_pods(m: &Model) -> Result<(), Vec<InputError>> {
    let nodes: std::collections::HashSet<&str> = m.nodes.iter().map(|n| n.name.as_str()).collect();
    let errors: Vec<InputError> = m
        .pods
        .iter()
        .filter_map(|p| {
            let node = p.node_name.as_deref()?;
            (!nodes.contains(node)).then(|| {
                InputError::new("unknown-node", format!("pod {} is bound to node {node:?}, which is not in the input", p.key()))
                    .at_document(p.document)
                    .object(format!("Pod/{}/{}", p.namespace, p.name))
                    .path("spec.nodeName")
                    .help("include the Node (kubectl get nodes -o yaml) or remove spec.nodeName to treat the pod as pending")
            })
        })
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

#[cfg(test)]
mod typed_stream_tests {
    //! JSON Lists streamed with their plain Pods decoded typed (no tree) give the same model as
    //! the tree way, for every JSON input of the repository and a List of generated GPU Pods.
    use super::*;

    fn pods(text: &str, tree_only: bool) -> String {
        crate::lower::typed_tests::TREE_ONLY.with(|c| c.set(tree_only));
        let settings = Settings::default();
        let inputs = [Input { name: Some("f.json".into()), text: text.to_string() }];
        let req = Sources { inputs: &inputs, objects: &[], catalog: None, settings: &settings };
        let out = match model(&req) {
            Ok((m, w)) => format!("{:?}\n{:?}\n{w:?}", m.pods, m.skipped),
            Err(e) => format!("{e:?}"),
        };
        crate::lower::typed_tests::TREE_ONLY.with(|c| c.set(false));
        out
    }

    #[test]
    fn streamed_json_lists_lower_alike_both_ways() {
        for path in crate::manifest::test_input_files(&["json"]) {
            let text = std::fs::read_to_string(&path).unwrap();
            assert_eq!(pods(&text, false), pods(&text, true), "{}", path.display());
        }
        let gpu = |i: usize, names: &str| {
            format!(
                r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"gpu-{i}","namespace":"default","labels":{{"app":"gpu"}}}},
                "spec":{{"containers":[{{"name":"app","image":"pause","resources":{{"requests":{{"cpu":"2","memory":"8Gi","nvidia.com/gpu":"1"}},"limits":{{"nvidia.com/gpu":"1"}}}}}}],
                "affinity":{{"nodeAffinity":{{"requiredDuringSchedulingIgnoredDuringExecution":{{"nodeSelectorTerms":[{{"matchExpressions":[{{"key":"karpenter.k8s.aws/instance-gpu-name","operator":"In","values":[{names}]}}]}}]}}}}}},
                "tolerations":[{{"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"}}]}}}}"#
            )
        };
        let pool = include_str!("../../examples/nodepools/gpu-inference.yaml");
        let items: Vec<String> = (0..40).map(|i| gpu(i, if i % 3 == 0 { r#""a10g""# } else { r#""t4","l4""# })).collect();
        // One item the typed path declines (a fractional GPU) and one escaped string among them.
        let refused = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"half"},"spec":{"containers":[{"resources":{"limits":{"nvidia.com/gpu":"0.5"}}}]}}"#;
        let escaped = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"esc","labels":{"a":"x\u0041"}}}"#;
        for extra in ["", refused, escaped] {
            let mut all = items.clone();
            if !extra.is_empty() {
                all.insert(7, extra.to_string());
            }
            let list = format!(r#"{{"apiVersion":"v1","kind":"List","items":[{}]}}"#, all.join(","));
            let settings = Settings::default();
            let inputs =
                [Input { name: Some("pool.yaml".into()), text: pool.to_string() }, Input { name: Some("pods.json".into()), text: list }];
            let run = |tree_only: bool| {
                crate::lower::typed_tests::TREE_ONLY.with(|c| c.set(tree_only));
                let req = Sources { inputs: &inputs, objects: &[], catalog: None, settings: &settings };
                let out = match model(&req) {
                    Ok((m, w)) => format!("{:?}\n{w:?}", m.pods),
                    Err(e) => format!("{e:?}"),
                };
                crate::lower::typed_tests::TREE_ONLY.with(|c| c.set(false));
                out
            };
            let typed_before = crate::lower::typed_tests::STREAMED_TYPED.with(|c| c.get());
            let tree = run(true);
            assert_eq!(crate::lower::typed_tests::STREAMED_TYPED.with(|c| c.get()), typed_before, "tree way: none typed");
            assert_eq!(run(false), tree, "extra item {extra}");
            // Every GPU pod went the typed way, from its text.
            assert_eq!(crate::lower::typed_tests::STREAMED_TYPED.with(|c| c.get()), typed_before + 40);
        }
    }
}
