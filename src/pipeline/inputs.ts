// What the stages learn about one call's inputs, each learnt once: a distinct input is validated
// once, and its rule subject and the tool's own check are computed once per evaluation round.
// After a pause for a person they are computed again: the files a subject resolves (realpaths)
// may have changed while the call waited, and a stale subject could dodge a deny rule.
import type { PermissionDecision } from '../permission/evaluate.js';
import { evaluatePermission } from '../permission/evaluate.js';
import { subjectPreview } from '../permission/preview.js';
import type { ParsedRule } from '../permission/rules.js';
import type { RuleSubject } from '../permission/subject.js';
import type { CoreTool, PreviewResult, ToolContext, ToolPermissionCheck } from '../tools/tool.js';
import { fail, inputDigest, type PermissionContext, type PipelineEnv, type ToolCall } from './types.js';

export class CallInputs {
  private readonly valid = new Map<string, unknown>();
  /** Digests by input object: an input (a Write's content can be megabytes) is hashed once, not per stage. */
  private readonly digests = new WeakMap<object, string>();
  private judged = new Map<string, { check: Promise<ToolPermissionCheck>; subject: () => Promise<RuleSubject> }>();

  constructor(
    private readonly call: ToolCall,
    private readonly tool: CoreTool,
    private readonly env: PipelineEnv,
    private readonly ctx: ToolContext,
  ) {}

  /** The input's canonical digest (inputs are not changed once made: a rewrite is a new object). */
  digest(input: unknown): string {
    if (typeof input !== 'object' || input === null) return inputDigest(input);
    let d = this.digests.get(input);
    if (d === undefined) {
      d = inputDigest(input);
      this.digests.set(input, d);
    }
    return d;
  }

  /** The validated input (a `Stop` with the problems when it is not valid, or could not be judged). */
  async validated(input: unknown, what: string): Promise<unknown> {
    const key = this.digest(input);
    if (this.valid.has(key)) return this.valid.get(key);
    const v = input === this.call.input && this.call.validation ? this.call.validation : await this.env.validator.check(this.tool, input, this.env.signal);
    if (!v.ok) throw fail(this.call, v.refusal ?? `Invalid ${what} for ${this.tool.name}: ${v.errors.join('; ')}. Fix the input and call again.`);
    this.valid.set(key, v.value);
    return v.value;
  }

  /** What rules with a specifier match this input against (paths, command, URL). */
  subject(input: unknown): Promise<RuleSubject> {
    return this.judge(input).subject();
  }

  /**
   * The permission stages over this input under the session's current rules and mode. The rule
   * subject (a file tool's realpaths) is computed only where a stage can use it: for a call that
   * changes something, or when some rule has a specifier to match it against. A read-only call
   * under rules of tool names alone is judged the same without it.
   */
  async evaluate(input: unknown): Promise<PermissionDecision> {
    const permission = this.env.permissionContext();
    const j = this.judge(input);
    const [check, subject] = await Promise.all([j.check, subjectMatters(this.tool, input, permission) ? j.subject() : undefined]);
    return evaluatePermission({ tool: this.tool, input, toolCheck: check, ...(subject ? { subject } : {}), root: this.ctx.workspace.root, ...permission });
  }

  /**
   * What the call would do, for the person asked (the tool's own preview, or the command line's
   * parts and the URL's destination); null when there is none. Never throws: a preview that
   * fails says so instead of holding up the ask.
   */
  async preview(input: unknown, reason: string): Promise<PreviewResult | null> {
    try {
      if (this.tool.preview) return await this.tool.preview(input, this.ctx);
      const subject = await this.subject(input);
      const i = (typeof input === 'object' && input !== null ? input : {}) as { command?: unknown; input?: unknown };
      const line = typeof i.command === 'string' ? i.command : typeof i.input === 'string' ? i.input : '';
      const preview = subjectPreview(this.tool.name, subject, this.env.permissionContext().rules, this.ctx.workspace.root, line, reason);
      return preview ? { preview } : null;
    } catch {
      return null;
    }
  }

  /** Time passed (a person was asked): subjects and checks are computed again from now on. */
  forget(): void {
    this.judged = new Map();
  }

  private judge(input: unknown): { check: Promise<ToolPermissionCheck>; subject: () => Promise<RuleSubject> } {
    const key = this.digest(input);
    let j = this.judged.get(key);
    if (!j) {
      let subject: Promise<RuleSubject> | undefined;
      j = { check: this.tool.checkPermissions(input, this.ctx), subject: () => (subject ??= this.tool.permissionSubject(input, this.ctx)) };
      // Awaited by evaluate; a rejection is not left unhandled in the meantime.
      j.check.catch(() => undefined);
      this.judged.set(key, j);
    }
    return j;
  }
}

/** Whether a stage of the evaluation can use the call's rule subject (see CallInputs.evaluate). */
export function subjectMatters(tool: CoreTool, input: unknown, permission: PermissionContext): boolean {
  if (!tool.isReadOnly(input)) return true;
  const specific = (rules: readonly ParsedRule[] | undefined) => rules !== undefined && rules.some((r) => r.specifier !== null);
  return specific(permission.policyDeny) || specific(permission.rules.deny) || specific(permission.rules.ask) || specific(permission.rules.allow);
}
