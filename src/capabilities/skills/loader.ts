// Skills: folders holding a SKILL.md (YAML front matter, then markdown instructions), from the
// operator's skills directory and the workspace's. Everything is read through a path sandbox
// opened on the source directory, so a skill folder or SKILL.md that is a symlink, a FIFO, a
// device or too large is reported as a problem and never followed, opened or read. A workspace's
// source is reached from the workspace without following a link at any component (`.norma`,
// `.norma/skills`), wherever it points: a workspace cannot make another tree — another tenant's
// workspace, /etc — its skills. SKILL.md is read again when the skill is invoked: what the model
// gets is what is on disk then, validated again.
import { createHash } from 'node:crypto';
import type { Dirent } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { parseDocument, YAMLParseError } from 'yaml';
import { PathRefusal, Workspace } from '../../sandbox/paths.js';
import { listNoFollow, NoFollowMissing } from '../../sandbox/no-follow.js';
import type { SkillInfo } from '../../tools/capability.js';

export type SkillSourceKind = 'operator' | 'workspace';

export interface SkillSource {
  dir: string;
  source: SkillSourceKind;
  /**
   * The real directory `dir` lies in and is reached from without following any link (the
   * session's workspace, for its own skills): a link at any component between the two is a
   * problem of the source, never followed.
   */
  within?: string;
}

/** A skill a session may use (the type sessions hand their capabilities). */
export type { SkillInfo };

export interface SkillProblem {
  /** The folder name (for a problem of a whole source: the source directory's name). */
  name: string;
  source: SkillSourceKind;
  dir: string;
  message: string;
}

export const SKILL_FILE = 'SKILL.md';
export const SKILL_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;
const TOOL_NAME = /^[A-Za-z][A-Za-z0-9_*-]*$/;
export const MAX_DESCRIPTION_CHARS = 1024;
export const MAX_ALLOWED_TOOLS = 64;
export const MAX_BODY_CHARS = 100_000;
export const MAX_SKILL_FILE_BYTES = 256 * 1024;
export const MAX_SKILLS_PER_SOURCE = 200;

/** What the operator's skills win over: on a name clash the first kind listed here is kept. */
const PRECEDENCE: readonly SkillSourceKind[] = ['operator', 'workspace'];

type Parsed = { ok: true; info: SkillInfo; body: string } | { ok: false; message: string };

export async function loadSkills(sources: readonly SkillSource[]): Promise<{ skills: SkillInfo[]; problems: SkillProblem[] }> {
  const loaded: SkillInfo[] = [];
  const problems: SkillProblem[] = [];
  for (const src of sources) {
    const r = await loadSource(src);
    loaded.push(...r.skills);
    problems.push(...r.problems);
  }
  // Stable sort: among sources of the same kind the one listed first wins.
  const ordered = [...loaded].sort((a, b) => PRECEDENCE.indexOf(a.source) - PRECEDENCE.indexOf(b.source));
  const byName = new Map<string, SkillInfo>();
  for (const s of ordered) {
    const winner = byName.get(s.name);
    if (winner) {
      problems.push({ name: s.name, source: s.source, dir: s.dir, message: `a skill of the ${winner.source} has this name (${winner.dir})` });
      continue;
    }
    byName.set(s.name, s);
  }
  const skills = [...byName.values()].sort((a, b) => compare(a.name, b.name));
  problems.sort((a, b) => compare(a.name, b.name) || compare(a.source, b.source) || compare(a.dir, b.dir));
  return { skills, problems };
}

