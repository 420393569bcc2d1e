// The server's Prometheus metrics (GET /metrics): one prom-client Registry per server instance —
// never prom-client's global one, so servers in one process (tests) count apart. Turn, tool,
// permission, question and egress counts are derived from the event log (every domain event
// passes through it once it committed); HTTP latency comes from the HTTP edge, store latency
// from a timer around the store, and the model's outbound requests from their transport.
// Every label value is one the server defines, from a set it bounds: no session ids, MCP server
// names or raw URLs — nothing a tenant chooses becomes a label (model-metrics.ts: the operator's
// tenant names and priced model names, each bounded).
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry, type Metric } from 'prom-client';
import type { NormaEvent } from '../contract/events.js';
import { ModelMetrics, type ModelCallSample } from './model-metrics.js';

export const METRIC_PREFIX = 'norma_';

/** Where an outbound request came from, as the code distinguishes them. */
export type EgressKind = 'web' | 'hook' | 'mcp' | 'sandbox_proxy' | 'model';
export type EgressOutcome = 'allowed' | 'refused' | 'error';

/**
 * The tool label of every MCP server's tool. Server names are chosen by the sessions' clients
 * (every tenant's): as labels they would show one tenant's names to whoever reads the metrics,
 * and their number would be the tenants' to grow.
 */
export const MCP_TOOL_LABEL = 'mcp';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

let processRegistry: Registry | undefined;

/**
 * Process metrics (CPU, memory, event-loop delay, GC, handles) are the process's, not a server's:
 * collected once per process (collectDefaultMetrics starts an event-loop monitor and a GC
 * observer that are never stopped) and registered into every server's registry.
 */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry, prefix: METRIC_PREFIX });
  }
  return processRegistry;
}

export interface MetricSources {
  /** Event streams (SSE) open now. */
  openStreams(): number;
  /** Permission requests, questions and client-tool requests that wait for an answer now. */
  pending(): { permission: number; question: number; client_tool: number };
}

export class ServerMetrics {
  readonly registry = new Registry();
  readonly httpDuration: Histogram<'method' | 'route' | 'status_code'>;
  readonly turns: Counter<'kind' | 'status'>;
  readonly turnDuration: Histogram<'kind'>;
  readonly toolCalls: Counter<'tool' | 'outcome'>;
  readonly toolDuration: Histogram<'tool'>;
  readonly permissionWait: Histogram<'outcome' | 'resolved_by'>;
  readonly questionWait: Histogram<'outcome' | 'resolved_by'>;
  readonly egress: Counter<'kind' | 'outcome'>;
  readonly storeDuration: Histogram<'operation'>;
  private readonly models: ModelMetrics;
  private sources: MetricSources | undefined;
  /** Running calls by turn (`session/turn`), then tool_use id: when tool.started was seen. */
  private readonly started = new Map<string, Map<string, number>>();

