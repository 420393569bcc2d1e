// Builds the web console (console/src) into a directory the server serves at /console/:
// index.html and assets/console-<hash>.js and .css, content-hashed so they can be cached for
// good. Everything is bundled from node_modules (nothing from a CDN), and the page has no
// inline script or style: it runs under `script-src 'self'; style-src 'self'`. The script and
// stylesheet are also written compressed (.br, .gz), which the server sends to browsers that take
// them (a third of the bytes with gzip, less with Brotli), with no compression work per request.
//
//   node scripts/build-console.mjs <outDir>
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { build } from 'esbuild';

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ENTRY = path.join(ROOT, 'console', 'src', 'main.tsx');
/** Where the server mounts the console; index.html names its files by absolute path. */
const BASE = '/console/';

const escapeAttr = (s) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

function indexHtml(js, css) {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Norma console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${escapeAttr(BASE + css)}">
<script type="module" src="${escapeAttr(BASE + js)}"></script>
</head>
<body>
<div id="app"></div>
<noscript>The Norma console needs JavaScript.</noscript>
</body>
</html>
`;
}

/**
 * Builds the console into `outDir` (emptied first). Returns the files written, relative to
 * `outDir`.
 */
export async function buildConsole(outDir, { minify = true } = {}) {
  const out = path.resolve(outDir);
  await fs.rm(out, { recursive: true, force: true });
  await fs.mkdir(path.join(out, 'assets'), { recursive: true });
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: [ENTRY],
    bundle: true,
    outdir: path.join(out, 'assets'),
    entryNames: 'console-[hash]',
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify,
    sourcemap: false,
    metafile: true,
    logLevel: 'silent',
    charset: 'utf8',
    legalComments: 'eof',
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  const outputs = Object.entries(result.metafile.outputs);
  const entry = outputs.find(([, o]) => o.entryPoint !== undefined);
  if (!entry) throw new Error('esbuild reported no entry output for the console');
  const [jsFile, jsInfo] = entry;
  const cssFile = jsInfo.cssBundle;
  if (!cssFile) throw new Error('the console bundle has no stylesheet (console/src/main.tsx imports styles.css)');
  const rel = (f) => path.relative(out, path.resolve(ROOT, f)).split(path.sep).join('/');
  const js = rel(jsFile);
  const css = rel(cssFile);
  await fs.writeFile(path.join(out, 'index.html'), indexHtml(js, css));
  const compressed = [];
  for (const file of [js, css]) {
    const bytes = await fs.readFile(path.join(out, file));
    const br = await brotli(bytes, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } });
    await fs.writeFile(path.join(out, `${file}.br`), br);
    await fs.writeFile(path.join(out, `${file}.gz`), await gzip(bytes, { level: 9 }));
    compressed.push(`${file}.br`, `${file}.gz`);
  }
  return ['index.html', ...outputs.map(([f]) => rel(f)), ...compressed];
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const outDir = process.argv[2];
  if (!outDir) {
    console.error('usage: node scripts/build-console.mjs <outDir>');
    process.exit(2);
  }
  try {
    const files = await buildConsole(outDir);
    console.log(`console built into ${path.resolve(outDir)}: ${files.join(', ')}`);
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
