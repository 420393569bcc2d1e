// `norma-verify`: checks a session export file offline (verify-export.ts) and says, in a few lines
// or one JSON line, whether it verified. Exit status 0: verified; 1: it did not (what broke first,
// and where); 2: the command line or an input could not be used. Inputs come from outside, so
// every way they can be wrong (missing, not JSON, cut short, huge, nested without end) ends in one
// plain sentence rather than a stack trace.
import fs, { type FileHandle } from 'node:fs/promises';
import { textNestedDeeperThan } from '../json-depth.js';
import { CANONICAL_MAX_DEPTH } from './canonical.js';
import { publicJwkOf, type PublicJwk } from './signing.js';
import { verifyExport, type ExportReport } from './verify-export.js';

export interface CliIo {
  out: (s: string) => void;
  err: (s: string) => void;
}

/** Larger export files are refused before they are read. */
export const MAX_EXPORT_BYTES = 2 * 1024 ** 3;
/** A key file is a few hundred bytes; anything much larger is not one. */
const MAX_KEY_BYTES = 1024 * 1024;
/**
 * The deepest document read: the chain hashes records at most CANONICAL_MAX_DEPTH deep, and
 * records sit two levels down (the export, its events array), so nothing deeper can verify.
 */
export const MAX_EXPORT_DEPTH = CANONICAL_MAX_DEPTH + 2;

const USAGE = `usage: norma-verify <export.json> [--key <jwk-file|inline JSON>]... [--outputs <dir>] [--json]

Verifies a session export (GET /v1/sessions/{id}/export) without a server: the chains of its
events and decisions, that they end at the signed head, the head's signature, and the digests
its events claim for output files.

  --key <k>        the server's public key, to trust the signature: a JWK, or a key set
                   {"keys": [...]} as GET /v1/signing-key answers, in a file or inline; may repeat.
                   Without it the export's own key is used, which proves consistency, not origin.
  --outputs <dir>  a directory of downloaded output files (<output_id> or <output_id>.txt)
                   to check against their records
  --json           print the report as one JSON line
  -h, --help       this text

exit status: 0 verified, 1 verification failed, 2 bad usage or unreadable input`;

/** A command line or input that cannot be used (exit 2). */
class UsageError extends Error {
  constructor(
    message: string,
    /** The command line itself was wrong: point at --help. */
    readonly badCommandLine = false,
  ) {
    super(message);
  }
}

interface Args {
  file: string;
  keys: string[];
  outputsDir?: string;
  json: boolean;
}

export async function runVerifyCli(argv: string[], io: CliIo): Promise<number> {
  try {
    const args = parseArgs(argv);
    if (args === 'help') {
      io.out(USAGE);
      return 0;
    }
    const keys: PublicJwk[] = [];
    for (const k of args.keys) keys.push(...(await keysOf(k)));
    if (args.outputsDir !== undefined) await checkDir(args.outputsDir);
    const doc = await readExport(args.file);
    const report = await verifyExport(doc, { keys, ...(args.outputsDir !== undefined ? { outputsDir: args.outputsDir } : {}) });
    if (args.json) io.out(JSON.stringify(report));
    else for (const line of describeReport(report)) io.out(line);
    return report.ok ? 0 : 1;
  } catch (err) {
    // Whatever went wrong is said in one line: a stack trace helps no one checking a file.
    const message = err instanceof UsageError ? err.message : `unexpected error: ${err instanceof Error ? err.message : String(err)}`;
    io.err(`norma-verify: ${message}`);
    if (err instanceof UsageError && err.badCommandLine) io.err('run norma-verify --help for usage');
    return 2;
  }
}

function parseArgs(argv: string[]): Args | 'help' {
  const keys: string[] = [];
  const files: string[] = [];
  let outputsDir: string | undefined;
  let json = false;
  const usage = (msg: string): never => {
    throw new UsageError(msg, true);
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '-h' || a === '--help') return 'help';
    if (a === '--json') {
      json = true;
      continue;
    }
    if (a === '--') {
      files.push(...argv.slice(i + 1));
      break;
    }
    const eq = a.indexOf('=');
    const name = a.startsWith('--') && eq > 0 ? a.slice(0, eq) : a;
    if (name === '--key' || name === '--outputs') {
      let value: string | undefined;
      if (eq > 0 && name !== a) value = a.slice(eq + 1);
      else value = argv[++i];
      if (value === undefined || value === '') return usage(`${name} needs a value`);
      if (name === '--key') keys.push(value);
      else if (outputsDir !== undefined) return usage('--outputs is given twice');
      else outputsDir = value;
      continue;
    }
    if (a.startsWith('-') && a !== '-') return usage(`unknown option ${a}`);
    files.push(a);
  }
  if (files.length === 0) return usage('no export file given');
  if (files.length > 1) return usage(`one export file at a time (given: ${files.length})`);
  return { file: files[0]!, keys, ...(outputsDir !== undefined ? { outputsDir } : {}), json };
}

/** Reads a whole input file, refusing one larger than `max` bytes; errors name `label`. */
async function readInput(file: string, label: string, max: number): Promise<Buffer> {
  let fh: FileHandle;
  try {
    fh = await fs.open(file, 'r');
  } catch (err) {
    throw new UsageError(`${label} cannot be read: ${reasonOf(err)}`);
  }
  try {
    const st = await fh.stat();
    if (st.isDirectory()) throw new UsageError(`${label} is a directory, not a file`);
    if (st.isFile() && st.size > max) throw new UsageError(`${label} is ${st.size} bytes, larger than ${sizeName(max)}: refused`);
    const buf = await fh.readFile();
    // A pipe has no size until it is read: held to the same limit afterwards.
    if (buf.length > max) throw new UsageError(`${label} is larger than ${sizeName(max)}: refused`);
    return buf;
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`${label} cannot be read: ${reasonOf(err)}`);
  } finally {
    await fh.close();
  }
}

