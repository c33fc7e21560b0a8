// nodecast playground worker: loads the wasm build of the core and answers requests off the main
// thread, so typing never waits for a plan. Messages in: {id, op, request}; op is one of the
// facade functions (plan, consolidate, explain, catalog, validate, simulate, optimize, advise) or 'bench';
// `options` (optional) is the wasm functions' second argument (e.g. `{reservations}`, the
// describe-capacity-reservations text, which the binding appends to the request). Messages out:
// {id, op, answer, ms} or {id, op, error} ({type: 'ready', ...} once the wasm is loaded).
import { PLAN_PRESETS } from './presets.js';

const FUNCTIONS = ['plan', 'consolidate', 'explain', 'catalog', 'validate', 'simulate', 'optimize', 'advise'];
// A pkg/ built before `simulate` (or `optimize`, `advise`) existed still serves the other tabs.
const REQUIRED = FUNCTIONS.filter((f) => !['simulate', 'optimize', 'advise'].includes(f));

// The browser ESM build that bindings-wasm's build copies into pkg/. The first module that loads
// and exports the facade functions wins (a JS wrapper first, then wasm-bindgen's own output).
const CANDIDATES = ['./pkg/index.js', './pkg/nodecast_web.js', './pkg/browser.js', './pkg/nodecast.js'];

let api = null;

async function load() {
  const t0 = performance.now();
  const tried = [];
  for (const path of CANDIDATES) {
    let mod;
    try {
      mod = await import(path);
    } catch (e) {
      tried.push(`${path}: ${e.message || e}`);
      continue;
    }
    if (!REQUIRED.every((f) => typeof mod[f] === 'function')) {
      tried.push(`${path}: does not export ${REQUIRED.join(', ')}`);
      continue;
    }
    if (typeof mod.default === 'function') await mod.default();
    else if (typeof mod.init === 'function') await mod.init();
    api = mod;
    return { module: path, ms: performance.now() - t0 };
  }
  const err = new Error(`no nodecast wasm module in pkg/ (tried ${CANDIDATES.join(', ')})`);
  err.details = tried.join('\n');
  throw err;
}

// The contract is request object in, answer object out; tolerate a build that speaks JSON text.
function call(op, request, options) {
  let answer = options === undefined ? api[op](request) : api[op](request, options);
  if (typeof answer === 'string') answer = JSON.parse(answer);
  else if (answer instanceof Map) answer = Object.fromEntries(answer);
  return answer;
}

/** A Deployment with `replicas` pods (1 vCPU, 2Gi each) on the gpu-general NodePool. */
function benchRequest(replicas = 500) {
  const pools = PLAN_PRESETS.find((p) => p.id === 'mixed').nodepools;
  const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: bench
  namespace: bench
spec:
  replicas: ${replicas}
  selector:
    matchLabels: {app: bench}
  template:
    metadata:
      labels: {app: bench}
    spec:
      containers:
        - name: app
          image: nginx
          resources:
            requests: {cpu: "1", memory: 2Gi}
`;
  return { inputs: [{ name: 'nodepools.yaml', text: pools }, { name: 'bench.yaml', text: deployment }] };
}

/**
 * Time `plan` on the 500-pod request as the playground sees it (request object in, answer object
 * out): the first call, `warmup` untimed calls (the engine tiers the wasm up to optimised code
 * while a user types), then `runs` timed calls.
 */
function bench(runs = 20, replicas = 500, warmup = 10) {
  const req = benchRequest(replicas);
  const t0 = performance.now();
  const first = call('plan', req);
  const cold = performance.now() - t0;
  for (let i = 0; i < warmup; i++) call('plan', req);
  const times = [];
  for (let i = 0; i < runs; i++) {
    const s = performance.now();
    call('plan', req);
    times.push(performance.now() - s);
  }
  const sorted = [...times].sort((a, b) => a - b);
  const pods = first.status === 'success' ? first.nodeClaims.reduce((n, c) => n + c.pods.length, 0) : 0;
  return {
    pods: replicas,
    placed: pods,
    nodeClaims: first.status === 'success' ? first.nodeClaims.length : 0,
    status: first.status,
    firstMs: cold,
    warmup,
    medianMs: sorted[Math.floor(sorted.length / 2)],
    minMs: sorted[0],
    maxMs: sorted[sorted.length - 1],
    runs: times,
  };
}

const ready = load().then(
  (info) => {
    self.postMessage({ type: 'ready', ...info });
    return true;
  },
  (e) => {
    self.postMessage({ type: 'load-error', error: String(e.message || e), details: e.details || '' });
    return false;
  },
);

self.onmessage = async (ev) => {
  const { id, op, request, options } = ev.data;
  if (!(await ready)) {
    self.postMessage({ id, op, error: 'the wasm module did not load' });
    return;
  }
  try {
    if (op === 'bench') {
      self.postMessage({ id, op, bench: bench(request?.runs, request?.replicas, request?.warmup) });
      return;
    }
    if (!FUNCTIONS.includes(op)) throw new Error(`unknown operation ${op}`);
    if (typeof api[op] !== 'function') throw new Error(`pkg/ has no ${op}: rebuild it with make wasm (bindings-wasm/scripts/build.sh)`);
    const t0 = performance.now();
    const answer = call(op, request, options);
    self.postMessage({ id, op, answer, ms: performance.now() - t0 });
  } catch (e) {
    self.postMessage({ id, op, error: String(e?.stack || e?.message || e) });
  }
};
