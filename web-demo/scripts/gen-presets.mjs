#!/usr/bin/env node
// Generates web-demo/presets.js from the YAML in ../examples (the playground has no build step
// and no network at run time, so the example texts are embedded in a plain ES module).
//   node scripts/gen-presets.mjs          write presets.js
//   node scripts/gen-presets.mjs --check  exit 1 if presets.js is not what the examples give
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const web = join(here, '..');
const examples = join(web, '..', 'examples');

// Plan presets: NodePools (+ EC2NodeClasses) editor and workload editor, each a list of files.
const PLAN = [
  { id: 'training', label: 'Training Job (4 GPUs) on gpu-training',
    nodepools: ['nodepools/gpu-general.yaml', 'nodepools/gpu-training.yaml'],
    workloads: ['workloads/training-job-4gpu.yaml'],
    pod: 'ml/train-llm-0', instanceType: 'p4d.24xlarge' },
  { id: 'inference-spot', label: 'vLLM inference on spot GPU tiers',
    nodepools: ['nodepools/gpu-general.yaml', 'nodepools/gpu-inference.yaml'],
    workloads: ['workloads/vllm-inference.yaml'],
    pod: 'inference/vllm-mistral-7b-0', instanceType: 'g4dn.xlarge' },
  { id: 'mixed', label: 'Mixed cluster: web Deployment + DaemonSet',
    nodepools: ['nodepools/gpu-general.yaml'],
    workloads: ['workloads/mixed-cluster.yaml'],
    pod: 'shop/web-0', instanceType: 'c6a.large' },
  { id: 'inferentia', label: 'Inferentia2 (Neuron) inference',
    nodepools: ['nodepools/inferentia.yaml'],
    workloads: ['workloads/neuron-inference.yaml'],
    pod: 'inference/llama3-neuron-0', instanceType: 'inf1.xlarge' },
  { id: 'pending-16gpu', label: 'Pending: a 16-GPU Job and an untolerated notebook',
    nodepools: ['nodepools/gpu-inference.yaml', 'nodepools/gpu-training.yaml'],
    workloads: ['workloads/training-job-16gpu.yaml', 'workloads/gpu-notebook.yaml'],
    pod: 'ml/train-70b-0', instanceType: 'p5.48xlarge' },
  { id: 'spot-tiers', label: 'Weighted spot / on-demand tiers with limits',
    nodepools: ['nodepools/spot-tiers.yaml'],
    workloads: ['workloads/batch-workers.yaml', 'workloads/queue-workers.yaml'],
    pod: 'batch/checkout-api-0', instanceType: 'm5.xlarge' },
  { id: 'ml-platform', label: 'Whole ML platform (all GPU pools and workloads)',
    nodepools: ['nodepools/gpu-general.yaml', 'nodepools/gpu-inference.yaml', 'nodepools/gpu-training.yaml'],
    workloads: ['workloads/training-job-4gpu.yaml', 'workloads/vllm-inference.yaml', 'workloads/mixed-cluster.yaml'],
    pod: 'ml/train-llm-0', instanceType: 'p5.48xlarge' },
  // NodeOverlays count only with Karpenter's NodeOverlay gate: the preset turns it on.
  { id: 'gpu-sharing', label: 'GPU sharing: time-slicing and MIG (NodeOverlay gate)',
    nodepools: ['overlays/gpu-shared.yaml'],
    workloads: ['overlays/shared-gpu-workloads.yaml'],
    pod: 'ml/mig-models-0', instanceType: 'p5.48xlarge', featureGates: 'NodeOverlay=true' },
  // The worked example of docs/reservations.md: cluster.yaml's EC2NodeClass and NodePools go to
  // the NodePools editor, its Job to the workloads editor; reservations.json (the AWS CLI's
  // describe-capacity-reservations output) to the reservations editor; `now` is the pass's time.
  { id: 'p5-capacity-blocks', label: 'p5 capacity blocks + on-demand fallback pool (reservations)',
    split: 'reservations/cluster.yaml', reservations: 'reservations/reservations.json', now: '2026-12-01T12:00:00Z',
    pod: 'default/train-llm-0', instanceType: 'p5.48xlarge' },
];