/** Reads SKILL.md again (it may have changed since the skill was listed) and validates it again. */
export async function readSkillBody(skill: SkillInfo): Promise<{ ok: true; body: string; info: SkillInfo } | { ok: false; message: string }> {
  const sourceDir = path.dirname(skill.dir);
  let ws: Workspace;
  try {
    ws = await Workspace.open(sourceDir);
  } catch (err) {
    return { ok: false, message: `its source directory ${sourceDir} cannot be opened: ${errorText(err)}` };
  }
  // The sandbox root is the real path of the source directory: if that moved, so did the skill.
  if (ws.root !== sourceDir) return { ok: false, message: `its source directory ${sourceDir} was moved or replaced by a symlink` };
  let entry: Dirent | undefined;
  try {
    entry = (await ws.listRealDirectory(ws.root)).find((e) => e.name === path.basename(skill.dir));
  } catch (err) {
    return { ok: false, message: `its source directory ${sourceDir} cannot be listed: ${errorText(err)}` };
  }
  if (!entry) return { ok: false, message: `its folder ${skill.dir} no longer exists` };
  if (!entry.isDirectory()) return { ok: false, message: `its folder ${skill.dir} ${entry.isSymbolicLink() ? 'was replaced by a symlink' : 'is no longer a directory'}` };
  const r = await readSkillFolder(ws, entry.name, skill.source);
  return r.ok ? { ok: true, body: r.body, info: r.info } : r;
}

async function loadSource(src: SkillSource): Promise<{ skills: SkillInfo[]; problems: SkillProblem[] }> {
  const skills: SkillInfo[] = [];
  const problems: SkillProblem[] = [];
  const sourceProblem = (message: string) => ({ skills, problems: [{ name: path.basename(src.dir), source: src.source, dir: src.dir, message }] });
  if (src.within !== undefined) {
    const parts = path.relative(src.within, src.dir).split(path.sep);
    if (parts[0] === '..' || path.isAbsolute(parts[0]!)) throw new Error(`internal: ${src.dir} is not inside ${src.within}`);
    try {
      await listNoFollow(src.within, parts);
    } catch (err) {
      if (err instanceof NoFollowMissing) return { skills, problems };
      return sourceProblem(`the skills directory cannot be read: ${errorText(err)}`);
    }
  } else {
    try {
      const st = await fs.lstat(src.dir);
      if (st.isSymbolicLink()) return sourceProblem('the skills directory is a symlink (it is not followed)');
      if (!st.isDirectory()) return sourceProblem('the skills directory is not a directory');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { skills, problems };
      return sourceProblem(`the skills directory cannot be read: ${errorText(err)}`);
    }
  }
  let ws: Workspace;
  let entries: Dirent[];
  try {
    ws = await Workspace.open(src.dir);
    // Reached without a link a moment ago: a different real path now means one was put in since.
    if (src.within !== undefined && ws.root !== src.dir) return sourceProblem('the skills directory was replaced by a symlink while it was being read (it is not followed)');
    entries = await ws.listRealDirectory(ws.root);
  } catch (err) {
    return sourceProblem(`the skills directory cannot be read: ${errorText(err)}`);
  }
  // Symlinks are candidates too, so that a linked skill is reported rather than silently missing.
  const folders = entries
    .filter((e) => !e.name.startsWith('.') && (e.isDirectory() || e.isSymbolicLink()))
    .map((e) => ({ name: e.name, link: e.isSymbolicLink() }))
    .sort((a, b) => compare(a.name, b.name));
  if (folders.length > MAX_SKILLS_PER_SOURCE) {
    const skipped = folders.slice(MAX_SKILLS_PER_SOURCE).map((f) => f.name);
    problems.push({
      name: path.basename(src.dir),
      source: src.source,
      dir: ws.root,
      message: `the skills directory has ${folders.length} skill folders; only the first ${MAX_SKILLS_PER_SOURCE} by name are loaded (skipped: ${listNames(skipped)})`,
    });
  }
  for (const f of folders.slice(0, MAX_SKILLS_PER_SOURCE)) {
    const dir = path.join(ws.root, f.name);
    if (f.link) {
      problems.push({ name: f.name, source: src.source, dir, message: 'the skill folder is a symlink (it is not followed)' });
      continue;
    }
    const r = await readSkillFolder(ws, f.name, src.source);
    if (r.ok) skills.push(r.info);
    else problems.push({ name: f.name, source: src.source, dir, message: r.message });
  }
  return { skills, problems };
}

