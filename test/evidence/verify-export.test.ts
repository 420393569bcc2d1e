// The offline export verifier and its command: a synthetic export, chained and signed here as the
// server does it, verifies; each way of tampering with it fails naming the part and seq that broke;
// and the command turns every unusable input into exit status 2 with one plain line.
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chained, chainHash, GENESIS } from '../../src/evidence/chain.js';
import { SigningKey } from '../../src/evidence/signing.js';
import { runVerifyCli } from '../../src/evidence/verify-cli.js';
import { verifyExport, type ExportReport } from '../../src/evidence/verify-export.js';

const SID = 'ses_verify1';
const TRUNC_TEXT = 'line of output\n'.repeat(400);
const PREVIEW_TEXT = '--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-old\n+new\n';
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

type Rec = Record<string, any>;
type Doc = Record<string, any>;

/** Gives each record its hash after the one before, as the store does (`from`: the first to chain). */
function chainAll(records: Rec[], from = 0): Rec[] {
  let prev: string | null = null;
  return records.map((r, i) => {
    if (i < from) return r;
    const c = chained(r, prev);
    prev = c.hash;
    return c;
  });
}

function event(seq: number, type: string, extra: Rec): Rec {
  return { type, session_id: SID, seq, time: `2025-03-01T10:00:0${seq}.000Z`, ...extra };
}

function output(id: string, text: string, status: 'available' | 'expired', extra: Rec = {}): Rec {
  return {
    id, session_id: SID, turn_id: 'turn_1', tool_use_id: 'toolu_1', tool: 'Bash', block_index: 0,
    bytes: Buffer.byteLength(text), chars: text.length, sha256: sha(text), status, created_at: '2025-03-01T10:00:04.000Z', ...extra,
  };
}

/** Signs the head the export's chains end at, and puts the chain member in the export. */
function sign(doc: Doc, key: SigningKey, signedAt = '2025-03-01T10:01:00.000Z'): void {
  const point = (rs: Rec[]) => (rs.length ? { seq: rs.at(-1)!.seq, hash: rs.at(-1)!.hash ?? GENESIS } : { seq: 0, hash: GENESIS });
  const head = key.sign({ session_id: SID, events: point(doc.events), decisions: point(doc.decisions), signed_at: signedAt, key_id: key.keyId });
  doc.chain = { algorithm: 'norma-chain-v1', head, public_key: { ...key.publicJwk, kid: key.keyId } };
}

function makeExport(key: SigningKey, legacy = 0): Doc {
  const events = chainAll(
    [
      event(1, 'session.created', { session: { id: SID } }),
      event(2, 'turn.started', { turn_id: 'turn_1', kind: 'direct', tool_uses: [] }),
      event(3, 'permission.requested', {
        turn_id: 'turn_1',
        permission: {
          id: 'perm_1',
          preview: { kind: 'diff', path: 'a.txt', operation: 'update', diff: PREVIEW_TEXT.slice(0, 20), truncated: true, output_id: 'out_prev', output_sha256: sha(PREVIEW_TEXT), before_sha256: null },
        },
      }),
      event(4, 'tool.completed', {
        turn_id: 'turn_1', tool_use_id: 'toolu_1', tool: 'Bash',
        result: {
          type: 'tool_result', tool_use_id: 'toolu_1', is_error: false, content: [{ type: 'text', text: TRUNC_TEXT.slice(0, 30) }],
          truncation: { output_id: 'out_trunc', block_index: 0, total_chars: TRUNC_TEXT.length, shown_chars: 30, sha256: sha(TRUNC_TEXT) },
        },
      }),
      event(5, 'turn.completed', { turn: { id: 'turn_1' } }),
      event(6, 'session.closed', { reason: 'closed by the client' }),
    ],
    legacy,
  );
  const decision = (seq: number, behavior: string) => ({
    seq, session_id: SID, turn_id: 'turn_1', tool_use_id: 'toolu_1', tool: 'Bash', behavior, decided_by: 'person', rules: [], mode: 'default',
    reason: 'asked', input_digest: sha(`input${seq}`), input_source: 'call', created_at: `2025-03-01T10:00:0${seq + 2}.000Z`,
  });
  const doc: Doc = {
    format: 'norma.session-export', version: 1, exported_at: '2025-03-01T10:01:00.000Z', session: { id: SID }, turns: [], permissions: [], questions: [],
    todos: { items: [] }, decisions: chainAll([decision(1, 'ask'), decision(2, 'allow')]),
    outputs: [output('out_trunc', TRUNC_TEXT, 'available'), output('out_prev', PREVIEW_TEXT, 'available', { of: 'preview' }), output('out_gone', 'old', 'expired')],
    events,
  };
  sign(doc, key);
  return doc;
}

