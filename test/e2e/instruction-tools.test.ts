// Memory, skills and instruction files over HTTP: the memory store behind /memories (private or
// a named store shared by sessions, approval like Write, rules by path, GET …/memory), skills
// from the operator's folder and the workspace's (reported at creation, listed only by name and
// description, the folder readable but never writable after use, durable across a restart), and
// AGENTS.md / CLAUDE.md joining the system prompt of prompt turns.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeServer, fixture, sse } from '../model/fake-server.js';
import { startServer, type TestServer, closeAll } from '../helpers/server.js';

let servers: TestServer[] = [];
let dirs: string[] = [];
let fakes: FakeServer[] = [];
afterEach(async () => {
  await closeAll(servers);
  for (const f of fakes) await f.close();
  fakes = [];
  for (const d of dirs) await fs.rm(d, { recursive: true, force: true });
  dirs = [];
});

async function tempDir(prefix: string): Promise<string> {
  const d = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
  dirs.push(d);
  return d;
}
async function boot(env: Record<string, string> = {}, dataDir?: string): Promise<TestServer> {
  const t = await startServer({ NORMA_SANDBOX: 'off', NORMA_SHUTDOWN_GRACE_S: '2', ...env }, dataDir ? { dataDir } : {});
  servers.push(t);
  return t;
}
const textOf = (r: { content: { text: string }[] }) => r.content.map((c) => c.text).join('\n');
async function run(t: TestServer, sessionId: string, toolUses: { name: string; input: unknown }[]) {
  const res = await t.api.post(`/v1/sessions/${sessionId}/turns?wait=20`, { tool_uses: toolUses });
  expect(res.status).toBe(200);
  return res.body;
}
async function skill(root: string, name: string, front: string, body = `Steps for ${name}.`) {
  await fs.mkdir(path.join(root, name), { recursive: true });
  await fs.writeFile(path.join(root, name, 'SKILL.md'), `---\n${front}\n---\n${body}\n`);
}