/** Reads and validates `<source>/<folder>/SKILL.md` through the source's sandbox. */
async function readSkillFolder(ws: Workspace, folder: string, source: SkillSourceKind): Promise<Parsed> {
  let real: string;
  let entries: Dirent[];
  try {
    ({ real, entries } = await ws.readDirectory(path.join(ws.root, folder)));
  } catch (err) {
    return { ok: false, message: `the skill folder cannot be read: ${errorText(err)}` };
  }
  // The folder was listed as a directory; through a symlink swapped in since, it would be another.
  if (real !== path.join(ws.root, folder)) return { ok: false, message: 'the skill folder was replaced by a symlink (it is not followed)' };
  const entry = entries.find((e) => e.name === SKILL_FILE);
  if (!entry) return { ok: false, message: `the folder has no ${SKILL_FILE}` };
  if (entry.isSymbolicLink()) return { ok: false, message: `${SKILL_FILE} is a symlink (it is not followed)` };
  const file = path.join(real, SKILL_FILE);
  let bytes: Buffer;
  try {
    // A hard link cannot be told from the file it shares: in a tree a tenant writes, refused.
    bytes = await readCapped(ws, file, source === 'workspace');
  } catch (err) {
    if (err instanceof TooLarge) return { ok: false, message: `${SKILL_FILE} is larger than ${MAX_SKILL_FILE_BYTES} bytes` };
    return { ok: false, message: `${SKILL_FILE} cannot be read: ${errorText(err)}` };
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { ok: false, message: `${SKILL_FILE} is not valid UTF-8` };
  }
  const parsed = parseSkillFile(text, folder);
  if (!parsed.ok) return parsed;
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  return { ok: true, body: parsed.body, info: { ...parsed.meta, dir: real, source, sha256 } };
}

class TooLarge extends Error {}

