// The console's build: index.html names content-hashed files that exist, by absolute path under
// /console/; nothing inline for the strict CSP (no inline script or style, no style
// attributes, no event handler attributes); the script stays small; the output is rebuilt
// from scratch.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsole } from '../../scripts/build-console.mjs';

let dir: string;
let files: string[];
let html: string;

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-console-'));
  // Left over from an earlier build: the build empties the directory first.
  await fs.writeFile(path.join(dir, 'stale.txt'), 'old');
  files = await buildConsole(dir);
  html = await fs.readFile(path.join(dir, 'index.html'), 'utf8');
}, 60_000);

afterAll(async () => {
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

describe('buildConsole', () => {
  it('writes index.html and hashed assets, and nothing else is left', async () => {
    expect(files).toContain('index.html');
    expect(files.some((f) => /^assets\/console-[A-Z0-9]+\.js$/.test(f))).toBe(true);
    expect(files.some((f) => /^assets\/console-[A-Z0-9]+\.css$/.test(f))).toBe(true);
    const onDisk = [...(await fs.readdir(dir)), ...(await fs.readdir(path.join(dir, 'assets'))).map((f) => `assets/${f}`)];
    expect(onDisk.sort()).toEqual(['assets', ...files].sort());
  });

  it('writes the script and stylesheet compressed too (Brotli and gzip of the very same bytes)', async () => {
    const zlib = await import('node:zlib');
    const assets = files.filter((f) => /\.(js|css)$/.test(f));
    expect(assets).toHaveLength(2);
    for (const f of assets) {
      const plain = await fs.readFile(path.join(dir, f));
      const br = await fs.readFile(path.join(dir, `${f}.br`));
      const gz = await fs.readFile(path.join(dir, `${f}.gz`));
      expect(zlib.brotliDecompressSync(br).equals(plain)).toBe(true);
      expect(zlib.gunzipSync(gz).equals(plain)).toBe(true);
      expect(br.length).toBeLessThan(plain.length / 2);
    }
  });

  it('index.html names the bundle and stylesheet by absolute /console/ paths that exist', async () => {
    const scripts = [...html.matchAll(/<script\b[^>]*\bsrc="([^"]+)"/g)].map((m) => m[1]!);
    const styles = [...html.matchAll(/<link\b[^>]*rel="stylesheet"[^>]*href="([^"]+)"/g)].map((m) => m[1]!);
    expect(scripts).toHaveLength(1);
    expect(styles).toHaveLength(1);
    for (const ref of [...scripts, ...styles]) {
      expect(ref).toMatch(/^\/console\/assets\/console-[A-Z0-9]+\.(js|css)$/);
      await expect(fs.stat(path.join(dir, ref.replace(/^\/console\//, '')))).resolves.toBeTruthy();
    }
    expect(html).toMatch(/<script type="module"/);
  });

  it('has no inline script, style or handler for the CSP', () => {
    // Every <script> has a src and no body.
    for (const m of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)) {
      expect(m[1]).toMatch(/\bsrc=/);
      expect(m[2]!.trim()).toBe('');
    }
    expect(html).not.toMatch(/<style\b/i);
    expect(html).not.toMatch(/\sstyle=/i);
    expect(html).not.toMatch(/\son[a-z]+=/i);
    expect(html).not.toMatch(/javascript:/i);
    // Nothing from another origin.
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//i);
  });

  it('bundles everything (no bare imports, nothing fetched from elsewhere) and stays below 200 KB', async () => {
    const js = files.find((f) => f.endsWith('.js'))!;
    const code = await fs.readFile(path.join(dir, js), 'utf8');
    expect(Buffer.byteLength(code)).toBeLessThan(200 * 1024);
    expect(code).not.toMatch(/\bimport\s*[^(]*?from\s*["'][^./]/);
    expect(code).not.toMatch(/https:\/\/(cdn|unpkg|esm\.sh)/);
    // The console's own header is in it (api.ts), and the CSS was bundled too.
    expect(code).toContain('X-Norma-Console');
    const css = await fs.readFile(path.join(dir, files.find((f) => f.endsWith('.css'))!), 'utf8');
    expect(css).toContain(':focus-visible');
  });

  it('the sources set no inline style (CSP: style-src \'self\') and insert HTML only after sanitising', async () => {
    const src = path.resolve(import.meta.dirname, '../../console/src');
    const sources = (await fs.readdir(src, { recursive: true })).filter((f) => /\.tsx?$/.test(f));
    expect(sources.length).toBeGreaterThan(10);
    for (const file of sources) {
      const text = await fs.readFile(path.join(src, file), 'utf8');
      expect(text, file).not.toMatch(/\bstyle=\{|\bstyle="|\.style\./);
      if (text.includes('dangerouslySetInnerHTML')) expect(text, file).toMatch(/DOMPurify\.sanitize/);
    }
  });
});
