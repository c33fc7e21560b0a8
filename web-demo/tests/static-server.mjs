// A static file server for the browser tests: python3's http.server on a free local port,
// serving one directory (the playground). Shared by e2e.mjs and first-answer.mjs.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';

/** A port nothing listens on right now (the OS picks it). */
export function freePort() {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });
}

/** Serve `dir`; resolves to `{ url, stop }` once the server answers (10 s at most). */
export async function serveDir(dir) {
  const port = await freePort();
  const proc = spawn('python3', ['-m', 'http.server', String(port), '--bind', '127.0.0.1', '--directory', dir], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  proc.stderr.on('data', (d) => (log = (log + d).slice(-4000)));
  const url = `http://127.0.0.1:${port}/`;
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(url)).ok) return { url, stop: () => proc.kill() };
    } catch {
      /* not yet */
    }
    if (proc.exitCode !== null) throw new Error(`http.server exited: ${log}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  proc.kill();
  throw new Error(`http.server did not answer on ${url}: ${log}`);
}
