// nodecast (WebAssembly): the public API over wasm-bindgen's glue, shared by the browser entry
// (index.js, `--target web` glue) and the Node entry (node.js, `--target nodejs` glue).
//
// The only thing this layer adds is panic recovery. The module is built with panic=abort: a Rust
// panic runs the hook installed at start-up (it records the message in linear memory), then
// aborts with a wasm `unreachable` trap, which reaches JS as `WebAssembly.RuntimeError:
// unreachable`. An instance that trapped must not be used again (its stack pointer, allocator and
// wasm-bindgen state are whatever they were mid-call). So: catch the error, read the recorded
// message, mark the instance poisoned, return a failure answer with code `internal-panic`, and
// re-instantiate the module (wasm-bindgen's `__wbg_reset_state`: a new instance of the already
// compiled module, synchronously) at the start of the next call.

/** The facade functions, in the order the core lists them. */
export const FUNCTIONS = Object.freeze(['plan', 'consolidate', 'explain', 'validate', 'catalog', 'simulate', 'simulate-csv', 'simulate-prom', 'optimize', 'advise']);

const KINDS = {
  plan: 'Plan',
  consolidate: 'Decision',
  explain: 'Explanation',
  validate: 'Validation',
  catalog: 'CatalogQuery',
  simulate: 'Simulation',
  'simulate-csv': 'Simulation',
  'simulate-prom': 'Simulation',
  optimize: 'Optimization',
  advise: 'Advice',
  // `compare` is `simulate` with `compare: cluster-autoscaler` (no core function of its own).
  compare: 'Comparison',
};

/** `simulate`'s `output` option: the core function that renders it. */
const SIM_OUTPUTS = { json: 'simulate', csv: 'simulate-csv', prom: 'simulate-prom', prometheus: 'simulate-prom' };

/**
 * `simulate(input, options)`: the conveniences of its options, turned into request fields (the
 * core's `trace` and `simulation`). `trace` may be text (named `traceName`, default `"trace"`,
 * read as `traceFormat`); `seed` is merged into `simulation` (the options' or the request's);
 * `output` picks the JSON answer, the CSV or the Prometheus text. Returns [fn, options] or a
 * failure answer for options that cannot be used.
 */
function simulateRequest(input, options) {
  if (options === undefined || options === null || typeof options !== 'object' || Array.isArray(options)) {
    return ['simulate', options];
  }
  const { output, seed, trace, traceName, traceFormat, ...rest } = options;
  const fn = output === undefined ? 'simulate' : SIM_OUTPUTS[output];
  if (fn === undefined) {
    return failure('simulate', 'invalid-request', `options.output must be "json", "csv" or "prom", not ${JSON.stringify(output)}`);
  }
  if (typeof trace === 'string') {
    rest.trace = { name: traceName ?? 'trace', text: trace };
    if (traceFormat !== undefined) rest.trace.format = traceFormat;
  } else if (trace !== undefined) {
    rest.trace = trace;
  }
  if (seed !== undefined) {
    let base = rest.simulation;
    if (base === undefined && input !== null && typeof input === 'object') base = input.simulation;
    if (base === undefined && typeof input === 'string' && rest.as === 'request') {
      try {
        base = JSON.parse(input).simulation;
      } catch {
        // Not JSON: the core reports the request itself.
      }
    }
    rest.simulation = { ...(base ?? {}), seed };
  }
  return [fn, rest];
}

const HELP =
  'this is a bug in nodecast, not in your input; the module was re-instantiated and the next call works. ' +
  'Please report it with the request that caused it.';

function failure(fn, code, message, help) {
  return {
    apiVersion: 'nodecast/v1',
    kind: KINDS[fn] ?? 'Error',
    status: 'failure',
    errors: [help === undefined ? { code, message } : { code, message, help }],
  };
}

/**
 * @param glue  wasm-bindgen's generated module (namespace or CommonJS exports)
 * @param ready throws when the module is not initialised yet (browser: before `init()`)
 */
