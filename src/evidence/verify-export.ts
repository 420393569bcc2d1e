// Verifies a session export (GET /v1/sessions/{id}/export) offline: its event and decision chains
// (chain.ts), that they end exactly at the signed head, the head's Ed25519 signature (signing.ts),
// and the digests the chained events claim for spill files. Nothing here talks to a server: a
// person holding only the export file (and, to trust it, the server's published public key) can
// check it. The first failure stops the check and is reported with the part and seq it is in.
import { constants as C } from 'node:fs';
import fs, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { ChainChecker, HASH_PATTERN, type ChainHeadPoint } from './chain.js';
import { keyIdOf, publicJwkOf, verifyHead, type PublicJwk, type SignedHead } from './signing.js';

export const EXPORT_FORMAT = 'norma.session-export';
export const CHAIN_ALGORITHM = 'norma-chain-v1';

/** Output ids that may become a file name: the server makes nothing else, and nothing else is joined to a path. */
export const OUTPUT_ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;

export type ExportPart = 'format' | 'events' | 'decisions' | 'head' | 'signature' | 'outputs';

export interface ExportReport {
  ok: boolean;
  session_id?: string;
  /** Events whose hash verified. */
  events: number;
  /** Decisions whose hash verified. */
  decisions: number;
  /** Events and decisions stored before the chain existed (no hash, only at the start). */
  unchained: number;
  head?: { events: ChainHeadPoint; decisions: ChainHeadPoint; signed_at: string };
  key_id?: string;
  /** The key came from the caller, not from the export itself. */
  key_pinned: boolean;
  outputs: { claimed: number; unclaimed: number; files_checked: number };
  first_broken?: { part: ExportPart; seq?: number; reason: string };
}

export interface VerifyOptions {
  /** Public keys to trust (the server's published keys); absent or empty: the export's own key. */
  keys?: PublicJwk[];
  /** A directory holding downloaded output files, named `<output_id>` or `<output_id>.txt`. */
  outputsDir?: string;
}

