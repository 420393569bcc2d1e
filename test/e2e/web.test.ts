// WebFetch and WebSearch through the HTTP API, against loopback fixtures: 127.0.0.2 is allowlisted
// (NORMA_EGRESS_ALLOW), 127.0.0.1 — where a "private" service listens — is not. SSRF vectors, HTML to
// Markdown, redirects, caps, the cache, evidence, domain rules, and search backends configured or not.
import { afterEach, describe, expect, it } from 'vitest';
import type { Resolver } from '../../src/sandbox/egress.js';
import { closeFixtures, serve } from '../helpers/http-fixture.js';
import { startServer, type TestServer } from '../helpers/server.js';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
  await closeFixtures();
});

const DNS: Record<string, string[]> = {
  localhost: ['127.0.0.1', '::1'],
  'fixture.test': ['127.0.0.2'],
  'mixed.test': ['93.184.216.34', '127.0.0.1'],
  'metadata.test': ['169.254.169.254'],
  'internal.test': ['10.1.2.3'],
  'v6loop.test': ['::1'],
  'mapped.test': ['::ffff:127.0.0.1'],
  'translated.test': ['::ffff:0:a9fe:a9fe'],
  'ula.test': ['2606:4700::1111', 'fd00::5'],
};
const resolve: Resolver = async (host) => {
  const a = DNS[host];
  if (!a) throw new Error(`getaddrinfo ENOTFOUND ${host}`);
  return a.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

const PAGE = `<!doctype html><html><head><title>Norma fixture</title><script>window.x = 1</script></head>
<body><nav><a href="/">Home</a> | <a href="/about">About</a></nav>
<article><h1>Egress &amp; you</h1>
<p>Every outbound request is <strong>checked</strong> before it is sent. Names are resolved once and the connection is pinned
to the checked address, so a second answer from DNS cannot move it. Redirects are followed by hand.</p>
<p>See <a href="/docs/guard.html">the guard</a> for details, and remember that private ranges stay closed unless the operator opens them.</p>
<ul><li>loopback</li><li>link-local</li></ul></article></body></html>`;

async function boot(env: Record<string, string> = {}) {
  t = await startServer({ NORMA_EGRESS_ALLOW: '127.0.0.2', ...env }, { resolve });
  return t;
}

async function webSession(extra: object = {}) {
  const res = await t!.api.post('/v1/sessions', { tools: ['WebFetch'], permission_mode: 'bypassPermissions', ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string };
}

async function fetchAll(sessionId: string, urls: string[]) {
  const res = await t!.api.post(`/v1/sessions/${sessionId}/turns?wait=60`, {
    tool_uses: urls.map((url, i) => ({ id: `toolu_${i}`, name: 'WebFetch', input: { url } })),
  });
  expect(res.body.status).toBe('completed');
  return res.body.results as { is_error: boolean; content: { text: string }[] }[];
}

describe('WebFetch: SSRF vectors are refused, naming the rule', () => {
  it('refuses 36 ways of reaching loopback, private, link-local and metadata targets, or of leaving http(s)', async () => {
    await boot();
    const inner = await serve('127.0.0.1', (_req, res) => res.end('internal secret'));
    const P = inner.port;
    const vectors: [string, RegExp][] = [
      [`http://127.0.0.1:${P}/`, /127\.0\.0\.1: loopback/],
      [`http://localhost:${P}/`, /localhost resolves to 127\.0\.0\.1: loopback/],
      [`http://LOCALHOST:${P}/`, /localhost resolves to 127\.0\.0\.1: loopback/],
      [`http://0.0.0.0:${P}/`, /0\.0\.0\.0: unspecified/],
      [`http://0:${P}/`, /0\.0\.0\.0: unspecified/],
      [`http://2130706433:${P}/`, /127\.0\.0\.1: loopback/],
      [`http://0x7f000001:${P}/`, /127\.0\.0\.1: loopback/],
      [`http://0177.0.0.1:${P}/`, /127\.0\.0\.1: loopback/],
      [`http://127.1:${P}/`, /127\.0\.0\.1: loopback/],
      [`http://127.000.000.001:${P}/`, /127\.0\.0\.1: loopback/],
      [`http://[::1]:${P}/`, /::1: loopback/],
      [`http://[::ffff:127.0.0.1]:${P}/`, /loopback/],
      [`http://[::ffff:7f00:1]:${P}/`, /loopback/],
      [`http://[0:0:0:0:0:ffff:127.0.0.1]:${P}/`, /loopback/],
      [`http://[::127.0.0.1]:${P}/`, /loopback/],
      [`http://[64:ff9b::7f00:1]:${P}/`, /loopback/],
      [`http://[2002:7f00:1::]:${P}/`, /loopback/],
      [`http://[::ffff:0:127.0.0.1]:${P}/`, /loopback/],
      [`http://[::ffff:0:7f00:1]:${P}/`, /loopback/],
      ['http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', /teredo/],
      ['http://169.254.169.254/latest/meta-data/', /169\.254\.169\.254: linkLocal/],
      ['http://[fe80::1]/', /linkLocal/],
      ['http://10.0.0.1/', /10\.0\.0\.1: private/],
      ['http://172.16.5.4/', /private/],
      ['http://192.168.1.1/', /private/],
      ['http://100.64.0.1/', /carrierGradeNat/],
      ['http://[fc00::1]/', /uniqueLocal/],
      ['http://224.0.0.1/', /multicast/],
      ['http://255.255.255.255/', /broadcast/],
      ['http://[::]/', /unspecified/],
      ['http://mixed.test/', /mixed\.test resolves to 127\.0\.0\.1: loopback/],
      ['http://metadata.test/computeMetadata/v1/', /metadata\.test resolves to 169\.254\.169\.254: linkLocal/],
      ['http://internal.test/', /internal\.test resolves to 10\.1\.2\.3: private/],
      ['http://v6loop.test/', /v6loop\.test resolves to ::1: loopback/],
      ['http://mapped.test/', /mapped\.test resolves to ::ffff:127\.0\.0\.1: loopback/],
      ['http://translated.test/', /translated\.test resolves to ::ffff:0:a9fe:a9fe: linkLocal/],
      ['http://ula.test/', /ula\.test resolves to fd00::5: uniqueLocal/],
      ['file:///etc/passwd', /file: URLs are not allowed/],
      [`gopher://127.0.0.1:${P}/_GET`, /gopher: URLs are not allowed/],
      ['ftp://example.com/file', /ftp: URLs are not allowed/],
      ['data:text/plain,hello', /data: URLs are not allowed/],
      [`http://user:pass@127.0.0.2:${P}/`, /credentials/],
      [`http://example.com@127.0.0.1:${P}/`, /credentials/],
    ];
    expect(vectors.length).toBeGreaterThanOrEqual(36);
    const s = await webSession();
    const results = await fetchAll(s.id, vectors.map(([u]) => u));
    results.forEach((r, i) => {
      expect(r.is_error, vectors[i]![0]).toBe(true);
      expect(r.content[0]!.text, vectors[i]![0]).toMatch(vectors[i]![1]);
      expect(r.content[0]!.text).toMatch(/^Refused by the egress guard: /);
    });
    expect(inner.hits).toEqual([]);
    // Every refusal is evidence too.
    const egress = (await t!.api.get(`/v1/sessions/${s.id}/egress?limit=1000`)).body.items;
    expect(egress).toHaveLength(vectors.length);
    expect(egress.every((e: { address: string; status: null; error: string }) => e.address === '' && e.status === null && e.error.length > 0)).toBe(true);
  });

  it('does not follow a redirect to another host: it reports the new URL, which meets the rules on its own', async () => {
    await boot();
    const inner = await serve('127.0.0.1', (_req, res) => res.end('internal secret'));
    const outer = await serve('127.0.0.2', (req, res) => {
      if (req.url === '/to-private') return void res.writeHead(302, { location: `http://127.0.0.1:${inner.port}/admin` }).end();
      if (req.url === '/to-metadata') return void res.writeHead(301, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      res.end('?');
    });
    const s = await webSession();
    const [a, b, c] = await fetchAll(s.id, [`${outer.origin}/to-private`, `${outer.origin}/to-metadata`, `http://127.0.0.1:${inner.port}/admin`]);
    expect(a!.is_error).toBe(false);
    expect(a!.content[0]!.text).toContain(`redirects (HTTP 302) to another host: http://127.0.0.1:${inner.port}/admin`);
    expect(a!.content[0]!.text).toContain('It was not followed');
    expect(b!.content[0]!.text).toContain('to another host: http://169.254.169.254/latest/meta-data/');
    // Fetching the new URL is its own call, refused by the guard.
    expect(c!.is_error).toBe(true);
    expect(inner.hits).toEqual([]);
  });
});

describe('WebFetch: content', () => {
  it('turns HTML into Markdown with absolute links, keeps text and JSON, refuses binaries, reports HTTP errors', async () => {
    await boot();
    const site = await serve('127.0.0.2', (req, res) => {
      if (req.url === '/page') return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
      if (req.url === '/moved') return void res.writeHead(301, { location: '/page' }).end();
      if (req.url === '/data.json') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"a":1,"b":[true,null]}');
      if (req.url === '/notes.txt') return void res.writeHead(200, { 'content-type': 'text/plain; charset=iso-8859-1' }).end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
      if (req.url === '/logo.png') return void res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0]));
      res.writeHead(404, { 'content-type': 'text/plain' }).end('no such page');
    });
    const s = await webSession();
    const [page, moved, json, text, png, missing] = await fetchAll(s.id, [
      `http://fixture.test:${site.port}/page`,
      `${site.origin}/moved`,
      `${site.origin}/data.json`,
      `${site.origin}/notes.txt`,
      `${site.origin}/logo.png`,
      `${site.origin}/missing`,
    ]);
    const md = page!.content[0]!.text;
    expect(page!.is_error).toBe(false);
    expect(md).toContain(`URL: http://fixture.test:${site.port}/page`);
    expect(md).toContain('Title: Norma fixture');
    expect(md).toContain('Every outbound request is **checked** before it is sent.');
    expect(md).toContain(`[the guard](http://fixture.test:${site.port}/docs/guard.html)`);
    expect(md).toMatch(/-\s+loopback/);
    expect(md).not.toContain('window.x');
    expect(moved!.content[0]!.text).toContain(`URL: ${site.origin}/page`); // same-host redirect followed
    expect(json!.content[0]!.text).toContain('{\n  "a": 1,\n  "b": [\n    true,\n    null\n  ]\n}');
    expect(text!.content[0]!.text).toContain('café');
    expect(png!.is_error).toBe(true);
    expect(png!.content[0]!.text).toContain('binary content (image/png');
    expect(missing!.is_error).toBe(true);
    expect(missing!.content[0]!.text).toContain('HTTP 404');
    expect(missing!.content[0]!.text).toContain('no such page');

    // Evidence: one record per hop, with the address connected to and the body's digest.
    const egress = (await t!.api.get(`/v1/sessions/${s.id}/egress`)).body.items;
    const pageHop = egress.find((e: { tool_use_id: string }) => e.tool_use_id === 'toolu_0');
    expect(pageHop).toMatchObject({ tool: 'WebFetch', method: 'GET', address: '127.0.0.2', status: 200, bytes: Buffer.byteLength(PAGE) });
    expect(pageHop.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(egress.filter((e: { tool_use_id: string }) => e.tool_use_id === 'toolu_1').map((e: { status: number }) => e.status)).toEqual([301, 200]);
  });

  it('caps size and time (NORMA_WEBFETCH_MAX_BYTES, NORMA_WEBFETCH_TIMEOUT_S)', async () => {
    await boot({ NORMA_WEBFETCH_MAX_BYTES: '4096', NORMA_WEBFETCH_TIMEOUT_S: '0.3' });
    const site = await serve('127.0.0.2', (req, res) => {
      if (req.url === '/big') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('y'.repeat(100_000));
      // /slow never answers
    });
    const s = await webSession();
    const [big, slow] = await fetchAll(s.id, [`${site.origin}/big`, `${site.origin}/slow`]);
    expect(big!.is_error).toBe(false);
    expect(big!.content[0]!.text).toContain('y'.repeat(4096));
    expect(big!.content[0]!.text).not.toContain('y'.repeat(4097));
    expect(big!.content[0]!.text).toContain('larger than 4096 bytes');
    expect(slow!.is_error).toBe(true);
    expect(slow!.content[0]!.text).toContain('did not answer within 0.3 s');
  });

  it('caches an answer for 15 minutes per session', async () => {
    let now = Date.parse('2026-12-03T10:00:00Z');
    t = await startServer({ NORMA_EGRESS_ALLOW: '127.0.0.2' }, { resolve, clock: () => new Date(now) });
    let version = 1;
    const site = await serve('127.0.0.2', (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(`version ${version}`));
    const s = await webSession();
    const url = `${site.origin}/v`;
    expect((await fetchAll(s.id, [url]))[0]!.content[0]!.text).toContain('version 1');
    version = 2;
    now += 14 * 60 * 1000;
    const cached = (await fetchAll(s.id, [`${url}#fragment`]))[0]!.content;
    expect(cached.map((c) => c.text).join('\n')).toContain('version 1');
    expect(cached.at(-1)!.text).toContain("15-minute cache");
    now += 2 * 60 * 1000;
    expect((await fetchAll(s.id, [url]))[0]!.content[0]!.text).toContain('version 2');
    expect(site.hits).toHaveLength(2);
    // Another session has its own cache.
    const other = await webSession();
    expect((await fetchAll(other.id, [url]))[0]!.content[0]!.text).toContain('version 2');
    expect(site.hits).toHaveLength(3);
  });

  it('is asked about unless a domain rule allows the host', async () => {
    await boot();
    const site = await serve('127.0.0.2', (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('allowed content'));
    const s = (await t!.api.post('/v1/sessions', { tools: ['WebFetch'], allowed_tools: ['WebFetch(domain:fixture.test)'] })).body;
    const res = await t!.api.post(`/v1/sessions/${s.id}/turns?wait=30`, {
      tool_uses: [
        { id: 'toolu_ok', name: 'WebFetch', input: { url: `http://fixture.test:${site.port}/` } },
        { id: 'toolu_ask', name: 'WebFetch', input: { url: `${site.origin}/` } },
      ],
    });
    expect(res.body.status).toBe('awaiting_permission');
    expect(res.body.results.map((r: { tool_use_id: string }) => r.tool_use_id)).toEqual(['toolu_ok']);
    const [perm] = (await t!.api.get(`/v1/sessions/${s.id}/permissions?status=pending`)).body.items;
    expect(perm).toMatchObject({ tool: 'WebFetch', tool_use_id: 'toolu_ask' });
    expect(perm.suggestions).toContain('WebFetch(domain:127.0.0.2)');
  });
});

describe('WebSearch: the backend is configured, or the tool is refused loudly', () => {
  it('without a backend: 400 when a session asks for it, and /readyz says why', async () => {
    await boot();
    const res = await t!.api.post('/v1/sessions', { tools: ['WebSearch'] });
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain('"WebSearch" cannot be installed: no search backend is configured (set NORMA_WEBSEARCH_BACKEND)');
    const ready = (await t!.api.get('/readyz')).body;
    expect(ready.checks.find((c: { name: string }) => c.name === 'web_search')).toMatchObject({ ok: true, required: false, detail: expect.stringContaining('no search backend') });
  });

  it('misconfigured (brave without a key): /readyz reports it and sessions asking for WebSearch get a 400', async () => {
    await boot({ NORMA_WEBSEARCH_BACKEND: 'brave' });
    const ready = (await t!.api.get('/readyz')).body;
    expect(ready.checks.find((c: { name: string }) => c.name === 'web_search')).toMatchObject({ ok: false, detail: expect.stringContaining('NORMA_WEBSEARCH_API_KEY') });
    const res = await t!.api.post('/v1/sessions', { tools: ['WebSearch'] });
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain('the brave search backend is misconfigured');
  });

  it('searches a SearXNG instance through the guard, filters domains, and records the request', async () => {
    const searx = await serve('127.0.0.2', (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          query: 'egress guard',
          results: [
            { title: 'Guard docs', url: 'https://docs.example.com/guard', content: 'How the guard works' },
            { title: 'Blog post', url: 'https://blog.example.org/egress', content: 'On egress' },
            { title: 'Ads', url: 'https://ads.example.net/x', content: 'Buy' },
          ],
        }),
      );
    });
    await boot({ NORMA_WEBSEARCH_BACKEND: 'searxng', NORMA_WEBSEARCH_URL: searx.origin });
    const ready = (await t!.api.get('/readyz')).body;
    expect(ready.checks.find((c: { name: string }) => c.name === 'web_search')).toMatchObject({ ok: true, detail: `WebSearch uses searxng at ${searx.origin}` });
    const s = (await t!.api.post('/v1/sessions', { tools: ['WebSearch'], allowed_tools: ['WebSearch'] })).body;
    const res = await t!.api.post(`/v1/sessions/${s.id}/turns?wait=30`, {
      tool_uses: [{ id: 'toolu_s', name: 'WebSearch', input: { query: 'egress guard', blocked_domains: ['ads.example.net'] } }],
    });
    const out = res.body.results[0];
    expect(out.is_error).toBe(false);
    expect(out.content[0].text).toContain('1. Guard docs\n   https://docs.example.com/guard\n   How the guard works');
    expect(out.content[0].text).toContain('2. Blog post');
    expect(out.content[0].text).not.toContain('ads.example.net');
    expect(searx.hits[0]).toMatch(/^GET \/search\?q=egress(\+|%20)guard&format=json/);
    const egress = (await t!.api.get(`/v1/sessions/${s.id}/egress`)).body.items;
    expect(egress).toHaveLength(1);
    expect(egress[0]).toMatchObject({ tool: 'WebSearch', tool_use_id: 'toolu_s', address: '127.0.0.2', status: 200 });
  });
});