  /** `builtInTools`: the names the catalog has, kept as labels; any other non-MCP name is `other`. */
  constructor(private readonly builtInTools: ReadonlySet<string>) {
    const registers = [this.registry];
    const p = METRIC_PREFIX;
    this.httpDuration = new Histogram({
      name: `${p}http_request_duration_seconds`,
      help: 'HTTP requests by method, route template (`unmatched` when no route matched) and status code',
      labelNames: ['method', 'route', 'status_code'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers,
    });
    this.turns = new Counter({
      name: `${p}turns_total`,
      help: 'Turns that reached a final status, by kind (direct, prompt) and status (completed, failed, cancelled, interrupted)',
      labelNames: ['kind', 'status'],
      registers,
    });
    this.turnDuration = new Histogram({
      name: `${p}turn_duration_seconds`,
      help: 'From a turn\'s creation to its final status (pauses for people included), by kind',
      labelNames: ['kind'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600],
      registers,
    });
    this.toolCalls = new Counter({
      name: `${p}tool_calls_total`,
      help:
        'Tool calls that got their result, by tool (a built-in name, mcp for any MCP server\'s tool, or other) and outcome ' +
        '(ok, error, denied, invalid_input, unknown_tool, cancelled, interrupted)',
      labelNames: ['tool', 'outcome'],
      registers,
    });
    this.toolDuration = new Histogram({
      name: `${p}tool_call_duration_seconds`,
      help: 'From a call\'s start (after permission and PreToolUse hooks) to its result, by tool',
      labelNames: ['tool'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120, 600],
      registers,
    });
    const waitBuckets = [0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600, 21600, 86400];
    this.permissionWait = new Histogram({
      name: `${p}permission_wait_seconds`,
      help: 'From a permission request\'s creation to its resolution, by outcome (allowed, denied, timeout, cancelled) and what resolved it (client, rule, timeout, cancel, session_closed)',
      labelNames: ['outcome', 'resolved_by'],
      buckets: waitBuckets,
      registers,
    });
    this.questionWait = new Histogram({
      name: `${p}question_wait_seconds`,
      help: 'From a question\'s creation to its resolution, by outcome (answered, dismissed, timeout, cancelled) and what resolved it (client, timeout, cancel, session_closed)',
      labelNames: ['outcome', 'resolved_by'],
      buckets: waitBuckets,
      registers,
    });
    this.egress = new Counter({
      name: `${p}egress_requests_total`,
      help: 'Outbound requests (one per hop, tunnel or model attempt) by kind (web, hook, mcp, sandbox_proxy, model) and outcome (allowed, refused by the egress guard, error)',
      labelNames: ['kind', 'outcome'],
      registers,
    });
    this.storeDuration = new Histogram({
      name: `${p}store_operation_duration_seconds`,
      help: 'The store\'s main reads and writes, and whole transactions, by operation',
      labelNames: ['operation'],
      buckets: [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5],
      registers,
    });
    this.models = new ModelMetrics(this.registry, p);
    const sources = () => this.sources;
    new Gauge({
      name: `${p}sse_subscribers`,
      help: 'Event streams (Server-Sent Events) open now',
      registers,
      collect() {
        this.set(sources()?.openStreams() ?? 0);
      },
    });
    new Gauge({
      name: `${p}pending_interactions`,
      help: 'Permission requests, questions and client-tool requests waiting for an answer now, by kind',
      labelNames: ['kind'],
      registers,
      collect() {
        const p = sources()?.pending() ?? { permission: 0, question: 0, client_tool: 0 };
        this.set({ kind: 'permission' }, p.permission);
        this.set({ kind: 'question' }, p.question);
        this.set({ kind: 'client_tool' }, p.client_tool);
      },
    });
    for (const m of processMetrics().getMetricsAsArray()) this.registry.registerMetric(m as unknown as Metric);
  }

  /** What the gauges read when scraped (the event log, the broker), once they exist. */
  track(sources: MetricSources): void {
    this.sources = sources;
  }

  /** The exposition (text format 0.0.4) and its content type. */
  async expose(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }

  /** One HTTP request answered. */
  request(method: string, route: string | undefined, status: number, seconds: number): void {
    this.httpDuration.observe({ method: METHODS.has(method) ? method : 'other', route: route ?? 'unmatched', status_code: String(status) }, seconds);
  }

  /** A model call's usage and cost (model-metrics.ts bounds its labels). */
  readonly modelCall = (call: ModelCallSample): void => this.models.observe(call);

  /** A model request's attempt (the others are counted from their `egress.request` events). */
  modelEgress(outcome: EgressOutcome): void {
    this.egress.inc({ kind: 'model', outcome });
  }

  /** Counts what a committed event says happened (EventLog.observe). */
  readonly observeEvent = (event: NormaEvent): void => {
    switch (event.type) {
      case 'tool.started': {
        const key = `${event.session_id}/${event.turn_id}`;
        let calls = this.started.get(key);
        if (!calls) this.started.set(key, (calls = new Map()));
        calls.set(event.tool_use_id, performance.now());
        return;
      }
      case 'tool.completed': {
        const tool = this.toolLabel(event.tool);
        const calls = this.started.get(`${event.session_id}/${event.turn_id}`);
        const at = calls?.get(event.tool_use_id);
        if (at !== undefined) {
          calls!.delete(event.tool_use_id);
          this.toolDuration.observe({ tool }, (performance.now() - at) / 1000);
        }
        this.toolCalls.inc({ tool, outcome: toolOutcome(event.result, at !== undefined) });
        return;
      }
      case 'turn.completed':
      case 'turn.failed':
      case 'turn.cancelled':
      case 'turn.interrupted': {
        const t = event.turn;
        this.started.delete(`${event.session_id}/${t.id}`);
        this.turns.inc({ kind: t.kind, status: t.status });
        const seconds = secondsBetween(t.created_at, t.ended_at);
        if (seconds !== null) this.turnDuration.observe({ kind: t.kind }, seconds);
        return;
      }
      case 'permission.resolved': {
        const r = event.permission;
        const seconds = secondsBetween(r.created_at, r.resolved_at);
        if (seconds !== null) this.permissionWait.observe({ outcome: r.resolved_by === 'timeout' ? 'timeout' : r.status, resolved_by: r.resolved_by ?? 'unknown' }, seconds);
        return;
      }
      case 'question.answered': {
        const q = event.question;
        const seconds = secondsBetween(q.created_at, q.resolved_at);
        if (seconds !== null) this.questionWait.observe({ outcome: q.status === 'timed_out' ? 'timeout' : q.status, resolved_by: q.resolved_by ?? 'unknown' }, seconds);
        return;
      }
      case 'egress.request':
        this.egress.inc({ kind: egressKind(event), outcome: egressOutcome(event) });
        return;
      default:
        return;
    }
  };

  /** A built-in tool's name, `mcp` for any MCP server's tool, or `other`: never a name a tenant chose. */
  toolLabel(name: string): string {
    if (this.builtInTools.has(name)) return name;
    return name.startsWith('mcp__') ? MCP_TOOL_LABEL : 'other';
  }
}

function secondsBetween(from: string, to: string | undefined): number | null {
  if (to === undefined) return null;
  const ms = Date.parse(to) - Date.parse(from);
  return Number.isFinite(ms) ? Math.max(0, ms) / 1000 : null;
}

type ToolCompleted = Extract<NormaEvent, { type: 'tool.completed' }>;
type EgressEvent = Extract<NormaEvent, { type: 'egress.request' }>;

/**
 * What became of a call, as the pipeline reports it in the result: its result is not an error
 * (`ok`); it never started and was refused by a rule, a person or a hook (`denied`), had an
 * invalid input or named an unknown tool; the turn's stop cancelled it, or the server stopped
 * under it (`interrupted`); anything else is an `error` of the tool.
 */
export function toolOutcome(result: ToolCompleted['result'], started: boolean): string {
  if (!result.is_error) return 'ok';
  const first = result.content[0];
  const text = first && first.type === 'text' ? first.text : '';
  if (text.startsWith('Cancelled: ')) return 'cancelled';
  if (text.startsWith('Interrupted: ') || text.startsWith('Not run: ')) return 'interrupted';
  if (!started) {
    if (text.startsWith('Permission denied') || text.startsWith('Blocked by PreToolUse hook') || text.startsWith('Stopped by PreToolUse hook')) return 'denied';
    if (text.startsWith('Invalid input for ')) return 'invalid_input';
    if (text.startsWith('Unknown tool ')) return 'unknown_tool';
  }
  return 'error';
}

export function egressKind(e: EgressEvent): EgressKind {
  if (e.hook !== undefined) return 'hook';
  if (e.via === 'sandbox_proxy') return 'sandbox_proxy';
  if (e.tool?.startsWith('mcp__')) return 'mcp';
  return 'web';
}

/** Refused before connecting (the guard named a rule), failed without an answer, or allowed. */
export function egressOutcome(e: EgressEvent): EgressOutcome {
  if (e.error !== undefined && e.address === '') return 'refused';
  if (e.error !== undefined || e.status === null) return 'error';
  return 'allowed';
}
