// nodecast for Node.js (ES module). The module is instantiated synchronously on import;
// `init()` exists (and does nothing) so that code shared with browsers runs unchanged.
import glue from './node/nodecast_wasm.js';
import { createApi, FUNCTIONS } from './api.js';

/** Already initialised on import; kept for code shared with the browser entry. */
export async function init() {}

/** Already initialised on import; kept for code shared with the browser entry. */
export function initSync() {}

const api = createApi(glue, () => {});

export const { plan, consolidate, validate, explain, catalog, simulate, simulateCsv, simulateProm, compare, optimize, advise, call, callJson, isPoisoned, __nodecast_test_panic } = api;
export { FUNCTIONS };
export default init;
