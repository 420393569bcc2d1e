// Another tenant's files never reach a session through links in its workspace, over real HTTP:
// tenant beta's workspaces hold links into tenant acme's workspace (and to /etc, and inside
// themselves) at every component the server reads on its own — `.norma`, `.norma/skills`, a
// skill folder, SKILL.md, a file a skill refers to, the instruction files — plus FIFOs, a huge
// file and hard links. None of acme's secrets appears in anything beta can read (the session,
// its tools' manuals, its skills, the export with every event and result, outputs, the model's
// system prompt); the Skill tool neither lists nor loads acme's skill; Read, Glob and Grep on
// acme's paths are refused. A tenant directory that is a link, and a workspace replaced by a
// link before a restart, are refused rather than followed.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeServer, fixture, sse } from '../model/fake-server.js';
import type { ContractClient } from '../helpers/contract.js';
import { closeAll } from '../helpers/server.js';
import { clientFor, newKey, startWithKeys, type KeySpec, type KeyedServer } from '../helpers/tenants.js';

let servers: KeyedServer[] = [];
let fakes: FakeServer[] = [];
let cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await closeAll(servers);
  for (const f of fakes) await f.close();
  fakes = [];
  for (const c of cleanups.splice(0)) await c();
});

const mark = (what: string) => `ACME-SECRET-${what}-${randomBytes(6).toString('hex')}`;
const SECRETS = {
  file: mark('FILE'),
  instructions: mark('INSTRUCTIONS'),
  description: mark('DESCRIPTION'),
  body: mark('SKILL-BODY'),
  notes: mark('NOTES'),
};

const keys = { acme: newKey('acme'), beta: newKey('beta'), gamma: newKey('gamma') };
const SPECS: KeySpec[] = [
  { key: keys.acme, tenant: 'acme', scopes: ['admin'] },
  { key: keys.beta, tenant: 'beta', scopes: ['admin'] },
  { key: keys.gamma, tenant: 'gamma', scopes: ['write'] },
];

async function boot(env: Record<string, string> = {}, dataDir?: string): Promise<KeyedServer> {
  const t = await startWithKeys(SPECS, { NORMA_SHUTDOWN_GRACE_S: '2', ...env }, dataDir ? { dataDir } : {});
  servers.push(t);
  return t;
}

/** The server's workspace root (made on first use), as a real path. */
async function rootOf(t: KeyedServer): Promise<string> {
  await fs.mkdir(t.config.workspaceRoot, { recursive: true });
  return fs.realpath(t.config.workspaceRoot);
}

/** acme's project: a secret file, an instruction file and a skill with a file beside its SKILL.md. */
async function acmeProject(root: string): Promise<string> {
  const proj = path.join(root, 'tenants', 'acme', 'proj');
  const skill = path.join(proj, '.norma', 'skills', 'private');
  await fs.mkdir(skill, { recursive: true });
  await fs.writeFile(path.join(proj, 'secret.txt'), `${SECRETS.file}\n`);
  await fs.writeFile(path.join(proj, 'AGENTS.md'), `${SECRETS.instructions}\n`);
  await fs.writeFile(path.join(skill, 'SKILL.md'), `---\nname: private\ndescription: ${SECRETS.description}\n---\n${SECRETS.body}\nSee notes.md.\n`);
  await fs.writeFile(path.join(skill, 'notes.md'), `${SECRETS.notes}\n`);
  return proj;
}

