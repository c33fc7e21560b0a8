// Bundles the playground's editor (src/editor.js + CodeMirror 6 from node_modules) into one
// minified ES module, build/editor.js, that app.js imports: the page fetches nothing but its own
// files. Prints the bundle's raw and gzip -9 size (the README's figures come from this) and
// writes them to build/size.json.
//
//   node scripts/build.mjs            build (npm ci first: scripts/build.sh does)
import { build } from 'esbuild';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const WEB = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(WEB, 'build');
mkdirSync(OUT, { recursive: true });

const t0 = performance.now();
await build({
  entryPoints: [join(WEB, 'src', 'editor.js')],
  outfile: join(OUT, 'editor.js'),
  bundle: true,
  format: 'esm',
  minify: true,
  // The browsers the page targets already need module workers and CompressionStream.
  target: ['es2020'],
  legalComments: 'eof', // CodeMirror's MIT notices stay in the bundle
  logLevel: 'warning',
});
const ms = performance.now() - t0;
const bytes = readFileSync(join(OUT, 'editor.js'));
const size = { file: 'build/editor.js', rawBytes: bytes.length, gzipBytes: gzipSync(bytes, { level: 9 }).length };
writeFileSync(join(OUT, 'size.json'), JSON.stringify(size, null, 2) + '\n');
const kb = (n) => `${(n / 1024).toFixed(1)} KiB`;
console.log(`web-demo/build/editor.js: ${kb(size.rawBytes)} raw, ${kb(size.gzipBytes)} gzip -9 (esbuild, ${ms.toFixed(0)} ms)`);
