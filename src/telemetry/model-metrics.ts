// What model calls use and cost, by tenant and model. Both labels are bounded: a tenant's name is
// the operator's (NORMA_API_KEYS_FILE, never a client's), a model's is kept only when a price
// table knows it (else `other`: a session names its model freely), and past MAX_LABEL_VALUES
// distinct values of either, new ones count as `other`.
import { Counter, type Registry } from 'prom-client';

export const MAX_LABEL_VALUES = 100;

export interface ModelCallSample {
  tenant: string;
  model: string;
  /** The model has a price in a table (the operator's or the built-in one). */
  priced: boolean;
  usage: { input_tokens: number; output_tokens: number; cache_read_input_tokens?: number; cache_creation_input_tokens?: number };
  costUsd: number | null;
}

export class ModelMetrics {
  private readonly calls: Counter<'tenant' | 'model'>;
  private readonly tokens: Counter<'tenant' | 'model' | 'kind'>;
  private readonly cost: Counter<'tenant' | 'model'>;
  private readonly tenants = new Set<string>();
  private readonly models = new Set<string>();

  constructor(registry: Registry, prefix: string) {
    const registers = [registry];
    this.calls = new Counter({ name: `${prefix}model_calls_total`, help: 'Model calls, by tenant and model (`other`: a model without a known price, or past the label bound)', labelNames: ['tenant', 'model'], registers });
    this.tokens = new Counter({
      name: `${prefix}model_tokens_total`,
      help: 'Tokens of model calls by tenant, model and kind (input: uncached input; cache_read, cache_write; output)',
      labelNames: ['tenant', 'model', 'kind'],
      registers,
    });
    this.cost = new Counter({ name: `${prefix}model_cost_usd_total`, help: 'What priced model calls cost, in US dollars, by tenant and model', labelNames: ['tenant', 'model'], registers });
  }

  observe(call: ModelCallSample): void {
    const labels = { tenant: bounded(this.tenants, call.tenant), model: call.priced ? bounded(this.models, call.model) : 'other' };
    const u = call.usage;
    const read = u.cache_read_input_tokens ?? 0;
    const written = u.cache_creation_input_tokens ?? 0;
    this.calls.inc(labels);
    this.tokens.inc({ ...labels, kind: 'input' }, Math.max(0, u.input_tokens - read - written));
    if (read > 0) this.tokens.inc({ ...labels, kind: 'cache_read' }, read);
    if (written > 0) this.tokens.inc({ ...labels, kind: 'cache_write' }, written);
    this.tokens.inc({ ...labels, kind: 'output' }, u.output_tokens);
    if (call.costUsd !== null) this.cost.inc(labels, call.costUsd);
  }
}

function bounded(seen: Set<string>, value: string): string {
  if (seen.has(value)) return value;
  if (seen.size >= MAX_LABEL_VALUES) return 'other';
  seen.add(value);
  return value;
}