/** Every workspace of beta's, each with links (or worse) at one component. */
async function betaWorkspaces(root: string, acme: string): Promise<Record<string, string>> {
  const beta = path.join(root, 'tenants', 'beta');
  const acmeSkills = path.join(acme, '.norma', 'skills');
  const ws = async (name: string, ...dirs: string[]) => {
    const dir = path.join(beta, name);
    await fs.mkdir(dir, { recursive: true });
    for (const d of dirs) await fs.mkdir(path.join(dir, d), { recursive: true });
    return dir;
  };
  const own = (name: string, desc = 'Beta\'s own skill') => `---\nname: ${name}\ndescription: ${desc}\n---\nSee notes.md.\n`;
  const all: Record<string, string> = {};
  // `.norma` itself a link into acme's workspace.
  all.dotNorma = await ws('dot-norma');
  await fs.symlink(path.join(acme, '.norma'), path.join(all.dotNorma, '.norma'));
  // `.norma/skills` a link into acme's, and one to /etc.
  all.skillsDir = await ws('skills-dir', '.norma');
  await fs.symlink(acmeSkills, path.join(all.skillsDir, '.norma', 'skills'));
  all.skillsEtc = await ws('skills-etc', '.norma');
  await fs.symlink('/etc', path.join(all.skillsEtc, '.norma', 'skills'));
  // The skill folder a link; SKILL.md a link; SKILL.md a hard link of acme's.
  all.skillFolder = await ws('skill-folder', '.norma/skills');
  await fs.symlink(path.join(acmeSkills, 'private'), path.join(all.skillFolder, '.norma', 'skills', 'private'));
  all.skillFile = await ws('skill-file', '.norma/skills/private');
  await fs.symlink(path.join(acmeSkills, 'private', 'SKILL.md'), path.join(all.skillFile, '.norma', 'skills', 'private', 'SKILL.md'));
  all.skillHardLink = await ws('skill-hard-link', '.norma/skills/private');
  await fs.link(path.join(acmeSkills, 'private', 'SKILL.md'), path.join(all.skillHardLink, '.norma', 'skills', 'private', 'SKILL.md'));
  // A skill of beta's own whose referenced file and a subfolder are links into acme's.
  all.skillRef = await ws('skill-ref', '.norma/skills/mine');
  await fs.writeFile(path.join(all.skillRef, '.norma', 'skills', 'mine', 'SKILL.md'), own('mine'));
  await fs.symlink(path.join(acmeSkills, 'private', 'notes.md'), path.join(all.skillRef, '.norma', 'skills', 'mine', 'notes.md'));
  await fs.symlink(acme, path.join(all.skillRef, '.norma', 'skills', 'mine', 'acme'));
  // `.norma` a link that stays inside the workspace: refused too (nothing the server reads on its own follows links).
  all.inside = await ws('inside', 'config/skills/inner');
  await fs.writeFile(path.join(all.inside, 'config', 'skills', 'inner', 'SKILL.md'), own('inner'));
  await fs.symlink(path.join(all.inside, 'config'), path.join(all.inside, '.norma'));
  // Instruction files: a link into acme's, a link to /etc, a link inside, a hard link of acme's.
  all.instructions = await ws('instructions', 'docs');
  await fs.symlink(path.join(acme, 'AGENTS.md'), path.join(all.instructions, 'AGENTS.md'));
  await fs.symlink('/etc/passwd', path.join(all.instructions, 'CLAUDE.md'));
  await fs.writeFile(path.join(all.instructions, 'docs', 'inner.md'), 'beta inner instructions\n');
  await fs.symlink(path.join(all.instructions, 'docs', 'inner.md'), path.join(all.instructions, 'NORMA.md'));
  all.hardLink = await ws('hard-link');
  await fs.link(path.join(acme, 'AGENTS.md'), path.join(all.hardLink, 'AGENTS.md'));
  // FIFOs where a directory and a file are expected; a 1 GiB (sparse) instruction file.
  all.special = await ws('special');
  execFileSync('mkfifo', [path.join(all.special, '.norma')]);
  execFileSync('mkfifo', [path.join(all.special, 'AGENTS.md')]);
  await fs.writeFile(path.join(all.special, 'CLAUDE.md'), '');
  await fs.truncate(path.join(all.special, 'CLAUDE.md'), 1024 ** 3);
  return all;
}

const textOf = (r: { content: { type: string; text?: string }[] }) => r.content.map((c) => c.text ?? '').join('\n');

/** Everything beta can read about a session, as one string. */
async function everything(c: ContractClient, id: string): Promise<string> {
  const parts: unknown[] = [];
  for (const p of ['', '/skills', '/tools', '/turns', '/export', '/decisions', '/outputs']) {
    const res = await c.get(`/v1/sessions/${id}${p}`);
    expect(res.status, p).toBe(200);
    parts.push(res.body);
  }
  const outputs = parts.at(-1) as { id: string }[];
  for (const o of outputs) parts.push((await c.get(`/v1/sessions/${id}/outputs/${o.id}`)).body);
  return JSON.stringify(parts);
}

function expectNoSecret(text: string, where: string): void {
  for (const [what, secret] of Object.entries(SECRETS)) expect(text, `${what} in ${where}`).not.toContain(secret);
  // /etc/passwd's first line is root's.
  expect(text, `/etc/passwd in ${where}`).not.toMatch(/root:x?:0:0:/);
}