/** Thrown inside the checks to stop at the first failure; never leaves this module. */
class Broken extends Error {
  constructor(
    readonly part: ExportPart,
    reason: string,
    readonly seq?: number,
  ) {
    super(reason);
  }
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const describe = (v: unknown): string => (v === undefined ? 'missing' : v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'string' ? JSON.stringify(v.slice(0, 80)) : `a ${typeof v}`);

export async function verifyExport(doc: unknown, options: VerifyOptions = {}): Promise<ExportReport> {
  const report: ExportReport = { ok: false, events: 0, decisions: 0, unchained: 0, key_pinned: false, outputs: { claimed: 0, unclaimed: 0, files_checked: 0 } };
  try {
    await check(doc, options, report);
    report.ok = true;
  } catch (err) {
    if (!(err instanceof Broken)) throw err;
    report.first_broken = { part: err.part, ...(err.seq !== undefined ? { seq: err.seq } : {}), reason: err.message };
  }
  return report;
}

async function check(doc: unknown, options: VerifyOptions, report: ExportReport): Promise<void> {
  const { sessionId, events, decisions, outputs, head, publicKey } = checkShape(doc);
  report.session_id = sessionId;
  report.head = { events: head.events, decisions: head.decisions, signed_at: head.signed_at };
  report.key_id = head.key_id;

  // Chains first: a break says which record was changed, which a failed signature cannot.
  const ev = new ChainChecker('event', sessionId);
  for (const e of events) if (!ev.push(e)) break;
  report.events = ev.count;
  report.unchained = ev.unchained;
  if (ev.broken) throw new Broken('events', ev.broken.reason, ev.broken.seq);
  const dc = new ChainChecker('decision', sessionId);
  for (const d of decisions) if (!dc.push(d)) break;
  report.decisions = dc.count;
  report.unchained += dc.unchained;
  if (dc.broken) throw new Broken('decisions', dc.broken.reason, dc.broken.seq);

  if (head.session_id !== sessionId) throw new Broken('head', `the signed head is for session ${head.session_id}, not this export's session ${sessionId}`);
  matchHead('event', ev.head, head.events);
  matchHead('decision', dc.head, head.decisions);

  checkSignature(head, publicKey, options.keys, report);

  await checkOutputs(events, outputs, options.outputsDir, report);
}

interface Shaped {
  sessionId: string;
  events: unknown[];
  decisions: unknown[];
  outputs: unknown[];
  head: SignedHead;
  publicKey: PublicJwk;
}

function checkShape(doc: unknown): Shaped {
  const bad = (reason: string): never => {
    throw new Broken('format', reason);
  };
  if (!isObj(doc)) return bad(`not a Norma session export: the document is ${describe(doc)}, not an object`);
  if (doc.format !== EXPORT_FORMAT) return bad(`not a Norma session export: format is ${describe(doc.format)}, not "${EXPORT_FORMAT}"`);
  if (doc.version !== 1) return bad(`export version ${describe(doc.version)} is not one this verifier reads (version 1)`);
  const session = doc.session;
  if (!isObj(session) || typeof session.id !== 'string' || session.id === '') return bad('the export has no session.id');
  for (const name of ['turns', 'permissions', 'questions', 'decisions', 'outputs', 'events'] as const) {
    if (!Array.isArray(doc[name])) bad(`the export's ${name} is ${describe(doc[name])}, not an array`);
  }
  const chain = doc.chain;
  if (chain === undefined) return bad('the export has no chain: it predates signed exports (made by a server without the evidence chain), so there is nothing to verify');
  if (!isObj(chain)) return bad(`the export's chain is ${describe(chain)}, not an object`);
  if (chain.algorithm !== CHAIN_ALGORITHM) return bad(`chain.algorithm is ${describe(chain.algorithm)}, not "${CHAIN_ALGORITHM}"`);
  const h = chain.head;
  if (!isObj(h)) return bad(`chain.head is ${describe(h)}, not an object`);
  if (typeof h.session_id !== 'string') bad(`chain.head.session_id is ${describe(h.session_id)}, not a string`);
  for (const name of ['events', 'decisions'] as const) {
    const p = h[name];
    if (!isObj(p) || !Number.isSafeInteger(p.seq) || (p.seq as number) < 0 || typeof p.hash !== 'string' || !HASH_PATTERN.test(p.hash)) {
      bad(`chain.head.${name} is not a point {seq, hash} (a seq of 0 or more and 64 hex digits)`);
    }
  }
  if (typeof h.signed_at !== 'string' || h.signed_at === '') bad(`chain.head.signed_at is ${describe(h.signed_at)}, not a time`);
  if (typeof h.key_id !== 'string' || h.key_id === '') bad(`chain.head.key_id is ${describe(h.key_id)}, not a key id`);
  if (h.alg !== 'EdDSA') bad(`chain.head.alg is ${describe(h.alg)}, not "EdDSA"`);
  if (typeof h.signature !== 'string' || !/^[A-Za-z0-9_-]+$/.test(h.signature)) bad(`chain.head.signature is ${describe(h.signature)}, not base64url`);
  let publicKey: PublicJwk;
  try {
    publicKey = publicJwkOf(chain.public_key);
  } catch (err) {
    return bad(`chain.public_key is ${(err as Error).message}`);
  }
  const point = (p: unknown): ChainHeadPoint => ({ seq: (p as ChainHeadPoint).seq, hash: (p as ChainHeadPoint).hash });
  const head: SignedHead = {
    session_id: h.session_id as string,
    events: point(h.events),
    decisions: point(h.decisions),
    signed_at: h.signed_at as string,
    key_id: h.key_id as string,
    alg: 'EdDSA',
    signature: h.signature as string,
  };
  return {
    sessionId: session.id,
    events: doc.events as unknown[],
    decisions: doc.decisions as unknown[],
    outputs: doc.outputs as unknown[],
    head,
    publicKey,
  };
}

/** The export holds exactly the records up to the signed point: no fewer, no more, the same last hash. */
function matchHead(kind: 'event' | 'decision', got: ChainHeadPoint, signed: ChainHeadPoint): void {
  const plural = `${kind}s`;
  if (got.seq < signed.seq) {
    const ends = got.seq === 0 ? `has no ${plural}` : `'s ${plural} end at ${got.seq}`;
    throw new Broken('head', `the export${ends} but the signed head is at ${signed.seq}`, got.seq + 1);
  }
  if (got.seq > signed.seq) {
    throw new Broken('head', `the export's ${plural} go on to ${got.seq}, past the signed head at ${signed.seq}`, signed.seq + 1);
  }
  if (got.hash !== signed.hash) {
    throw new Broken('head', `${kind} ${signed.seq}'s hash is not the signed head's: it was changed (and its hash made again) after the head was signed`, signed.seq);
  }
}

function checkSignature(head: SignedHead, own: PublicJwk, keys: PublicJwk[] | undefined, report: ExportReport): void {
  let key: PublicJwk;
  if (keys && keys.length > 0) {
    report.key_pinned = true;
    const found = keys.find((k) => keyIdOf(k) === head.key_id);
    if (!found) throw new Broken('signature', `key id ${head.key_id} is not among the keys given (${keys.map((k) => keyIdOf(k)).join(', ')})`);
    key = found;
  } else {
    key = own;
    const ownId = keyIdOf(own);
    if (ownId !== head.key_id) throw new Broken('signature', `the export's public key has id ${ownId}, but the head names key ${head.key_id}`);
  }
  if (!verifyHead(head, key)) throw new Broken('signature', `the head's signature does not verify under key ${head.key_id}`);
}

export interface Claim {
  id: string;
  sha256: string;
  seq: number;
}

/** The output digests the events claim: capped result blocks, and the whole diffs of previews. */
export function claimsOf(events: unknown[]): Claim[] {
  const claims: Claim[] = [];
  const add = (id: unknown, sha256: unknown, seq: number) => {
    // An id without a digest (a preview stored before digests were recorded) pins nothing.
    if (typeof id === 'string' && typeof sha256 === 'string') claims.push({ id, sha256, seq });
  };
  for (const e of events) {
    if (!isObj(e) || typeof e.seq !== 'number') continue;
    if (e.type === 'tool.completed' && isObj(e.result)) {
      const t = e.result.truncation;
      if (isObj(t)) add(t.output_id, t.sha256, e.seq);
      const ts = e.result.truncations;
      if (Array.isArray(ts)) for (const x of ts) if (isObj(x)) add(x.output_id, x.sha256, e.seq);
    } else if ((e.type === 'permission.requested' || e.type === 'permission.resolved') && isObj(e.permission)) {
      // The resolved event repeats the request's preview; a claim there must hold as well.
      const p = e.permission.preview;
      if (isObj(p)) add(p.output_id, p.output_sha256, e.seq);
    }
  }
  return claims;
}

async function checkOutputs(events: unknown[], outputs: unknown[], outputsDir: string | undefined, report: ExportReport): Promise<void> {
  const records = new Map<string, Obj>();
  for (let i = 0; i < outputs.length; i++) {
    const o = outputs[i];
    if (!isObj(o) || typeof o.id !== 'string' || typeof o.sha256 !== 'string') {
      throw new Broken('outputs', `output record ${i + 1} is not a record with an id and a sha256`);
    }
    if (records.has(o.id)) throw new Broken('outputs', `output ${o.id} is listed twice`);
    records.set(o.id, o);
  }
  const claimed = new Set<string>();
  for (const c of claimsOf(events)) {
    claimed.add(c.id);
    const r = records.get(c.id);
    if (!r) throw new Broken('outputs', `output ${c.id}, claimed by event ${c.seq}, is not among the export's outputs`, c.seq);
    if (r.sha256 !== c.sha256) {
      throw new Broken('outputs', `output ${c.id}'s record has sha256 ${String(r.sha256)}, but event ${c.seq} claims ${c.sha256}`, c.seq);
    }
  }
  report.outputs.claimed = claimed.size;
  report.outputs.unclaimed = [...records.keys()].filter((id) => !claimed.has(id)).length;
  if (outputsDir === undefined) return;
  for (const [id, r] of records) {
    if (r.status !== 'available') continue;
    if (!OUTPUT_ID_PATTERN.test(id)) throw new Broken('outputs', `output id ${JSON.stringify(id.slice(0, 140))} cannot be a file name: its file was not looked for`);
    for (const name of [id, `${id}.txt`]) {
      const file = path.join(outputsDir, name);
      const digest = await digestOf(file, id);
      if (digest === null) continue;
      report.outputs.files_checked++;
      if (digest !== r.sha256) throw new Broken('outputs', `output ${id}'s file ${name} has sha256 ${digest}, but its record says ${String(r.sha256)}`);
    }
  }
}

/** SHA-256 (hex) of an output file, read in pieces; null when there is no such file. Never follows a symlink. */
async function digestOf(file: string, id: string): Promise<string | null> {
  const name = path.basename(file);
  try {
    const st = await fs.lstat(file);
    if (st.isSymbolicLink()) throw new Broken('outputs', `output ${id}'s file ${name} is a symbolic link: refused (only regular files are checked)`);
    if (!st.isFile()) throw new Broken('outputs', `output ${id}'s file ${name} is not a regular file`);
  } catch (err) {
    if (err instanceof Broken) throw err;
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new Broken('outputs', `output ${id}'s file ${name} cannot be read: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  let fh: FileHandle;
  try {
    // O_NOFOLLOW: the name was checked above, but may be swapped for a link before it is opened.
    fh = await fs.open(file, C.O_RDONLY | (C.O_NOFOLLOW ?? 0));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new Broken('outputs', `output ${id}'s file ${name} is a symbolic link: refused (only regular files are checked)`);
    throw new Broken('outputs', `output ${id}'s file ${name} cannot be read: ${code ?? String(err)}`);
  }
  try {
    const h = createHash('sha256');
    const buf = Buffer.allocUnsafe(1 << 20);
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, null);
      if (bytesRead === 0) break;
      h.update(buf.subarray(0, bytesRead));
    }
    return h.digest('hex');
  } catch (err) {
    throw new Broken('outputs', `output ${id}'s file ${name} cannot be read: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  } finally {
    await fh.close();
  }
}
