//! The GPU benchmark: the embedded AWS catalog and the example GPU NodePools.

use super::*;

pub const GPU_NODEPOOLS: [(&str, &str); 3] = [
    ("gpu-inference.yaml", include_str!("../../examples/nodepools/gpu-inference.yaml")),
    ("gpu-training.yaml", include_str!("../../examples/nodepools/gpu-training.yaml")),
    ("gpu-general.yaml", include_str!("../../examples/nodepools/gpu-general.yaml")),
];

pub const GPU_SEED: u64 = 7;

/// `n` pending GPU pods: 50% 1-GPU (inference GPUs), 20% 2-GPU, 20% 4-GPU, 10% 8-GPU (training
/// GPUs), each with a required `karpenter.k8s.aws/instance-gpu-name` node affinity and a
/// toleration for the `nvidia.com/gpu` taint of the GPU NodePools.
pub fn gpu_pods(n: usize, seed: u64) -> Vec<Value> {
    let mut rng = SplitMix64::new(seed);
    (0..n)
        .map(|i| {
            let (gpus, names, cpu, memory) = gpu_shape(&mut rng);
            let requests = json!({"cpu": cpu, "memory": memory, "nvidia.com/gpu": gpus.to_string()});
            let extra = json!({
                "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "karpenter.k8s.aws/instance-gpu-name", "operator": "In", "values": names}]}
                ]}}},
                "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
            });
            let app = format!("gpu{gpus}");
            let mut p = pod(&format!("{app}-{i}"), json!({"app": app}), requests.clone(), extra);
            p["spec"]["containers"][0]["resources"]["limits"] = json!({"nvidia.com/gpu": gpus.to_string()});
            p
        })
        .collect()
}

/// The full GPU request: the three example NodePool files (with their EC2NodeClasses) plus
/// `n` GPU pods, over the embedded AWS catalog.
pub fn gpu_request(n: usize) -> Request {
    Request {
        inputs: GPU_NODEPOOLS.iter().map(|(name, text)| nodecast::Input { name: Some(name.to_string()), text: text.to_string() }).collect(),
        objects: gpu_pods(n, GPU_SEED),
        catalog: None,
        ..Default::default()
    }
}

/// The example NodePools with their `spec.limits` removed (the examples cap GPUs at 8 + 16, so
/// with the limits most GPU pods of a large batch are unschedulable).
pub fn without_limits(yaml: &str) -> String {
    let mut out = String::with_capacity(yaml.len());
    let mut skipping = false;
    for line in yaml.lines() {
        if line == "  limits:" {
            skipping = true;
            continue;
        }
        if skipping && line.starts_with("    ") {
            continue;
        }
        skipping = false;
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// [`gpu_request`] over NodePools without limits, so every pod that some GPU type fits is placed.
pub fn gpu_request_unlimited(n: usize) -> Request {
    let mut req = gpu_request(n);
    for input in &mut req.inputs {
        input.text = without_limits(&input.text);
    }
    req
}

/// One GPU pod shape of the GPU benchmark: (GPUs, required GPU names, CPU, memory), drawn with
/// the 50/20/20/10 % mix of 1/2/4/8-GPU pods.
pub(crate) fn gpu_shape(rng: &mut SplitMix64) -> (u32, &'static [&'static str], &'static str, &'static str) {
    match rng.below(10) {
        0..=4 => (
            1,
            *rng.pick(&[&["t4"][..], &["a10g"], &["l4"], &["a10g", "l4"], &["t4", "a10g", "l4"]]),
            *rng.pick(&["2", "3", "4"]),
            *rng.pick(&["8Gi", "12Gi", "14Gi"]),
        ),
        5 | 6 => {
            (2, *rng.pick(&[&["a10g"][..], &["a100", "h100"], &["a10g", "a100"]]), *rng.pick(&["8", "16"]), *rng.pick(&["32Gi", "64Gi"]))
        }
        7 | 8 => (4, *rng.pick(&[&["a10g"][..], &["a100"], &["a100", "h100"]]), *rng.pick(&["16", "32"]), *rng.pick(&["64Gi", "128Gi"])),
        _ => (8, *rng.pick(&[&["a100"][..], &["h100"], &["a100", "h100"]]), "48", *rng.pick(&["256Gi", "512Gi"])),
    }
}

/// `n` GPU pods as Deployments: each Deployment has 5–100 replicas (fewer for the last one) of
/// one [`gpu_shape`], with the same GPU-name node affinity, toleration and GPU limit as
/// [`gpu_pods`]. Replicas of one template are identical, which is how GPU fleets usually look
/// (and what lets a scheduler reuse work across replicas).
pub fn gpu_deployments(n: usize, seed: u64) -> Vec<Value> {
    let mut rng = SplitMix64::new(seed);
    let mut out = Vec::new();
    let mut made = 0;
    while made < n {
        let replicas = rng.between(5, 100).min(n - made);
        let (gpus, names, cpu, memory) = gpu_shape(&mut rng);
        let name = format!("gpu{gpus}-{}", out.len());
        out.push(json!({
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": name, "namespace": "ml"},
            "spec": {
                "replicas": replicas,
                "selector": {"matchLabels": {"app": name}},
                "template": {
                    "metadata": {"labels": {"app": name}},
                    "spec": {
                        "containers": [{"name": "app", "image": "registry.example/inference:1", "resources": {
                            "requests": {"cpu": cpu, "memory": memory, "nvidia.com/gpu": gpus.to_string()},
                            "limits": {"nvidia.com/gpu": gpus.to_string()},
                        }}],
                        "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                            {"matchExpressions": [{"key": "karpenter.k8s.aws/instance-gpu-name", "operator": "In", "values": names}]}
                        ]}}},
                        "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
                    },
                },
            },
        }));
        made += replicas;
    }
    out
}

/// [`gpu_request_unlimited`] with the pods as [`gpu_deployments`].
pub fn gpu_request_deployments(n: usize) -> Request {
    let mut req = gpu_request_unlimited(0);
    req.objects = gpu_deployments(n, GPU_SEED);
    req
}