describe('Memory', () => {
  it('changes ask like Write, view does not; rules by /memories path decide; GET …/memory lists the files', async () => {
    const t = await boot();
    const s = (await t.api.post('/v1/sessions', { tools: ['Memory'], allowed_tools: ['Memory(/memories/notes/**)'] })).body;
    expect(s.memory_store).toBeNull();
    const first = await run(t, s.id, [
      { name: 'Memory', input: { command: 'create', path: '/memories/notes/progress.md', file_text: 'step 1 done\n' } },
      { name: 'Memory', input: { command: 'view', path: '/memories' } },
    ]);
    expect(first.status).toBe('completed');
    expect(first.results.map((r: { is_error: boolean }) => r.is_error)).toEqual([false, false]);
    expect(textOf(first.results[1])).toContain('/memories/notes/progress.md');

    // Outside the allowed folder a change asks, with a narrow suggestion.
    const asked = (await t.api.post(`/v1/sessions/${s.id}/turns?wait=10`, { tool_uses: [{ name: 'Memory', input: { command: 'create', path: '/memories/other.md', file_text: 'x' } }] })).body;
    expect(asked.status).toBe('awaiting_permission');
    const req = (await t.api.get(`/v1/sessions/${s.id}/permissions?status=pending`)).body.items[0];
    expect(req).toMatchObject({ tool: 'Memory' });
    expect(req.suggestions).toContain('Memory(/memories/other.md)');
    await t.api.post(`/v1/sessions/${s.id}/permissions/${req.id}`, { behavior: 'deny', message: 'not there' });
    for (let i = 0; i < 50 && (await t.api.get(`/v1/sessions/${s.id}/turns/${asked.id}`)).body.status !== 'completed'; i++) await new Promise((r) => setTimeout(r, 50));

    const listing = (await t.api.get(`/v1/sessions/${s.id}/memory`)).body;
    expect(listing.store).toBe('session');
    expect(listing.items).toEqual([
      { path: '/memories/notes/progress.md', bytes: 12, sha256: createHash('sha256').update('step 1 done\n').digest('hex'), modified_at: expect.any(String) },
    ]);
    // Nothing of the server's own directories reaches the model.
    expect(JSON.stringify(first)).not.toContain(t.dataDir);
  });

  it('refuses paths outside /memories and oversized files, writing nothing; plan mode allows view only', async () => {
    const t = await boot();
    const s = (await t.api.post('/v1/sessions', { tools: ['Memory'], permission_mode: 'bypassPermissions' })).body;
    const turn = await run(t, s.id, [
      { name: 'Memory', input: { command: 'create', path: '/etc/passwd', file_text: 'x' } },
      { name: 'Memory', input: { command: 'create', path: '/memories/../x', file_text: 'x' } },
      { name: 'Memory', input: { command: 'create', path: 'notes.md', file_text: 'x' } },
      { name: 'Memory', input: { command: 'create', path: '/memories/big.md', file_text: 'x'.repeat(262_145) } },
      { name: 'Memory', input: { command: 'view', path: '/memories/missing.md' } },
    ]);
    expect(turn.results.map((r: { is_error: boolean }) => r.is_error)).toEqual([true, true, true, true, true]);
    expect((await t.api.get(`/v1/sessions/${s.id}/memory`)).body.items).toEqual([]);

    const p = (await t.api.post('/v1/sessions', { tools: ['Memory'], permission_mode: 'plan' })).body;
    const planned = await run(t, p.id, [
      { name: 'Memory', input: { command: 'create', path: '/memories/a.md', file_text: 'x' } },
      { name: 'Memory', input: { command: 'view', path: '/memories' } },
    ]);
    expect(planned.results.map((r: { is_error: boolean }) => r.is_error)).toEqual([true, false]);
    expect(textOf(planned.results[0])).toContain('plan mode');
  });

  it('a named memory_store is shared by the sessions naming it and outlives them; a private one is the session\'s own', async () => {
    const t = await boot();
    const a = (await t.api.post('/v1/sessions', { tools: ['Memory'], memory_store: 'team-notes', permission_mode: 'bypassPermissions' })).body;
    const b = (await t.api.post('/v1/sessions', { tools: ['Memory'], memory_store: 'team-notes', permission_mode: 'bypassPermissions' })).body;
    const c = (await t.api.post('/v1/sessions', { tools: ['Memory'], permission_mode: 'bypassPermissions' })).body;
    expect(a.memory_store).toBe('team-notes');
    await run(t, a.id, [{ name: 'Memory', input: { command: 'create', path: '/memories/decisions.md', file_text: 'use SQLite\n' } }]);
    const read = await run(t, b.id, [{ name: 'Memory', input: { command: 'view', path: '/memories/decisions.md' } }]);
    expect(textOf(read.results[0])).toContain('use SQLite');
    const other = await run(t, c.id, [{ name: 'Memory', input: { command: 'view', path: '/memories/decisions.md' } }]);
    expect(other.results[0].is_error).toBe(true);
    expect((await t.api.get(`/v1/sessions/${b.id}/memory`)).body).toMatchObject({ store: 'team-notes', items: [{ path: '/memories/decisions.md' }] });
    // Store names are checked: nothing from a request becomes a path unchecked.
    const bad = await t.api.post('/v1/sessions', { tools: ['Memory'], memory_store: '../escape' });
    expect(bad.status).toBe(400);
  });
});

