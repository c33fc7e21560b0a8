// nodecast for browsers and bundlers (ES module). Call `await init()` once (it fetches
// web/nodecast_wasm_bg.wasm next to this file, or what you pass), then every function is
// synchronous: plan, consolidate, validate, explain, catalog, simulate, compare, call, callJson.
import initGlue, * as glue from './web/nodecast_wasm.js';
import { createApi, FUNCTIONS } from './api.js';

let initialised = false;

/**
 * Load and instantiate the module. `source`: a URL, Response, BufferSource or
 * WebAssembly.Module; default: the .wasm next to this file. Idempotent.
 */
export async function init(source) {
  await initGlue(source === undefined ? undefined : { module_or_path: source });
  initialised = true;
}

/** Synchronous instantiation from bytes or a compiled WebAssembly.Module (workers, tests). */
export function initSync(module) {
  glue.initSync({ module });
  initialised = true;
}

const api = createApi(glue, () => {
  if (!initialised) throw new Error('nodecast: call `await init()` before using the module');
});

export const { plan, consolidate, validate, explain, catalog, simulate, simulateCsv, simulateProm, compare, optimize, advise, call, callJson, isPoisoned, __nodecast_test_panic } = api;
export { FUNCTIONS };
export default init;