const key = SigningKey.ephemeral();
const base = makeExport(key);
const fresh = (): Doc => structuredClone(base);
let dir = '';
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-verify-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

async function writeOutputs(): Promise<string> {
  const out = path.join(dir, 'outputs');
  await fs.mkdir(out);
  await fs.writeFile(path.join(out, 'out_trunc.txt'), TRUNC_TEXT);
  await fs.writeFile(path.join(out, 'out_prev'), PREVIEW_TEXT);
  return out;
}

function expectBroken(r: ExportReport, part: string, seq: number | undefined, reason: string | RegExp): void {
  expect(r.ok).toBe(false);
  expect(r.first_broken?.part).toBe(part);
  expect(r.first_broken?.seq).toBe(seq);
  expect(r.first_broken?.reason).toMatch(reason);
}

describe('verifyExport', () => {
  it('verifies an intact export with a pinned key, and with its own key (not pinned)', async () => {
    const pinned = await verifyExport(fresh(), { keys: [key.publicJwk] });
    expect(pinned).toMatchObject({ ok: true, session_id: SID, events: 6, decisions: 2, unchained: 0, key_id: key.keyId, key_pinned: true });
    expect(pinned.outputs).toEqual({ claimed: 2, unclaimed: 1, files_checked: 0 });
    expect(pinned.head?.events.seq).toBe(6);
    expect(pinned.first_broken).toBeUndefined();
    const own = await verifyExport(fresh(), {});
    expect(own).toMatchObject({ ok: true, key_pinned: false });
  });

  it('counts events from before the chain existed, and checks output files given', async () => {
    const doc = makeExport(key, 2);
    delete doc.events[0].hash;
    delete doc.events[1].hash;
    const r = await verifyExport(doc, { keys: [key.publicJwk], outputsDir: await writeOutputs() });
    expect(r).toMatchObject({ ok: true, events: 4, unchained: 2 });
    expect(r.outputs.files_checked).toBe(2);
  });

  const rehash = (doc: Doc, i: number) => {
    doc.events[i].hash = chainHash(doc.events[i - 1].hash, doc.events[i]);
  };
  const cases: Array<[string, (d: Doc) => void, string, number | undefined, string | RegExp]> = [
    ['an edited event field', (d) => (d.events[2].permission.preview.path = 'b.txt'), 'events', 3, 'event 3 does not match its hash'],
    ['a deleted event', (d) => d.events.splice(2, 1), 'events', 3, 'event 3 is missing'],
    ['two swapped events', (d) => ([d.events[1], d.events[2]] = [d.events[2], d.events[1]]), 'events', 2, 'event 2 is missing'],
    ['an edited event whose hash was made again', (d) => ((d.events[2].time = '2025-01-01T00:00:00.000Z'), rehash(d, 2)), 'events', 4, 'event 4 does not match its hash'],
    ['the last event edited and its hash made again', (d) => ((d.events[5].reason = 'other'), rehash(d, 5)), 'head', 6, "event 6's hash is not the signed head's"],
    ['an edited decision', (d) => (d.decisions[0].behavior = 'allow'), 'decisions', 1, 'decision 1 does not match its hash'],
    ['events cut short of the signed head', (d) => d.events.splice(4), 'head', 5, "the export's events end at 4 but the signed head is at 6"],
    ['a changed signature', (d) => (d.chain.head.signature = (d.chain.head.signature[0] === 'A' ? 'B' : 'A') + d.chain.head.signature.slice(1)), 'signature', undefined, `does not verify under key ${key.keyId}`],
    ['a changed signed_at', (d) => (d.chain.head.signed_at = '2030-01-01T00:00:00.000Z'), 'signature', undefined, 'the head\'s signature does not verify'],
    ['an output record with another sha256', (d) => (d.outputs[0].sha256 = sha('other')), 'outputs', 4, /out_trunc's record has sha256 [0-9a-f]{64}, but event 4 claims/],
    ['a claimed output missing', (d) => d.outputs.splice(1, 1), 'outputs', 3, "output out_prev, claimed by event 3, is not among the export's outputs"],
    ['an event without a hash after hashed ones', (d) => delete d.events[2].hash, 'events', 3, 'event 3 has no hash, after events that had one'],
    ['an export without a chain', (d) => delete d.chain, 'format', undefined, 'predates signed exports'],
    ['another format', (d) => (d.format = 'other'), 'format', undefined, 'not a Norma session export'],
    ['a head without its decisions point', (d) => delete d.chain.head.decisions, 'format', undefined, 'chain.head.decisions is not a point'],
  ];
  it.each(cases)('fails on %s', async (_name, tamper, part, seq, reason) => {
    const doc = fresh();
    tamper(doc);
    expectBroken(await verifyExport(doc, {}), part, seq, reason);
  });

  it('fails when the head names a key other than the ones given', async () => {
    const other = SigningKey.ephemeral();
    expectBroken(await verifyExport(fresh(), { keys: [other.publicJwk] }), 'signature', undefined, `key id ${key.keyId} is not among the keys given`);
    // A head signed again by another key, with that key put in the export: only pinning catches it.
    const forged = fresh();
    sign(forged, other);
    expect((await verifyExport(forged, {})).ok).toBe(true);
    expectBroken(await verifyExport(forged, { keys: [key.publicJwk] }), 'signature', undefined, 'is not among the keys given');
  });

  it('fails on a changed output file, and refuses a symlink in the outputs directory', async () => {
    const out = await writeOutputs();
    await fs.writeFile(path.join(out, 'out_trunc.txt'), `${TRUNC_TEXT}!`);
    expectBroken(await verifyExport(fresh(), { outputsDir: out }), 'outputs', undefined, /output out_trunc's file out_trunc\.txt has sha256 .* but its record says/);
    await fs.rm(path.join(out, 'out_trunc.txt'));
    await fs.writeFile(path.join(dir, 'elsewhere.txt'), TRUNC_TEXT);
    await fs.symlink(path.join(dir, 'elsewhere.txt'), path.join(out, 'out_trunc.txt'));
    expectBroken(await verifyExport(fresh(), { outputsDir: out }), 'outputs', undefined, 'out_trunc.txt is a symbolic link: refused');
  });

  it('never joins an output id that is not a plain name to a path', async () => {
    const doc = fresh();
    doc.outputs.push(output('../../etc/passwd', 'x', 'available'));
    expectBroken(await verifyExport(doc, { outputsDir: await writeOutputs() }), 'outputs', undefined, 'cannot be a file name');
  });
});

describe('norma-verify', () => {
  async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runVerifyCli(argv, { out: (s) => out.push(s), err: (s) => err.push(s) });
    return { code, out: out.join('\n'), err: err.join('\n') };
  }
  async function file(name: string, content: string | Doc): Promise<string> {
    const p = path.join(dir, name);
    await fs.writeFile(p, typeof content === 'string' ? content : JSON.stringify(content));
    return p;
  }
  const serverKeySet = (...keys: SigningKey[]) => ({
    key_id: keys[0]!.keyId,
    keys: keys.map((k, i) => ({ ...k.publicJwk, kid: k.keyId, use: 'sig', alg: 'EdDSA', status: i === 0 ? 'active' : 'retired', created_at: '2025-01-01T00:00:00.000Z' })),
  });

  it('exits 0 on an intact export and says the key was not pinned', async () => {
    const r = await run(await file('export.json', fresh()));
    expect(r.code).toBe(0);
    expect(r.out).toContain(`verified: session ${SID}`);
    expect(r.out).toContain('6 events and 2 decisions chained');
    expect(r.out).toContain(`events at seq 6 (${base.chain.head.events.hash})`);
    expect(r.out).toMatch(/NOT pinned: the key came from the export itself.*pass --key/);
    expect(r.out).toContain('outputs: 2 claimed by events, 1 unclaimed, 0 files checked');
    expect(r.err).toBe('');
  });

  it('picks the right key from a key set of two, as GET /v1/signing-key answers', async () => {
    const other = SigningKey.ephemeral();
    const exp = await file('export.json', fresh());
    const outs = await writeOutputs();
    const ok = await run(exp, '--key', await file('keys.json', serverKeySet(other, key)), '--outputs', outs);
    expect(ok.code).toBe(0);
    expect(ok.out).toContain('key: pinned');
    expect(ok.out).toContain('2 files checked');
    const inline = await run(exp, `--key=${JSON.stringify(key.publicJwk)}`);
    expect(inline.code).toBe(0);
    const wrong = await run(exp, '--key', JSON.stringify(serverKeySet(other)));
    expect(wrong.code).toBe(1);
    expect(wrong.out).toContain(`FAILED (signature): key id ${key.keyId} is not among the keys given`);
  });

  it('exits 1 naming what broke, and --json prints the report as one line either way', async () => {
    const doc = fresh();
    doc.events[2].turn_id = 'turn_2';
    const p = await file('tampered.json', doc);
    const r = await run(p);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/^FAILED \(events at seq 3\): event 3 does not match its hash/);
    const j = await run(p, '--json');
    expect(j.code).toBe(1);
    expect(j.out.split('\n')).toHaveLength(1);
    expect(JSON.parse(j.out)).toMatchObject({ ok: false, first_broken: { part: 'events', seq: 3 } });
    const good = await run(await file('export.json', fresh()), '--json');
    expect(good.code).toBe(0);
    expect(JSON.parse(good.out)).toMatchObject({ ok: true, events: 6, key_pinned: false });
  });

  it('exits 2 with one plain line on input it cannot use', async () => {
    const text = JSON.stringify(fresh());
    const bomb = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const inputs: Array<[string[], RegExp]> = [
      [[await file('x.json', 'hello, not json')], /is not JSON: /],
      [[await file('empty.json', '')], /is not JSON: it is empty/],
      [[await file('cut.json', text.slice(0, text.length / 2))], /is truncated: the JSON stops part-way/],
      [[path.join(dir, 'absent.json')], /absent\.json cannot be read: no such file/],
      [[dir], /is a directory/],
      [[await file('bomb.json', bomb)], /nested deeper than \d+ levels/],
      [[], /no export file given/],
      [['a.json', 'b.json'], /one export file at a time/],
      [['a.json', '--frobnicate'], /unknown option --frobnicate/],
      [['a.json', '--key'], /--key needs a value/],
      [[await file('e.json', text), '--key', '{"kty":"RSA"}'], /--key \(inline JSON\): it is not an Ed25519 public key/],
      [[await file('e.json', text), '--key', JSON.stringify({ keys: [key.publicJwk, { kty: 'OKP' }] })], /key 2 of the set is not an Ed25519/],
      [[await file('e.json', text), '--outputs', path.join(dir, 'nowhere')], /--outputs .* cannot be read: no such file/],
    ];
    for (const [argv, message] of inputs) {
      const r = await run(...argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.err).toMatch(/^norma-verify: /);
      expect(r.err).toMatch(message);
      expect(r.err).not.toMatch(/\n\s+at /);
      expect(r.out).toBe('');
    }
  });

  it('prints its usage with --help', async () => {
    const r = await run('--help');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^usage: norma-verify <export\.json>/);
  });
});