describe('skills', () => {
  it('come from the operator and the workspace, are listed by name and description, load on use, and stay usable after a restart', async () => {
    const dataDir = await tempDir('norma-skills-data-');
    const skills = await tempDir('norma-skills-op-');
    await skill(skills, 'deploy', 'name: deploy\ndescription: Ship a release to staging\nallowed-tools: [WebFetch, "mcp__ci__*"]', 'Run the deploy checklist.\nSee checklist.md in this folder.');
    await fs.writeFile(path.join(skills, 'deploy', 'checklist.md'), '1. tag\n2. push\n');
    await skill(skills, 'broken', 'name: broken\ndescription: [unclosed');
    const ws = path.join(dataDir, 'workspaces', 'proj');
    await skill(path.join(ws, '.norma', 'skills'), 'lint', 'name: lint\ndescription: Lint the code base', 'Run the linter.');

    const a = await boot({ NORMA_SKILLS_DIR: skills }, dataDir);
    // Naming a broken or unknown skill is a 400 naming it; nothing is created.
    const before = (await a.api.get('/v1/sessions?limit=200')).body.items.length;
    const refused = await a.api.post('/v1/sessions', { tools: ['Skill'], workspace: 'proj', skills: ['deploy', 'broken', 'nope'] });
    expect(refused.status).toBe(400);
    const messages = refused.body.errors.map((e: { message: string }) => e.message).join('\n');
    expect(messages).toContain('skill "broken"');
    expect(messages).toContain('YAML');
    expect(messages).toContain('no skill named "nope"');
    expect((await a.api.get('/v1/sessions?limit=200')).body.items.length).toBe(before);

    // Not naming it: every valid one, the broken one a warning.
    const s = (await a.api.post('/v1/sessions', { tools: ['Skill', 'Read', 'Write', 'Glob', 'Grep'], workspace: 'proj', permission_mode: 'bypassPermissions' })).body;
    expect(s.skills).toEqual(['deploy', 'lint']);
    expect(s.warnings.join('\n')).toContain('skill "broken"');
    const listed = (await a.api.get(`/v1/sessions/${s.id}/skills`)).body.items;
    expect(listed.map((k: { name: string; source: string; used: boolean }) => [k.name, k.source, k.used])).toEqual([
      ['deploy', 'operator', false],
      ['lint', 'workspace', false],
    ]);
    expect(listed[0].allowed_tools).toEqual(['WebFetch', 'mcp__ci__*']);
    const tool = (await a.api.get(`/v1/sessions/${s.id}/tools`)).body.find((x: { name: string }) => x.name === 'Skill');
    expect(tool.description).toContain('- deploy: Ship a release to staging');
    expect(tool.description).toContain('- lint: Lint the code base');
    expect(tool.description).not.toContain('Run the deploy checklist');

    // Before use the operator's skill folder is out of reach.
    const outside = await run(a, s.id, [{ name: 'Read', input: { file_path: path.join(skills, 'deploy', 'checklist.md') } }]);
    expect(outside.results[0].is_error).toBe(true);

    const used = await run(a, s.id, [{ name: 'Skill', input: { skill: 'deploy', args: 'to staging' } }]);
    expect(used.results[0].is_error).toBe(false);
    expect(textOf(used.results[0])).toContain('Run the deploy checklist.');
    expect(textOf(used.results[0])).toContain('Arguments: to staging');
    const after = (await a.api.get(`/v1/sessions/${s.id}`)).body;
    expect(after.used_skills).toEqual(['deploy']);
    expect(after.unlocked_tools).toEqual(['WebFetch', 'mcp__ci__*']);

    // Now Read, Glob and Grep reach its folder; nothing can be written there, directly or through a link.
    await fs.symlink(path.join(skills, 'deploy'), path.join(ws, 'deploy-link'));
    const reads = await run(a, s.id, [
      { name: 'Read', input: { file_path: path.join(skills, 'deploy', 'checklist.md') } },
      { name: 'Grep', input: { pattern: 'push', path: path.join(skills, 'deploy') } },
      { name: 'Write', input: { file_path: path.join(skills, 'deploy', 'checklist.md'), content: 'overwritten' } },
      { name: 'Write', input: { file_path: 'deploy-link/new.md', content: 'x' } },
      { name: 'Write', input: { file_path: 'deploy-link/sub/new.md', content: 'x' } },
    ]);
    expect(textOf(reads.results[0])).toContain('2. push');
    expect(textOf(reads.results[1])).toContain('checklist.md');
    expect(reads.results.slice(2).map((r: { is_error: boolean }) => r.is_error)).toEqual([true, true, true]);
    expect(textOf(reads.results[2])).toContain('read-only');
    expect(await fs.readFile(path.join(skills, 'deploy', 'checklist.md'), 'utf8')).toBe('1. tag\n2. push\n');
    await expect(fs.access(path.join(skills, 'deploy', 'new.md'))).rejects.toThrow();
    await expect(fs.access(path.join(skills, 'deploy', 'sub'))).rejects.toThrow();

    // A rule on the skill's name decides; an unknown name is an error naming the ones there are.
    await a.api.patch(`/v1/sessions/${s.id}`, { add_rules: [{ rule: 'Skill(lint)', behavior: 'deny' }] });
    const denied = await run(a, s.id, [
      { name: 'Skill', input: { skill: 'lint' } },
      { name: 'Skill', input: { skill: 'nope' } },
    ]);
    expect(textOf(denied.results[0])).toContain('denied by rule "Skill(lint)"');
    expect(textOf(denied.results[1])).toContain('deploy');

    await a.close();
    const b = await boot({ NORMA_SKILLS_DIR: skills }, dataDir);
    expect((await b.api.get(`/v1/sessions/${s.id}/skills`)).body.items.find((k: { name: string }) => k.name === 'deploy').used).toBe(true);
    const again = await run(b, s.id, [{ name: 'Read', input: { file_path: path.join(skills, 'deploy', 'checklist.md') } }]);
    expect(again.results[0].is_error).toBe(false);
  });
});

