// The playground's modules, checked (issue 37): no import circle among the page's own ES modules,
// and no hand-written module over MAX_LINES lines. Reads the static `import ... from './x.js'`
// (and `export ... from`) statements of every .js file in web-demo/ and web-demo/src/; imports of
// packages (the editor bundle's npm dependencies) and dynamic import() are not edges of the graph.
// Usage: node scripts/check-modules.mjs   (exit 1 with the circle or the long file named)
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const MAX_LINES = 600;
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
// presets.js is generated from ../examples (scripts/gen-presets.mjs): data, not hand-written.
const GENERATED = new Set(['presets.js']);

const files = [];
for (const dir of ['.', 'src']) {
  for (const f of readdirSync(join(ROOT, dir))) if (f.endsWith('.js')) files.push(normalize(join(dir, f)));
}

const problems = [];
const graph = new Map();
for (const f of files) {
  const text = readFileSync(join(ROOT, f), 'utf8');
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  if (lines > MAX_LINES && !GENERATED.has(f)) problems.push(`${f}: ${lines} lines (at most ${MAX_LINES})`);
  const deps = [];
  for (const m of text.matchAll(/^\s*(?:import|export)\s[^;]*?\sfrom\s+['"](\.{1,2}\/[^'"]+)['"]/gm)) {
    deps.push(normalize(join(dirname(f), m[1])));
  }
  for (const m of text.matchAll(/^\s*import\s+['"](\.{1,2}\/[^'"]+)['"]/gm)) deps.push(normalize(join(dirname(f), m[1])));
  graph.set(f, deps);
}
for (const [f, deps] of graph) {
  for (const d of deps) if (!graph.has(d) && !d.startsWith('build/') && !d.startsWith('pkg/')) problems.push(`${f} imports ${d}, which is not a module of the playground`);
}

// Depth-first search with colours: an edge to a module on the stack closes a circle.
const colour = new Map();
const stack = [];
function visit(f) {
  colour.set(f, 'grey');
  stack.push(f);
  for (const d of graph.get(f) || []) {
    if (!graph.has(d)) continue;
    if (colour.get(d) === 'grey') problems.push(`import circle: ${[...stack.slice(stack.indexOf(d)), d].join(' → ')}`);
    else if (!colour.has(d)) visit(d);
  }
  stack.pop();
  colour.set(f, 'black');
}
for (const f of [...graph.keys()].sort()) if (!colour.has(f)) visit(f);

const edges = [...graph.values()].reduce((n, d) => n + d.length, 0);
if (problems.length) {
  for (const p of problems) console.error(`check-modules: ${p}`);
  process.exit(1);
}
console.log(`check-modules: ${graph.size} modules, ${edges} imports, no circle, none over ${MAX_LINES} lines (${relative(process.cwd(), ROOT) || '.'})`);
