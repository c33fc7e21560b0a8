// Shared by the node tests: paths, example texts, the CLI.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const HERE = dirname(fileURLToPath(import.meta.url));
export const BINDINGS = join(HERE, '..');
export const ROOT = join(BINDINGS, '..');
export const PKG = join(BINDINGS, 'pkg');
// NODECAST_BIN: another build of the CLI (a debug one while iterating); the release build by default.
export const CLI = process.env.NODECAST_BIN || join(process.env.CARGO_TARGET_DIR || join(ROOT, 'target'), 'release', 'nodecast');

export const TRAINING = ['examples/nodepools/gpu-general.yaml', 'examples/nodepools/gpu-training.yaml', 'examples/workloads/training-job-4gpu.yaml'];
export const UNDERUTILIZED = ['examples/disruption/pool-underutilized.yaml', 'examples/disruption/cluster-state.yaml'];
export const NOW = '2025-03-05T12:00:00Z';

/** The text of a file relative to the repository root. */
export const read = (path) => readFileSync(join(ROOT, path), 'utf8');

/** The request the CLI builds for FILES: one input per file, named by its path as given. */
export const requestFor = (files, extra = {}) => ({ inputs: files.map((name) => ({ name, text: read(name) })), ...extra });

/** The files concatenated into one manifest text (each example file starts with `---`). */
export const concat = (files) => files.map(read).map((t) => (t.endsWith('\n') ? t : t + '\n')).join('');

/** stdout of `nodecast ARGS` run in the repository root (whatever its exit code). */
export function cli(args) {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`cargo build --release -p nodecast-cli\` in ${ROOT} (scripts/test.sh does)`);
  try {
    return execFileSync(CLI, args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    if (typeof e.stdout === 'string' && e.status !== null) return e.stdout;
    throw e;
  }
}

/** A Deployment with `replicas` pods (1 vCPU, 2Gi each): the playground's 500-pod benchmark. */
export function deployment(replicas, name = 'bench') {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  namespace: bench
spec:
  replicas: ${replicas}
  selector:
    matchLabels: {app: ${name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      containers:
        - name: app
          image: nginx
          resources:
            requests: {cpu: "1", memory: 2Gi}
`;
}
