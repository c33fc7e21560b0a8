// The worker client: the page's worker (plan, consolidate, explain, catalog, optimize, advise,
// bench) and the simulation's own worker, each request a promise of the worker's answer.
import { timings, withCatalog } from './state.js';

const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
let nextId = 1;
const pending = new Map();
let workerReady;
export const readyPromise = new Promise((resolve, reject) => (workerReady = { resolve, reject }));
readyPromise.catch(() => {}); // reported where it is awaited

worker.onmessage = (ev) => {
  const msg = ev.data;
  if (msg.type === 'ready') {
    timings.ready = true;
    timings.readyAt = performance.now();
    timings.module = msg.module;
    timings.loadMs = msg.ms;
    workerReady.resolve(msg);
    return;
  }
  if (msg.type === 'load-error') {
    const e = new Error(msg.error);
    e.details = msg.details;
    timings.loadError = [msg.error, msg.details].filter(Boolean).join('\n');
    workerReady.reject(e);
    return;
  }
  const p = pending.get(msg.id);
  if (!p) return;
  pending.delete(msg.id);
  if (msg.error) p.reject(new Error(msg.error));
  else p.resolve(msg);
};
worker.onerror = (ev) => workerReady.reject(new Error(ev.message || 'the worker failed to start'));

export function ask(op, request, options) {
  if (op !== 'bench') request = withCatalog(request);
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    worker.postMessage({ id, op, request, options });
  });
}

// Simulations run in a worker of their own, so a long one never delays the plan and
// consolidation tabs; an edit that supersedes a running simulation terminates that worker and
// starts a fresh one (the core cannot be interrupted mid-call). The core is deterministic, so
// answers are cached by request: going back to an earlier seed or text is instant.
let simWorker = null;
let simBusy = null; // {id, reject} of the simulation in flight
const simCache = new Map();
const SIM_CACHE_SIZE = 16;
function simWorkerReady() {
  if (simWorker) return simWorker.ready;
  const w = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  const entry = { worker: w, pending: new Map() };
  entry.ready = new Promise((resolve, reject) => {
    w.onmessage = (ev) => {
      const msg = ev.data;
      if (msg.type === 'ready') return resolve(entry);
      if (msg.type === 'load-error') return reject(new Error(msg.error));
      const p = entry.pending.get(msg.id);
      if (!p) return;
      entry.pending.delete(msg.id);
      if (msg.error) p.reject(new Error(msg.error));
      else p.resolve(msg);
    };
    w.onerror = (ev) => reject(new Error(ev.message || 'the simulation worker failed to start'));
  });
  simWorker = entry;
  return entry.ready;
}
export async function askSimulate(request) {
  const key = JSON.stringify(request);
  if (simCache.has(key)) return { ...simCache.get(key), cached: true };
  if (simBusy) {
    // Superseded: stop the running simulation with its worker.
    simWorker.worker.terminate();
    simWorker = null;
    simBusy.reject(Object.assign(new Error('superseded'), { superseded: true }));
    simBusy = null;
  }
  const entry = await simWorkerReady();
  const id = nextId++;
  const result = await new Promise((resolve, reject) => {
    simBusy = { id, reject };
    entry.pending.set(id, { resolve, reject });
    entry.worker.postMessage({ id, op: 'simulate', request });
  }).finally(() => {
    if (simBusy?.id === id) simBusy = null;
  });
  simCache.set(key, { answer: result.answer, ms: result.ms });
  if (simCache.size > SIM_CACHE_SIZE) simCache.delete(simCache.keys().next().value);
  return result;
}