export function createApi(glue, ready) {
  let poisoned = false;

  // The message the panic hook left in the trapped instance's memory (null if none).
  function panicMessage() {
    try {
      const ptr = glue.__nodecast_panic_ptr();
      const len = glue.__nodecast_panic_len();
      if (!ptr || !len) return null;
      const memory = glue.__nodecast_memory();
      return new TextDecoder().decode(new Uint8Array(memory.buffer, ptr, len));
    } catch {
      return null;
    }
  }

  // Run `thunk` against a healthy instance; any exception out of wasm is an abort.
  function guarded(fn, thunk, asJson) {
    ready();
    if (poisoned) {
      try {
        glue.__wbg_reset_state();
        poisoned = false;
      } catch (e) {
        const answer = failure(fn, 'internal-panic', `nodecast could not re-instantiate its WebAssembly module after a panic: ${e}`);
        return asJson ? JSON.stringify(answer, null, 2) : answer;
      }
    }
    try {
      return thunk();
    } catch (e) {
      // User errors are answers, never exceptions: whatever escaped is a trap (a panic, an
      // allocation failure, a stack overflow) and the instance is unusable now.
      const recorded = panicMessage();
      poisoned = true;
      const message = recorded !== null ? `nodecast panicked: ${recorded}` : `nodecast aborted: ${e && e.name ? `${e.name}: ${e.message}` : e}`;
      const answer = failure(fn, 'internal-panic', message, HELP);
      return asJson ? JSON.stringify(answer, null, 2) : answer;
    }
  }

  const api = {
    /** Any facade function by name; the answer object. */
    call(fn, input, options) {
      fn = String(fn);
      return guarded(fn, () => glue.call(fn, input, options), false);
    },
    /** The core's exact JSON for a JSON request (what `nodecast <fn> -o json` prints, minus the newline). */
    callJson(fn, requestJson) {
      fn = String(fn);
      if (typeof requestJson !== 'string') throw new TypeError('callJson(fn, requestJson): requestJson must be a string (JSON)');
      return guarded(fn, () => glue.callJson(fn, requestJson), true);
    },
    /** True between a panic and the re-instantiation at the start of the next call. */
    isPoisoned() {
      return poisoned;
    },
    /** Debug hook for tests: panics inside the module (the answer is an `internal-panic` failure). */
    __nodecast_test_panic(message = 'test panic') {
      return guarded('plan', () => glue.__nodecast_test_panic(String(message)), false);
    },
  };
  for (const fn of ['plan', 'consolidate', 'explain', 'validate', 'catalog']) {
    api[fn] = (input, options) => guarded(fn, () => glue[fn](input, options), false);
  }
  /** The cheapest plan beside Karpenter's (through the generic entry: no export of its own in the glue). */
  api.optimize = (input, options) => guarded('optimize', () => glue.call('optimize', input, options), false);
  /** NodePool edits that make Karpenter's own plan cheaper, each verified by planning again. */
  api.advise = (input, options) => guarded('advise', () => glue.call('advise', input, options), false);
  /** Replay a trace over simulated time (docs/simulate.md); `output: "csv" | "prom"` gives the series as text. */
  api.simulate = (input, options) => {
    const prepared = simulateRequest(input, options);
    if (!Array.isArray(prepared)) return prepared;
    const [fn, opts] = prepared;
    return guarded(fn, () => glue.call(fn, input, opts), false);
  };
  /**
   * The trace under the node groups with the Cluster Autoscaler and under NodePools with Karpenter,
   * side by side (`nodecast simulate --compare cluster-autoscaler`; docs/cluster-autoscaler.md):
   * `simulate` with `compare: "cluster-autoscaler"` unless the request or the options name it.
   */
  api.compare = (input, options) => {
    if (options !== undefined && options !== null && (typeof options !== 'object' || Array.isArray(options))) {
      return guarded('compare', () => glue.call('simulate', input, options), false); // the core reports the options
    }
    const { output, ...rest } = options ?? {};
    if (output !== undefined && output !== 'json') {
      return failure('compare', 'invalid-request', `options.output: compare answers JSON only, not ${JSON.stringify(output)}`);
    }
    const named = rest.compare !== undefined || (input !== null && typeof input === 'object' && input.compare !== undefined);
    const prepared = simulateRequest(input, named ? rest : { ...rest, compare: 'cluster-autoscaler' });
    if (!Array.isArray(prepared)) return prepared;
    return guarded('compare', () => glue.call('simulate', input, prepared[1]), false);
  };
  /** The series as CSV (`nodecast simulate -o csv`), or the failure answer. */
  api.simulateCsv = (input, options) => api.simulate(input, { ...(options ?? {}), output: 'csv' });
  /** The series as Prometheus text (`nodecast simulate -o prom`), or the failure answer. */
  api.simulateProm = (input, options) => api.simulate(input, { ...(options ?? {}), output: 'prom' });
  return api;
}