// Consolidation presets: one editor holding a pool file and the cluster state.
const CONSOLIDATE = [
  { id: 'underutilized', label: 'WhenEmptyOrUnderutilized: half-used GPU node',
    files: ['disruption/pool-underutilized.yaml', 'disruption/cluster-state.yaml'], now: '2025-03-05T12:00:00Z' },
  { id: 'when-empty', label: 'WhenEmpty: the node is not empty',
    files: ['disruption/pool-when-empty.yaml', 'disruption/cluster-state.yaml'], now: '2025-03-05T12:00:00Z' },
  { id: 'business-hours', label: 'Budget window: no disruption weekdays 09–17 UTC',
    files: ['disruption/pool-business-hours.yaml', 'disruption/cluster-state.yaml'], now: '2025-03-05T12:00:00Z' },
  { id: 'balanced', label: 'Balanced: the move is scored against the pool',
    files: ['disruption/pool-balanced.yaml', 'disruption/cluster-state.yaml'], now: '2025-03-05T12:00:00Z' },
  { id: 'spot-to-spot', label: 'Spot node: replaced only with SpotToSpotConsolidation',
    files: ['disruption/pool-spot.yaml', 'disruption/cluster-state-spot.yaml'], now: '2025-03-05T12:00:00Z' },
  // docs/reservations.md's consolidate --now example: the reservations document is one more
  // document of the editor (the files are joined with `---`, the JSON as a YAML flow mapping).
  { id: 'capacity-block-expiring', label: 'Capacity block expiring: its NodeClaim is deleted (reservations)',
    files: ['reservations/cluster.yaml', 'reservations/reservations.json', 'reservations/nodes.yaml'], separate: true, now: '2026-12-01T11:55:00Z' },
];

// Simulation presets: the cluster editor (NodePools + the workload templates the trace refers
// to), the trace editor (examples/simulate) and the seed, as `nodecast simulate CLUSTER... --trace
// TRACE --seed SEED` runs them.
const SIMULATE = [
  { id: 'day', label: 'One day: vLLM scaling, three fine-tuning runs, a spot interruption',
    cluster: ['nodepools/gpu-training.yaml', 'nodepools/gpu-inference.yaml', 'workloads/training-job-4gpu.yaml', 'workloads/vllm-inference.yaml'],
    trace: 'simulate/day.yaml', seed: 7 },
  // The README's week (its command line); settings as examples/simulate/settings.yaml (checked below).
  { id: 'week', label: 'A week of a GPU training team (nightly 8-GPU runs, notebooks, vLLM)',
    cluster: ['nodepools/gpu-training.yaml', 'nodepools/gpu-inference.yaml', 'workloads/vllm-inference.yaml', 'simulate/workloads.yaml'],
    trace: 'simulate/week.yaml', seed: 7, spot: '0.01', settingsFile: 'simulate/settings.yaml' },
  // docs/reservations.md's week (its command line: the default seed 0): the reservations
  // document is one more document of the cluster editor, joined with `---`.
  { id: 'reserved-week', label: 'A week on a p5 capacity block and an ODCR (reservations)',
    cluster: ['reservations/week/cluster.yaml', 'reservations/week/reservations.json'], separate: true,
    trace: 'reservations/week/trace.yaml', seed: 0 },
  // docs/simulate.md's HPA day (the seed guide's vLLM HPA over a diurnal demand) and its KEDA
  // ScaledJob draining a GPU batch queue: the autoscaling chart's examples.
  { id: 'hpa-day', label: 'HPA: the vLLM autoscaler over one diurnal day (demand series)',
    cluster: ['nodepools/gpu-inference.yaml', 'workloads/vllm-inference.yaml', 'simulate/hpa-vllm.yaml'], separate: true,
    trace: 'simulate/hpa-day.yaml', seed: 7 },
  { id: 'keda-batch', label: 'KEDA: a ScaledJob draining a GPU batch queue',
    cluster: ['nodepools/gpu-training.yaml', 'simulate/keda-batch.yaml'], separate: true,
    trace: 'simulate/keda-queue.yaml', seed: 7 },
  // docs/cluster-autoscaler.md's side by side (its command line: the default seed 0): the seed's
  // four GPU node groups (eksctl) under the Cluster Autoscaler, and migrate's NodePools under
  // Karpenter, over half a day of training and evaluation Jobs.
  { id: 'node-groups', label: 'Cluster Autoscaler vs Karpenter: the GPU node groups side by side',
    cluster: ['node-groups/eksctl-gpu.yaml', 'workloads/eval-jobs-1gpu.yaml', 'workloads/training-job-4gpu.yaml'], separate: true,
    trace: 'node-groups/gpu-day.yaml', seed: 0, compare: 'cluster-autoscaler' },
];