/** Parses JSON from outside; errors say whether the text is not JSON or stops part-way. */
function parseJson(text: string, label: string): unknown {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.trim() === '') throw new UsageError(`${label} is not JSON: it is empty`);
  try {
    return JSON.parse(text);
  } catch (err) {
    if (err instanceof RangeError) throw new UsageError(`${label} is nested too deeply to read`);
    const msg = err instanceof Error ? err.message : String(err);
    // An error at the very end of the text means the JSON was cut short, not that it is something else.
    const at = /at position (\d+)/.exec(msg);
    const end = text.trimEnd().length;
    if (/Unexpected end of JSON input/.test(msg) || (at && Number(at[1]) >= end)) {
      throw new UsageError(`${label} is truncated: the JSON stops part-way, at character ${end} (${msg})`);
    }
    throw new UsageError(`${label} is not JSON: ${msg}`);
  }
}

async function readExport(file: string): Promise<unknown> {
  const label = file;
  const buf = await readInput(file, label, MAX_EXPORT_BYTES);
  let text: string;
  try {
    text = buf.toString('utf8');
  } catch {
    throw new UsageError(`${label} is too large to read as one JSON text`);
  }
  // Measured on the text, before parsing: JSON.parse spends seconds on millions of nested brackets.
  if (textNestedDeeperThan(text, MAX_EXPORT_DEPTH)) {
    throw new UsageError(`${label} is nested deeper than ${MAX_EXPORT_DEPTH} levels: no export is, and it cannot be hashed`);
  }
  return parseJson(text, label);
}

/** The keys a --key value names: one public JWK or a key set, as a file or inline JSON. */
async function keysOf(arg: string): Promise<PublicJwk[]> {
  const inline = arg.trimStart().startsWith('{');
  const label = inline ? '--key (inline JSON)' : `--key ${arg}`;
  const text = inline ? arg : (await readInput(arg, label, MAX_KEY_BYTES)).toString('utf8');
  const v = parseJson(text, label) as { keys?: unknown } | null;
  const one = (jwk: unknown, what: string): PublicJwk => {
    try {
      return publicJwkOf(jwk);
    } catch (err) {
      throw new UsageError(`${label}: ${what} is ${(err as Error).message}`);
    }
  };
  if (typeof v === 'object' && v !== null && !Array.isArray(v) && 'keys' in v) {
    // A key set, or GET /v1/signing-key's answer ({key_id, keys}); members beyond the key are ignored.
    if (!Array.isArray(v.keys)) throw new UsageError(`${label}: "keys" is not an array`);
    if (v.keys.length === 0) throw new UsageError(`${label}: the key set has no keys`);
    return v.keys.map((k, i) => one(k, `key ${i + 1} of the set`));
  }
  return [one(v, 'it')];
}

async function checkDir(dir: string): Promise<void> {
  try {
    if (!(await fs.stat(dir)).isDirectory()) throw new UsageError(`--outputs ${dir} is not a directory`);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`--outputs ${dir} cannot be read: ${reasonOf(err)}`);
  }
}

/** The human-readable report: a few lines. */
export function describeReport(r: ExportReport): string[] {
  const b = r.first_broken;
  if (!r.ok && b) return [`FAILED (${b.part}${b.seq !== undefined ? ` at seq ${b.seq}` : ''}): ${b.reason}`];
  const lines = [`verified: session ${r.session_id ?? '?'}`];
  const unchained = r.unchained > 0 ? ` (+${r.unchained} from before the chain existed, not chained)` : '';
  lines.push(`  ${r.events} ${plural(r.events, 'event')} and ${r.decisions} ${plural(r.decisions, 'decision')} chained${unchained}`);
  if (r.head) {
    lines.push(`  head: events at seq ${r.head.events.seq} (${r.head.events.hash}), decisions at seq ${r.head.decisions.seq} (${r.head.decisions.hash})`);
    lines.push(`  signed at ${r.head.signed_at} by key ${r.key_id ?? '?'}`);
  }
  lines.push(
    r.key_pinned
      ? '  key: pinned (one of the keys given with --key)'
      : '  key: NOT pinned: the key came from the export itself, so this shows the export is intact, not who made it; ' +
          "pass --key with the server's published key (GET /v1/signing-key) to trust it",
  );
  const o = r.outputs;
  lines.push(`  outputs: ${o.claimed} claimed by events, ${o.unclaimed} unclaimed, ${o.files_checked} ${plural(o.files_checked, 'file')} checked`);
  return lines;
}

const plural = (n: number, word: string) => (n === 1 ? word : `${word}s`);
const sizeName = (n: number) => (n >= 1024 ** 3 ? `${n / 1024 ** 3} GiB` : `${n / 1024 ** 2} MiB`);

function reasonOf(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  switch (e?.code) {
    case 'ENOENT':
      return 'no such file';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'it is a directory';
    case 'ERR_FS_FILE_TOO_LARGE':
    case 'ERR_STRING_TOO_LONG':
      return 'too large to read';
    default:
      return e?.code ?? (err instanceof Error ? err.message : String(err));
  }
}

/** The `norma-verify` command: the process's arguments and streams, its exit status. */
export async function main(): Promise<void> {
  process.exitCode = await runVerifyCli(process.argv.slice(2), {
    out: (s) => process.stdout.write(`${s}\n`),
    err: (s) => process.stderr.write(`${s}\n`),
  });
}
