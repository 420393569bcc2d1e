// The rules that keep a stdio MCP server's code out of the workspace: which variable values name
// the workspaces, what a configuration is refused for, and how a server is launched.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkWorkspaceIsolation, guardedDirs, namesPathIn, stdioLaunch, WorkspaceCodeRefused } from '../../src/mcp/isolation.js';

const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'norma-isolation-')));
const workspaces = path.join(tmp, 'workspaces');
const ws = path.join(workspaces, 'ses_a');
fs.mkdirSync(ws, { recursive: true });
// A link outside the workspaces that leads into them.
fs.symlinkSync(ws, path.join(tmp, 'link'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const dirs = guardedDirs([workspaces]);

describe('namesPathIn', () => {
  it.each([
    ['a path list', `/usr/lib/python3:${ws}/lib`],
    ['the directory itself', workspaces],
    ['an option with =', `--require=${ws}/x.js`],
    ['a one-letter option', `-I${ws}/lib -Mevil`],
    ['a file URL', `file://${ws}/.npmrc`],
    ['a path through ..', `/usr/../${path.relative('/', ws)}/x`],
    ['a link into the workspaces', `${tmp}/link/node_modules`],
    ['a path not made yet behind a link', `${tmp}/link/not/yet`],
    ['space-separated (LD_PRELOAD)', `/usr/lib/a.so ${ws}/b.so`],
  ])('finds the workspaces in %s', (_, value) => {
    expect(namesPathIn(value, dirs)).toBe(true);
  });

  it.each([
    ['a secret', 'sk-abc/def:ghi'],
    ['system paths', '/usr/lib/python3/dist-packages:/opt/lib'],
    ['a neighbour with the same prefix', `${workspaces}-old/lib`],
    ['a relative path', 'lib/python'],
    ['a URL', 'https://example.com/workspaces/x'],
  ])('leaves %s alone', (_, value) => {
    expect(namesPathIn(value, dirs)).toBe(false);
  });
});

describe('checkWorkspaceIsolation', () => {
  const at = 'mcp_servers.x';
  it('names each variable and the command, never a value, and says how to opt in', () => {
    const problems = checkWorkspaceIsolation(at, { command: path.join(ws, 'server'), env: { PYTHONPATH: `${ws}/lib`, TOKEN: 'secret-value', NORMA_WORKSPACE: '/x' } }, workspaces);
    expect(problems).toEqual([
      `${at}.env.NORMA_WORKSPACE: set by the server itself (the workspace's path); it cannot be given`,
      `${at}.command: ${ws}/server is in the workspaces (${workspaces}); the server may not load programs, modules or configuration from the workspace unless its configuration says workspace_code: true`,
      `${at}.env.PYTHONPATH: names a path in the workspaces (${workspaces}); the server may not load programs, modules or configuration from the workspace unless its configuration says workspace_code: true`,
    ]);
    expect(problems.join('\n')).not.toContain('secret-value');
  });

  it('takes what workspace_code allows, but not a PATH with no absolute directory or a workspace it does not mount', () => {
    expect(checkWorkspaceIsolation(at, { command: 'x', env: { PYTHONPATH: ws, PATH: `bin:${ws}/bin:/usr/bin` }, workspace_code: true }, workspaces)).toEqual([]);
    expect(checkWorkspaceIsolation(at, { command: 'x', env: { PATH: 'bin:node_modules/.bin' } }, workspaces)).toEqual([
      `${at}.env.PATH: has no absolute directory (relative entries are dropped: a program is never looked up in the working directory)`,
    ]);
    expect(checkWorkspaceIsolation(at, { command: 'x', args: ['${NORMA_WORKSPACE}'], workspace: 'none', workspace_code: true }, workspaces)).toHaveLength(2);
  });
});

describe('stdioLaunch', () => {
  it('starts a server in its own home, drops relative PATH entries and fills in the workspace', () => {
    const launch = stdioLaunch('docs', { command: 'node', args: ['server.js', '--root=${NORMA_WORKSPACE}'], env: { PATH: `:.:bin:/opt/bin:/usr/bin`, TOKEN: 't' } }, ws);
    expect(launch).toEqual({
      argv: ['node', 'server.js', `--root=${ws}`],
      env: { PATH: '/opt/bin:/usr/bin', TOKEN: 't', NORMA_WORKSPACE: ws },
      readOnly: false,
      own: { name: 'mcp-docs', cwd: 'home', mountWorkspace: true },
    });
  });

  it('mounts the workspace as told, and runs in it only with workspace_code', () => {
    expect(stdioLaunch('a', { command: 'x', workspace: 'read-only' }, ws)).toMatchObject({ readOnly: true, own: { cwd: 'home', mountWorkspace: true } });
    const none = stdioLaunch('a', { command: 'x', args: ['${NORMA_WORKSPACE}'], workspace: 'none' }, ws);
    expect(none).toMatchObject({ argv: ['x', '${NORMA_WORKSPACE}'], env: {}, own: { mountWorkspace: false } });
    const trusted = stdioLaunch('a', { command: './server.js', env: { PATH: 'bin:/usr/bin', PYTHONPATH: ws }, workspace_code: true }, ws);
    expect(trusted).toMatchObject({ argv: ['./server.js'], env: { PATH: 'bin:/usr/bin' }, own: { cwd: 'workspace' } });
  });

  it('refuses, at start, what a configuration could not have named (a record kept from before)', () => {
    expect(() => stdioLaunch('a', { command: path.join(ws, 'server') }, ws)).toThrow(WorkspaceCodeRefused);
    expect(() => stdioLaunch('a', { command: 'bin/server' }, ws)).toThrow(/its command bin\/server is a relative path/);
    expect(() => stdioLaunch('a', { command: 'x', env: { NODE_OPTIONS: `--require ${ws}/x.js` } }, ws)).toThrow(/its variable NODE_OPTIONS names a path in the workspace/);
    expect(() => stdioLaunch('a', { command: 'x', env: { PATH: 'bin' } }, ws)).toThrow(/its PATH has no absolute directory/);
  });
});
