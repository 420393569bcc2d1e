// A stdio MCP server runs with secrets the session cannot see (its `env`) and, with `network`,
// with network the session may lack; the workspace is where the model writes, with no ask in
// `acceptEdits`. So nothing of the server may be found in the workspace: it starts in a home of its
// own (never the workspace, so `python3 -m pkg`, `node -e "require('x')"`, `npx`, dotenv and the
// like find nothing there), its command is absolute or found on PATH's absolute directories only,
// and no variable may point an interpreter or the loader at the workspaces (PYTHONPATH, NODE_PATH,
// NODE_OPTIONS --require, PERL5LIB, RUBYLIB, LD_PRELOAD, npm_config_*, …). `workspace_code: true`
// is the one way to have the old behaviour, said for that server.
import fs from 'node:fs';
import path from 'node:path';
import type { McpServerConfig } from '../contract/mcp.js';
import type { SpawnRequest } from '../sandbox/session-sandbox.js';

type Stdio = Extract<McpServerConfig, { command: string }>;

/** The variable that tells a server where the session's workspace is (when it is mounted). */
export const WORKSPACE_VARIABLE = 'NORMA_WORKSPACE';
/** An argument's stand-in for the workspace's path. */
export const WORKSPACE_PLACEHOLDER = '${NORMA_WORKSPACE}';

const within = (p: string, dir: string) => p === dir || p.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep);

/** The real path of `p`, or of its nearest existing ancestor with the rest appended (a path made later still resolves). */
function realish(p: string): string {
  let head = path.resolve(p);
  const rest: string[] = [];
  for (;;) {
    try {
      return path.join(fs.realpathSync(head), ...rest.reverse());
    } catch {
      const up = path.dirname(head);
      if (up === head) return path.resolve(p);
      rest.push(path.basename(head));
      head = up;
    }
  }
}

/** The directories to keep a server's code out of, as given and as real paths. */
export function guardedDirs(dirs: readonly string[]): string[] {
  return [...new Set(dirs.flatMap((d) => [path.resolve(d), realish(d)]))];
}

/** Paths of a value whose links are followed (beyond, only their text counts): configurations name a few. */
const REAL_PATHS_CHECKED = 64;

/**
 * Whether a variable's value names a path in one of `dirs`: any absolute path in it — alone, in a
 * list (`:`, `;`, `,`, spaces), after `=` (`--require=/x`), behind a one-letter option (`-I/x`), or
 * in a file URL — and any mention of such a directory.
 */
export function namesPathIn(value: string, dirs: readonly string[]): boolean {
  if (dirs.some((d) => value.includes(d + path.sep) || value.endsWith(d))) return true;
  const paths = new Set<string>();
  for (const token of value.split(/[\s:;,="']+/)) {
    const p = token.startsWith('/') ? token : /^-[A-Za-z]\//.test(token) ? token.slice(2) : null;
    if (p !== null) paths.add(path.resolve(p));
  }
  const follow = paths.size <= REAL_PATHS_CHECKED;
  for (const p of paths) if (dirs.some((d) => within(p, d) || (follow && within(realish(p), d)))) return true;
  return false;
}

/**
 * Problems of a stdio server's configuration with respect to the workspace: each named, never
 * quoting a variable's value (values are secrets). `workspaces` is NORMA_WORKSPACE_ROOT, where
 * every session's workspace lies.
 */
export function checkWorkspaceIsolation(at: string, c: Stdio, workspaces: string): string[] {
  const problems: string[] = [];
  const mount = c.workspace ?? 'read-write';
  if (c.env && WORKSPACE_VARIABLE in c.env) problems.push(`${at}.env.${WORKSPACE_VARIABLE}: set by the server itself (the workspace's path); it cannot be given`);
  if (mount === 'none') {
    if (c.workspace_code) problems.push(`${at}.workspace_code: the server runs in the workspace, which workspace: "none" leaves out`);
    if ((c.args ?? []).some((a) => a.includes(WORKSPACE_PLACEHOLDER))) problems.push(`${at}.args: ${WORKSPACE_PLACEHOLDER} names the workspace, which workspace: "none" leaves out`);
  }
  if (c.workspace_code) return problems;
  if (c.env?.PATH !== undefined && !c.env.PATH.split(':').some((e) => path.isAbsolute(e))) {
    problems.push(`${at}.env.PATH: has no absolute directory (relative entries are dropped: a program is never looked up in the working directory)`);
  }
  const dirs = guardedDirs([workspaces]);
  const optIn = 'the server may not load programs, modules or configuration from the workspace unless its configuration says workspace_code: true';
  if (path.isAbsolute(c.command) && dirs.some((d) => within(realish(c.command), d))) problems.push(`${at}.command: ${c.command} is in the workspaces (${workspaces}); ${optIn}`);
  for (const [name, value] of Object.entries(c.env ?? {})) {
    if (namesPathIn(value, dirs)) problems.push(`${at}.env.${name}: names a path in the workspaces (${workspaces}); ${optIn}`);
  }
  return problems;
}

export class WorkspaceCodeRefused extends Error {}

/**
 * How one server is started in a session whose workspace is `workspace`: its argv (the workspace
 * placeholder filled in), its environment (PATH without relative entries, NORMA_WORKSPACE) and its
 * place. What was checked when the server was configured is checked again against this workspace:
 * a server kept from an earlier configuration cannot slip through.
 */
export function stdioLaunch(server: string, c: Stdio, workspace: string): Pick<SpawnRequest, 'argv' | 'env' | 'readOnly' | 'own'> {
  const mount = c.workspace ?? 'read-write';
  const trusted = c.workspace_code === true;
  if (!trusted) {
    const dirs = guardedDirs([workspace]);
    if (path.isAbsolute(c.command) ? dirs.some((d) => within(realish(c.command), d)) : c.command.includes('/')) {
      const where = path.isAbsolute(c.command) ? 'is in the workspace' : 'is a relative path';
      throw new WorkspaceCodeRefused(`its command ${c.command} ${where}, and its configuration does not say workspace_code: true`);
    }
    const named = Object.entries(c.env ?? {}).find(([, v]) => namesPathIn(v, dirs));
    if (named) throw new WorkspaceCodeRefused(`its variable ${named[0]} names a path in the workspace, and its configuration does not say workspace_code: true`);
  }
  const env: Record<string, string> = { ...(c.env ?? {}) };
  // An empty or relative PATH entry is the working directory, wherever that is: never searched.
  if (env.PATH !== undefined && !trusted) env.PATH = env.PATH.split(':').filter((e) => path.isAbsolute(e)).join(':');
  if (env.PATH === '') throw new WorkspaceCodeRefused('its PATH has no absolute directory');
  if (mount !== 'none') env[WORKSPACE_VARIABLE] = workspace;
  const args = (c.args ?? []).map((a) => (mount === 'none' ? a : a.replaceAll(WORKSPACE_PLACEHOLDER, workspace)));
  return {
    argv: [c.command, ...args],
    env,
    readOnly: mount === 'read-only',
    own: { name: `mcp-${server}`, cwd: trusted ? 'workspace' : 'home', mountWorkspace: mount !== 'none' },
  };
}