describe('links in a workspace into another tenant\'s', () => {
  it('load none of its skills or instructions, and open none of its files to Read, Glob or Grep', async () => {
    const f = await new FakeServer().start();
    fakes.push(f);
    f.always(sse(fixture('anthropic/text.sse')));
    const t = await boot({ NORMA_EGRESS_ALLOW: '127.0.0.1' });
    const root = await rootOf(t);
    const acme = await acmeProject(root);
    // The setup is sound: acme's own session has its skill and instructions.
    const mine = (await clientFor(t.url, keys.acme).post('/v1/sessions', { workspace: 'proj', tools: ['Skill'] })).body;
    expect(mine.skills).toEqual(['private']);
    expect(mine.instructions.map((i: { file: string }) => i.file)).toEqual(['AGENTS.md']);
    const b = await betaWorkspaces(root, acme);
    const beta = clientFor(t.url, keys.beta);

    const model = { provider: 'anthropic', model: 'claude-test', base_url: f.origin, api_key: 'k-123456' };
    const seen: Record<string, { skills: string[]; warnings: string }> = {};
    for (const [label, dir] of Object.entries(b)) {
      const created = await beta.post('/v1/sessions', { workspace: path.basename(dir), tools: ['Skill', 'Read', 'Glob', 'Grep'], permission_mode: 'bypassPermissions', model });
      expect(created.status, label).toBe(201);
      const s = created.body;
      seen[label] = { skills: s.skills, warnings: s.warnings.join('\n') };
      expect(s.skills, label).not.toContain('private');
      const listed = (await beta.get(`/v1/sessions/${s.id}/skills`)).body.items.map((k: { name: string }) => k.name);
      expect(listed, label).not.toContain('private');
      const manual = (await beta.get(`/v1/sessions/${s.id}/tools`)).body.find((x: { name: string }) => x.name === 'Skill').description as string;
      expect(manual, label).not.toContain('- private:');

      const turn = (
        await beta.post(`/v1/sessions/${s.id}/turns?wait=20`, {
          tool_uses: [
            { name: 'Skill', input: { skill: 'private' } },
            { name: 'Read', input: { file_path: path.join(acme, 'secret.txt') } },
            { name: 'Read', input: { file_path: path.join(acme, '.norma', 'skills', 'private', 'notes.md') } },
            { name: 'Read', input: { file_path: '.norma/skills/private/notes.md' } },
            { name: 'Glob', input: { pattern: '**/*', path: acme } },
            { name: 'Grep', input: { pattern: 'ACME-SECRET', path: acme } },
            { name: 'Grep', input: { pattern: 'ACME-SECRET', path: path.join(acme, '.norma', 'skills', 'private') } },
          ],
        })
      ).body;
      expect(turn.status, label).toBe('completed');
      expect(turn.results.map((r: { is_error: boolean }) => r.is_error), label).toEqual([true, true, true, true, true, true, true]);
      expect(textOf(turn.results[0]), label).toContain('there is no skill "private"');
      for (const r of turn.results.slice(1, 3).concat(turn.results.slice(4))) expect(textOf(r), label).toMatch(/outside the workspace/);

      // Searches of its own workspace do not wander through the links either.
      const own = (
        await beta.post(`/v1/sessions/${s.id}/turns?wait=20`, {
          tool_uses: [
            { name: 'Grep', input: { pattern: 'ACME-SECRET', path: '.' } },
            { name: 'Glob', input: { pattern: '**/*.md' } },
          ],
        })
      ).body;
      expect(own.status, label).toBe('completed');
      // A prompt turn: the instruction files join the system prompt, acme's never.
      expect((await beta.post(`/v1/sessions/${s.id}/turns?wait=20`, { prompt: 'hi' })).body.status, label).toBe('completed');
      expectNoSecret(f.received.at(-1)!.body, `${label}: the model's request`);
      expectNoSecret(await everything(beta, s.id), label);
    }

    // What was refused is said, naming the component.
    expect(seen.dotNorma!.warnings).toContain('.norma is a symlink (it is not followed)');
    expect(seen.skillsDir!.warnings).toContain('.norma/skills is a symlink (it is not followed)');
    expect(seen.skillsEtc!.warnings).toContain('.norma/skills is a symlink (it is not followed)');
    expect(seen.skillFolder!.warnings).toContain('the skill folder is a symlink');
    expect(seen.skillFile!.warnings).toContain('SKILL.md is a symlink');
    expect(seen.skillHardLink!.warnings).toMatch(/SKILL\.md cannot be read: has 2 hard links/);
    expect(seen.inside!.warnings).toContain('.norma is a symlink (it is not followed)');
    expect(seen.inside!.skills).toEqual([]);
    expect(seen.instructions!.warnings).toContain('instruction file AGENTS.md was not loaded: is a symlink (it is not followed)');
    expect(seen.instructions!.warnings).toContain('instruction file CLAUDE.md was not loaded: is a symlink (it is not followed)');
    expect(seen.instructions!.warnings).toContain('instruction file NORMA.md was not loaded: is a symlink (it is not followed)');
    expect(seen.hardLink!.warnings).toContain('instruction file AGENTS.md was not loaded: has 2 hard links');
    expect(seen.special!.warnings).toContain('.norma is not a directory');
    expect(seen.special!.warnings).toContain('instruction file AGENTS.md was not loaded: is not a regular file (a FIFO)');
    expect(seen.special!.warnings).toContain(`instruction file CLAUDE.md was not loaded: it has more than the ${64 * 1024} bytes allowed`);
    // beta's own skill is beta's, and stays in beta's workspace.
    expect(seen.skillRef!.skills).toEqual(['mine']);
  }, 120_000);

  it('the Skill tool opens no folder outside the workspace: not through a linked .norma, not through a used skill of its own', async () => {
    const t = await boot();
    const root = await rootOf(t);
    const acme = await acmeProject(root);
    const b = await betaWorkspaces(root, acme);
    const beta = clientFor(t.url, keys.beta);
    const acmeSkill = path.join(acme, '.norma', 'skills', 'private');
    for (const [label, dir, skill] of [
      ['a linked .norma', b.dotNorma!, 'private'],
      ['a skill of its own', b.skillRef!, 'mine'],
    ] as const) {
      const s = (await beta.post('/v1/sessions', { workspace: path.basename(dir), tools: ['Skill', 'Read', 'Glob', 'Grep'], permission_mode: 'bypassPermissions' })).body;
      const used = (await beta.post(`/v1/sessions/${s.id}/turns?wait=20`, { tool_uses: [{ name: 'Skill', input: { skill } }] })).body;
      // acme's skill is not there to use; beta's own is, and its folder is beta's workspace already.
      expect(used.results[0].is_error, label).toBe(skill === 'private');
      expect((await beta.get(`/v1/sessions/${s.id}`)).body.used_skills, label).toEqual(skill === 'private' ? [] : ['mine']);
      // The next turn: nothing of acme's is readable, by its own path or through beta's links.
      const after = (
        await beta.post(`/v1/sessions/${s.id}/turns?wait=20`, {
          tool_uses: [
            { name: 'Read', input: { file_path: path.join(acmeSkill, 'notes.md') } },
            { name: 'Read', input: { file_path: path.join(acmeSkill, 'SKILL.md') } },
            { name: 'Glob', input: { pattern: '**/*', path: acmeSkill } },
            { name: 'Grep', input: { pattern: 'ACME', path: acmeSkill } },
            { name: 'Read', input: { file_path: '.norma/skills/mine/notes.md' } },
            { name: 'Read', input: { file_path: '.norma/skills/mine/acme/secret.txt' } },
            { name: 'Grep', input: { pattern: 'ACME', path: '.norma/skills/mine/acme' } },
          ],
        })
      ).body;
      expect(after.results.map((r: { is_error: boolean }) => r.is_error), label).toEqual([true, true, true, true, true, true, true]);
      expectNoSecret(await everything(beta, s.id), label);
    }
  }, 60_000);
});

