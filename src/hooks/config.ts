// Per-session hooks (`hooks` on session creation): checked all at once, every problem named by
// its place (`hooks.PreToolUse[0].hooks[1].command: …`), then compiled into registrations that
// run after the operator's own hooks.
import fs from 'node:fs';
import path from 'node:path';
import type { HookEventName } from '../contract/schemas.js';
import { parseRule, type ParsedRule } from '../permission/rules.js';
import { analyzeCommand } from '../permission/shell.js';
import type { SandboxMode } from '../sandbox/process.js';
import type { SessionSandbox } from '../sandbox/session-sandbox.js';
import type { EgressPolicy } from '../sandbox/egress.js';
import { commandHook } from './command.js';
import { httpHook, type HookEvidenceSink } from './http.js';
import type { Redactor } from '../redact.js';
export type { HookEvidenceSink };
import { compileMatcher, DEFAULT_HOOK_TIMEOUT_MS, type HookRegistration, type SessionHooks } from './registry.js';

/** Events whose hooks see a tool call (matchers and `if` apply to them). */
export const TOOL_EVENTS: ReadonlySet<HookEventName> = new Set(['PreToolUse', 'PostToolUse', 'PostToolUseFailure']);

/** Directories on the sandbox's PATH, and builtins bash runs without a program. */
const SANDBOX_PATH = ['/usr/local/bin', '/usr/bin', '/bin', '/usr/local/sbin', '/usr/sbin', '/sbin'];
const BUILTINS = new Set(['echo', 'printf', 'exit', 'true', 'false', 'test', '[', ':', 'read', 'cd', 'set', 'if', 'for', 'while', 'case']);

function commandProblem(command: string): string | null {
  const a = analyzeCommand(command);
  if (!a.ok || a.commands.length === 0) return null; // a script the analyser cannot follow is still a valid script
  const first = a.commands[0]!;
  const program = first.argv[0];
  if (program === undefined || first.dynamic[0]) return null;
  if (BUILTINS.has(program)) return null;
  if (program.startsWith('/')) {
    try {
      fs.accessSync(program, fs.constants.X_OK);
      return null;
    } catch {
      return `command not found: ${program} does not exist or is not executable`;
    }
  }
  if (program.includes('/')) return null; // relative to the workspace: checked when it runs
  return SANDBOX_PATH.some((d) => fs.existsSync(path.join(d, program))) ? null : `command not found: ${program} (looked in ${SANDBOX_PATH.join(':')})`;
}

/** What can be told about a hook URL without sending anything (its address is checked at each call). */
function urlProblem(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `${JSON.stringify(raw)} is not a URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `${url.protocol} URLs are not allowed (only http and https)`;
  if (url.username !== '' || url.password !== '') return 'URLs with credentials (user:password@) are not allowed';
  return null;
}

export interface CompiledSessionHooks {
  registrations: HookRegistration[];
  problems: string[];
  events: HookEventName[];
}

/**
 * Checks and compiles a session's hooks. Before the session exists (validation) there is no
 * sandbox to run command hooks in: the registrations are then compiled again once there is.
 */
export function compileSessionHooks(
  hooks: SessionHooks | undefined,
  /** `session`: where command hooks start their processes (absent while only checking). */
  sandbox: { mode: SandboxMode; usable: boolean; detail: string; session?: SessionSandbox },
  egress: EgressPolicy,
  /** How places are named: `hooks` for a session's, `NORMA_HOOKS_FILE` for the operator's. */
  prefix = 'hooks',
  /** Where http hooks' outbound requests are recorded as evidence. */
  evidence?: HookEvidenceSink,
  /** The session's secrets: out of what http hooks answer (each hook's own secret is added). */
  redactor?: Redactor,
): CompiledSessionHooks {
  const registrations: HookRegistration[] = [];
  const problems: string[] = [];
  const events = new Set<HookEventName>();
  for (const [event, groups] of Object.entries(hooks ?? {}) as [HookEventName, NonNullable<SessionHooks[HookEventName]>][]) {
    groups.forEach((group, gi) => {
      const where = `${prefix}.${event}[${gi}]`;
      let matcherOk = true;
      if (group.matcher !== undefined && group.matcher !== '' && group.matcher !== '*') {
        if (!TOOL_EVENTS.has(event)) {
          problems.push(`${where}.matcher: ${event} hooks see no tool call; a matcher applies to PreToolUse, PostToolUse and PostToolUseFailure only`);
          matcherOk = false;
        } else {
          try {
            compileMatcher(group.matcher);
          } catch (err) {
            problems.push(`${where}.matcher: invalid regular expression ${JSON.stringify(group.matcher)}: ${(err as Error).message}`);
            matcherOk = false;
          }
        }
      }
      let rule: ParsedRule | undefined;
      if (group.if !== undefined) {
        const parsed = parseRule(group.if);
        if (!TOOL_EVENTS.has(event)) problems.push(`${where}.if: ${event} hooks see no tool call; "if" applies to tool events only`);
        else if (!parsed.ok) problems.push(`${where}.if: invalid rule ${JSON.stringify(group.if)}: ${parsed.error}`);
        else rule = parsed.rule;
      }
      group.hooks.forEach((hook, hi) => {
        const at = `${where}.hooks[${hi}]`;
        const timeoutMs = (hook.timeout_s ?? DEFAULT_HOOK_TIMEOUT_MS / 1000) * 1000;
        let problem: string | null;
        let kind: 'command' | 'http';
        let callback;
        if (hook.type === 'http') {
          problem = urlProblem(hook.url);
          if (problem) problem = `${at}.url: ${problem}`;
          kind = 'http';
          callback = () => httpHook(hook.url, hook.secret, egress, timeoutMs, evidence ? (e, input) => evidence(e, input, at) : undefined, redactor);
        } else {
          problem = !sandbox.usable && sandbox.mode === 'bwrap' ? `${at}: command hooks run in the process sandbox, which is unusable (${sandbox.detail})` : null;
          const missing = problem ? null : commandProblem(hook.command);
          if (missing) problem = `${at}.command: ${missing}`;
          kind = 'command';
          callback = () => commandHook(hook.command, sandbox.session, hook.network ?? false);
        }
        if (problem) {
          problems.push(problem);
          return;
        }
        if (!matcherOk) return;
        events.add(event);
        registrations.push({
          event,
          ...(group.matcher !== undefined ? { matcher: group.matcher } : {}),
          ...(rule ? { if: rule } : {}),
          name: at,
          kind,
          timeoutMs,
          ...(hook.on_failure === 'continue' ? { failOpen: true } : {}),
          callback: callback(),
        });
      });
    });
  }
  return { registrations, problems, events: [...events] };
}