/** The file's bytes, refused past the cap (also when it grows while being read). */
async function readCapped(ws: Workspace, file: string, singleLink: boolean): Promise<Buffer> {
  const opened = await ws.openForRead(file);
  try {
    if (singleLink && opened.nlink > 1) throw new PathRefusal(file, `has ${opened.nlink} hard links (a workspace's ${SKILL_FILE} must have one)`);
    // A name swapped for a link after the listing would have been resolved by the open: the
    // file read must be the very entry the folder holds under that name.
    const [at, fst] = await Promise.all([fs.lstat(file), opened.handle.stat()]);
    if (at.isSymbolicLink() || at.ino !== fst.ino || at.dev !== fst.dev) throw new PathRefusal(file, 'was replaced by a symlink while it was being opened');
    if (opened.size > MAX_SKILL_FILE_BYTES) throw new TooLarge();
    const buf = Buffer.alloc(MAX_SKILL_FILE_BYTES + 1);
    let filled = 0;
    while (filled < buf.length) {
      const { bytesRead } = await opened.handle.read(buf, filled, buf.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    if (filled > MAX_SKILL_FILE_BYTES) throw new TooLarge();
    return buf.subarray(0, filled);
  } finally {
    await opened.handle.close().catch(() => undefined);
  }
}

type SkillMeta = Pick<SkillInfo, 'name' | 'description' | 'allowedTools'>;

/** Splits SKILL.md into front matter and body and validates the front matter. */
export function parseSkillFile(text: string, folder: string): { ok: true; meta: SkillMeta; body: string } | { ok: false; message: string } {
  const src = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const lines = src.split('\n');
  const isFence = (l: string) => l.replace(/\r$/, '').trimEnd() === '---';
  if (lines.length === 0 || !isFence(lines[0]!)) return { ok: false, message: `${SKILL_FILE} has no front matter: its first line must be ---` };
  const close = lines.findIndex((l, i) => i > 0 && isFence(l));
  if (close === -1) return { ok: false, message: `the front matter of ${SKILL_FILE} is not terminated: no closing --- line` };

  const doc = parseDocument(lines.slice(1, close).join('\n'), { prettyErrors: true, uniqueKeys: true });
  const yamlError = doc.errors[0];
  if (yamlError) return { ok: false, message: yamlMessage(yamlError) };
  let fm: unknown;
  try {
    fm = doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    return { ok: false, message: `the front matter is not valid YAML: ${errorText(err)}` };
  }
  if (fm === null || typeof fm !== 'object' || Array.isArray(fm)) return { ok: false, message: 'the front matter is not a YAML mapping (expected name: and description: fields)' };
  const f = fm as Record<string, unknown>;

  if (f.name === undefined || f.name === null) return { ok: false, message: 'the front matter has no name' };
  if (typeof f.name !== 'string' || !SKILL_NAME.test(f.name)) {
    return { ok: false, message: `name ${JSON.stringify(f.name)} is invalid: lower-case letters, digits and -, starting with a letter or digit, at most 64 characters` };
  }
  if (f.name !== folder) return { ok: false, message: `name "${f.name}" does not match its folder name "${folder}"` };

  if (f.description === undefined || f.description === null) return { ok: false, message: 'the front matter has no description' };
  if (typeof f.description !== 'string' || f.description.trim() === '') return { ok: false, message: 'description must be a non-empty string' };
  if (f.description.length > MAX_DESCRIPTION_CHARS) {
    return { ok: false, message: `description is longer than ${MAX_DESCRIPTION_CHARS} characters (${f.description.length})` };
  }

  const tools = allowedTools(f['allowed-tools']);
  if (typeof tools === 'string') return { ok: false, message: tools };

  const body = lines
    .slice(close + 1)
    .join('\n')
    .replace(/^(?:[ \t]*\r?\n)+/, '')
    .trimEnd();
  if (body.length > MAX_BODY_CHARS) return { ok: false, message: `the body of ${SKILL_FILE} is longer than ${MAX_BODY_CHARS} characters (${body.length})` };
  return { ok: true, meta: { name: f.name, description: f.description.trim(), allowedTools: tools }, body };
}

/** `allowed-tools`: a YAML list of names, or one string of names separated by commas and/or spaces. */
function allowedTools(v: unknown): string[] | string {
  if (v === undefined || v === null) return [];
  let names: unknown[];
  if (typeof v === 'string') names = v.split(/[\s,]+/).filter((s) => s !== '');
  else if (Array.isArray(v)) names = v;
  else return 'allowed-tools must be a list of tool names or a string of names separated by commas or spaces';
  if (names.length > MAX_ALLOWED_TOOLS) return `allowed-tools names ${names.length} tools; at most ${MAX_ALLOWED_TOOLS} are allowed`;
  const out: string[] = [];
  for (const n of names) {
    const name = typeof n === 'string' ? n.trim() : n;
    if (typeof name !== 'string' || !TOOL_NAME.test(name)) {
      return `allowed-tools: ${JSON.stringify(n)} is not a tool name (a letter, then letters, digits, _, - or *; e.g. WebFetch or mcp__github__*)`;
    }
    if (!out.includes(name)) out.push(name);
  }
  return out;
}

/** A YAML error with its line counted in SKILL.md (the front matter starts on line 2). */
function yamlMessage(err: YAMLParseError): string {
  const pos = err.linePos?.[0];
  const reason = err.message.replace(/ at line \d+, column \d+:[\s\S]*$/, '').trim();
  return pos
    ? `YAML syntax error in the front matter at line ${pos.line + 1}, column ${pos.col} of ${SKILL_FILE}: ${reason}`
    : `YAML syntax error in the front matter of ${SKILL_FILE}: ${reason}`;
}

function errorText(err: unknown): string {
  if (err instanceof PathRefusal) return err.rule;
  return err instanceof Error ? err.message : String(err);
}

function listNames(names: readonly string[]): string {
  return names.length <= 10 ? names.join(', ') : `${names.slice(0, 10).join(', ')} and ${names.length - 10} more`;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
