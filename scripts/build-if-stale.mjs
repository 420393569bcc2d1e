// Runs before `npm start`: builds dist/ only when the sources changed since the last build.
// The build's inputs (src/, routes/, the tsconfig files, package.json and the lock file) are
// hashed by content; the hash of the last good build is kept in dist/.build-hash. A missing
// dist, a missing entry point or a different hash rebuilds; the same hash starts at once.
// `--always` builds whatever the hash (`npm run build`) and records it.
//
// A build is tsc's output (dist/, one file per module: what the Docker image and the tests use)
// and dist/src/main.bundle.mjs, the server's own modules in one file (esbuild; packages stay
// outside), which `npm start` runs: loading ~300 small modules was a sixth of its start-up; and
// dist/console, the web console's page and its content-hashed script and styles
// (scripts/build-console.mjs), which the server serves at /console/.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const stampFile = path.join(root, 'dist', '.build-hash');
const entry = path.join(root, 'dist', 'src', 'main.bundle.mjs');
const INPUTS = ['src', 'routes', 'console', 'scripts/build-console.mjs', 'tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json'];

function* files(p) {
  let st;
  try {
    st = fs.statSync(p);
  } catch {
    return; // an absent input (no lock file yet) hashes as absent
  }
  if (st.isDirectory()) {
    for (const name of fs.readdirSync(p).sort()) yield* files(path.join(p, name));
  } else if (st.isFile()) {
    yield p;
  }
}

function inputsHash() {
  const h = createHash('sha256');
  for (const input of INPUTS) {
    for (const f of files(path.join(root, input))) {
      h.update(path.relative(root, f)).update('\0').update(fs.readFileSync(f)).update('\0');
    }
  }
  return h.digest('hex');
}

const hash = inputsHash();
const always = process.argv.includes('--always');
const built = !always && fs.existsSync(entry) && fs.existsSync(stampFile) && fs.readFileSync(stampFile, 'utf8').trim() === hash;
if (!built) {
  const started = performance.now();
  if (!always) {
    // Said before the silent part: a first start compiles for tens of seconds before it serves.
    const first = !fs.existsSync(stampFile) && !fs.existsSync(entry);
    console.error(
      first
        ? 'first start: building dist/ (the server and the web console; 10-40 s, once) ...'
        : 'the sources changed since the last build: building dist/ again (10-40 s) ...',
    );
  }
  // A failed build leaves no stamp: the next start tries again.
  fs.rmSync(stampFile, { force: true });
  execFileSync(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(root, 'tsconfig.build.json')], {
    stdio: 'inherit',
    cwd: root,
  });
  const { build } = await import('esbuild');
  await build({
    entryPoints: [path.join(root, 'dist', 'src', 'main.js')],
    outfile: path.join(root, 'dist', 'src', 'main.bundle.mjs'),
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: true,
    logLevel: 'warning',
  });
  const { buildConsole } = await import('./build-console.mjs');
  await buildConsole(path.join(root, 'dist', 'console'));
  fs.writeFileSync(stampFile, `${hash}\n`);
  if (!always) console.error(`built dist/ in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
