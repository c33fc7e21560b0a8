// Bundles the playground's editor (src/editor.js + CodeMirror 6 from node_modules) into one
// minified ES module, build/editor.js, that app.js imports: the page fetches nothing but its own
// files. Prints the bundle's raw and gzip -9 size (the README's figures come from this) and
// writes them to build/size.json. The licences of the bundled packages (all MIT) go beside it, in
// build/editor.licenses.txt, which the bundle's first line names.
//
//   node scripts/build.mjs            build (npm ci first: scripts/build.sh does)
import { build } from 'esbuild';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const WEB = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(WEB, 'build');
mkdirSync(OUT, { recursive: true });

const t0 = performance.now();
const result = await build({
  entryPoints: [join(WEB, 'src', 'editor.js')],
  outfile: join(OUT, 'editor.js'),
  bundle: true,
  format: 'esm',
  minify: true,
  // The browsers the page targets already need module workers and CompressionStream.
  target: ['es2020'],
  legalComments: 'eof',
  banner: { js: '/* nodecast playground editor: CodeMirror 6 and Lezer (MIT), bundled by esbuild; licences in editor.licenses.txt */' },
  metafile: true,
  logLevel: 'warning',
});
const ms = performance.now() - t0;

// Every npm package with code in the bundle, with its licence text.
const packages = new Map();
for (const [input, { bytesInOutput }] of Object.entries(result.metafile.outputs[Object.keys(result.metafile.outputs)[0]].inputs)) {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
  if (m && bytesInOutput > 0) packages.set(m[1], (packages.get(m[1]) || 0) + bytesInOutput);
}
const notices = [...packages.keys()].sort().map((name) => {
  const dir = join(WEB, 'node_modules', name);
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const file = readdirSync(dir).find((f) => /^licen[cs]e/i.test(f));
  if (!file) throw new Error(`${name}: no licence file to ship with the bundle`);
  return `${name} ${pkg.version} (${pkg.license})\n\n${readFileSync(join(dir, file), 'utf8').trim()}\n`;
});
writeFileSync(join(OUT, 'editor.licenses.txt'), `Packages bundled into editor.js by web-demo/scripts/build.mjs:\n\n${notices.join('\n' + '-'.repeat(72) + '\n\n')}`);
const bytes = readFileSync(join(OUT, 'editor.js'));
const size = { file: 'build/editor.js', rawBytes: bytes.length, gzipBytes: gzipSync(bytes, { level: 9 }).length };
writeFileSync(join(OUT, 'size.json'), JSON.stringify(size, null, 2) + '\n');
const kb = (n) => `${(n / 1024).toFixed(1)} KiB`;
console.log(`web-demo/build/editor.js: ${kb(size.rawBytes)} raw, ${kb(size.gzipBytes)} gzip -9 (${size.rawBytes} / ${size.gzipBytes} bytes; ${packages.size} npm packages; esbuild ${ms.toFixed(0)} ms)`);