describe('instruction files', () => {
  it('AGENTS.md and CLAUDE.md at the workspace root join the system prompt, listed with digests, read again each prompt turn', async () => {
    const f = await new FakeServer().start();
    fakes.push(f);
    const dataDir = await tempDir('norma-instr-');
    const ws = path.join(dataDir, 'workspaces', 'proj');
    await fs.mkdir(ws, { recursive: true });
    await fs.writeFile(path.join(ws, 'AGENTS.md'), 'Always run the tests.\n');
    await fs.writeFile(path.join(ws, 'CLAUDE.md'), 'Prefer small commits.\n');
    // A link out of the workspace is not read.
    const secret = path.join(await tempDir('norma-instr-out-'), 'secret.md');
    await fs.writeFile(secret, 'SECRET OUTSIDE');
    await fs.symlink(secret, path.join(ws, 'NORMA.md'));

    const t = await boot({ NORMA_EGRESS_ALLOW: '127.0.0.1' }, dataDir);
    const s = (
      await t.api.post('/v1/sessions', {
        workspace: 'proj',
        model: { provider: 'anthropic', model: 'claude-test', base_url: f.origin, api_key: 'k-123456' },
        system_prompt: 'You are terse.',
      })
    ).body;
    const digest = (x: string) => createHash('sha256').update(x).digest('hex');
    expect(s.instructions).toEqual([
      { file: 'AGENTS.md', bytes: 22, sha256: digest('Always run the tests.\n') },
      { file: 'CLAUDE.md', bytes: 22, sha256: digest('Prefer small commits.\n') },
    ]);
    expect(s.warnings.join('\n')).toContain('instruction file NORMA.md was not loaded');

    f.always(sse(fixture('anthropic/text.sse')));
    expect((await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { prompt: 'hi' })).body.status).toBe('completed');
    const system = JSON.parse(f.received.at(-1)!.body).system as string;
    expect(system.startsWith('You are terse.')).toBe(true);
    expect(system).toContain('Instructions from AGENTS.md at the workspace root:\n\nAlways run the tests.');
    expect(system).toContain('Prefer small commits.');
    expect(system).not.toContain('SECRET OUTSIDE');

    await fs.writeFile(path.join(ws, 'AGENTS.md'), 'Never push on Fridays.\n');
    await t.api.post(`/v1/sessions/${s.id}/turns?wait=20`, { prompt: 'again' });
    expect(JSON.parse(f.received.at(-1)!.body).system).toContain('Never push on Fridays.');
    expect((await t.api.get(`/v1/sessions/${s.id}`)).body.instructions[0]).toEqual({ file: 'AGENTS.md', bytes: 23, sha256: digest('Never push on Fridays.\n') });
  });
});