const files = {};
const read = (f) => (files[f] ??= readFileSync(join(examples, f), 'utf8'));
const cat = (list) => list.map(read).map((t) => (t.endsWith('\n') ? t : t + '\n')).join('');

// Files as separate YAML documents: a `---` before every file after the first.
const catDocs = (list) => list.map(read).map((t) => (t.endsWith('\n') ? t : t + '\n')).join('---\n');
// One multi-document file split in two: its EC2NodeClasses and NodePools, and everything else
// (each document keeps the comments above it; the file's header goes with the first).
function splitKinds(file) {
  const docs = read(file).split(/^---[ \t]*\n/m);
  const pools = [], rest = [];
  for (const d of docs) (/^kind:\s*(EC2NodeClass|NodePool)\s*$/m.test(d) ? pools : rest).push(d);
  if (!pools.length || !rest.length) throw new Error(`${file}: expected NodePools and workloads to split`);
  return [pools.join('---\n'), rest.join('---\n')];
}

const plan = PLAN.map(({ nodepools, workloads, split, reservations, ...p }) => {
  if (split) {
    const [pools, loads] = splitKinds(split);
    return { ...p, sources: { split, reservations }, nodepools: pools, workloads: loads, reservations: read(reservations) };
  }
  return { ...p, sources: { nodepools, workloads }, nodepools: cat(nodepools), workloads: cat(workloads) };
});
const consolidate = CONSOLIDATE.map(({ files: fs, separate, ...p }) => ({ ...p, sources: fs, cluster: separate ? catDocs(fs) : cat(fs) }));
// A preset with a settingsFile must say what that file says (the playground has no YAML parser).
for (const p of SIMULATE.filter((p) => p.settingsFile)) {
  const text = read(p.settingsFile);
  const want = { seed: String(p.seed), spotInterruptionRatePerHour: p.spot ?? '' };
  for (const [k, v] of Object.entries(want)) {
    const m = new RegExp(`^${k}:\\s*(\\S+)\\s*$`, 'm').exec(text);
    if ((m ? m[1] : '') !== v) {
      console.error(`${p.settingsFile}: ${k} is ${m ? m[1] : 'unset'}, the '${p.id}' preset says ${v || 'unset'}: update SIMULATE in scripts/gen-presets.mjs`);
      process.exit(1);
    }
  }
}
const simulate = SIMULATE.map(({ cluster, trace, settingsFile, separate, ...p }) => ({
  ...p, sources: { cluster, trace, ...(settingsFile ? { settings: settingsFile } : {}) }, cluster: separate ? catDocs(cluster) : cat(cluster), trace: read(trace),
}));

const out = `// GENERATED by scripts/gen-presets.mjs from ../examples — do not edit; run \`node scripts/gen-presets.mjs\`.
// The example YAML texts, embedded so that the playground needs no network and no build step.

/** Plan presets: {id, label, sources, nodepools, workloads, pod, instanceType[, featureGates][, reservations, now]}. */
export const PLAN_PRESETS = ${JSON.stringify(plan, null, 2)};

/** Consolidation presets: {id, label, sources, cluster, now}. */
export const CONSOLIDATE_PRESETS = ${JSON.stringify(consolidate, null, 2)};

/** Simulation presets: {id, label, sources, cluster, trace, seed, spot?, compare?}. */
export const SIMULATE_PRESETS = ${JSON.stringify(simulate, null, 2)};
`;

const target = join(web, 'presets.js');
if (process.argv.includes('--check')) {
  let cur = '';
  try { cur = readFileSync(target, 'utf8'); } catch {}
  if (cur !== out) {
    console.error('presets.js is stale: run node web-demo/scripts/gen-presets.mjs');
    process.exit(1);
  }
  console.log('presets.js matches ../examples');
} else {
  writeFileSync(target, out);
  console.log(`wrote ${target} (${plan.length} plan presets, ${consolidate.length} consolidation presets, ${simulate.length} simulation presets)`);
}