describe('the tenant\'s own tree', () => {
  it('a tenant directory that is a link into another tenant\'s is refused, never used', async () => {
    const t = await boot();
    const root = await rootOf(t);
    await acmeProject(root);
    await fs.symlink(path.join(root, 'tenants', 'acme'), path.join(root, 'tenants', 'gamma'));
    const gamma = clientFor(t.url, keys.gamma);
    for (const body of [{ workspace: 'proj' }, {}]) {
      const res = await gamma.post('/v1/sessions', body);
      expect(res.status, JSON.stringify(body)).toBe(503);
      expect(res.body.detail).toContain('is a symlink');
    }
    expect((await gamma.get('/v1/sessions')).body.items).toEqual([]);
  });

  it('a workspace replaced by a link into another tenant\'s before a restart is not opened: the session is closed', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-links-'));
    cleanups.push(() => fs.rm(dataDir, { recursive: true, force: true }));
    const first = await boot({}, dataDir);
    const root = await rootOf(first);
    const acme = await acmeProject(root);
    const victim = path.join(root, 'tenants', 'beta', 'victim');
    await fs.mkdir(victim, { recursive: true });
    const s = (await clientFor(first.url, keys.beta).post('/v1/sessions', { workspace: 'victim', tools: ['Read'], permission_mode: 'bypassPermissions' })).body;
    expect(s.workspace).toBe(victim);
    await closeAll(servers);
    await fs.rm(victim, { recursive: true });
    await fs.symlink(acme, victim);

    const second = await boot({}, dataDir);
    const beta = clientFor(second.url, keys.beta);
    expect((await beta.get(`/v1/sessions/${s.id}`)).body.status).toBe('closed');
    const posted = await beta.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'Read', input: { file_path: 'secret.txt' } }] });
    expect(posted.status).toBe(409);
    const exported = (await beta.get(`/v1/sessions/${s.id}/export`)).body;
    const closed = exported.events.find((e: { type: string }) => e.type === 'session.closed');
    expect(closed.reason).toContain('a link was put in its way');
    expectNoSecret(JSON.stringify(exported), 'the closed session');
  }, 60_000);
});
