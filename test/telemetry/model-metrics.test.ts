// The model metrics' labels stay bounded whatever sessions name: a model is a label only when a
// price table knows it, and each label keeps at most MAX_LABEL_VALUES values, then `other`.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { MAX_LABEL_VALUES, ModelMetrics } from '../../src/telemetry/model-metrics.js';

describe('model metrics', () => {
  it('counts calls, tokens by kind and cost; bounds tenants and models', async () => {
    const registry = new Registry();
    const m = new ModelMetrics(registry, 'norma_');
    m.observe({ tenant: 'acme', model: 'claude-sonnet-4-5', priced: true, usage: { input_tokens: 100, output_tokens: 10, cache_read_input_tokens: 40, cache_creation_input_tokens: 10 }, costUsd: 0.5 });
    // A model no table knows never becomes a label; an unpriced call adds no cost.
    m.observe({ tenant: 'acme', model: 'made-up-by-a-session', priced: false, usage: { input_tokens: 1, output_tokens: 1 }, costUsd: null });
    for (let i = 0; i < MAX_LABEL_VALUES + 50; i++) m.observe({ tenant: `t${i}`, model: `gpt-4o-2024-${i}`, priced: true, usage: { input_tokens: 1, output_tokens: 1 }, costUsd: 0.001 });
    const text = await registry.metrics();
    expect(text).toContain('norma_model_tokens_total{tenant="acme",model="claude-sonnet-4-5",kind="input"} 50');
    expect(text).toContain('norma_model_tokens_total{tenant="acme",model="claude-sonnet-4-5",kind="cache_read"} 40');
    expect(text).toContain('norma_model_cost_usd_total{tenant="acme",model="claude-sonnet-4-5"} 0.5');
    expect(text).toContain('norma_model_calls_total{tenant="acme",model="other"} 1');
    expect(text).not.toContain('made-up-by-a-session');
    const tenants = new Set([...text.matchAll(/norma_model_calls_total\{tenant="([^"]+)"/g)].map((x) => x[1]));
    expect(tenants.size).toBe(MAX_LABEL_VALUES + 1); // the first 100 seen, and `other`
    expect(tenants.has('other')).toBe(true);
    const models = new Set([...text.matchAll(/norma_model_calls_total\{tenant="[^"]+",model="([^"]+)"/g)].map((x) => x[1]));
    expect(models.size).toBeLessThanOrEqual(MAX_LABEL_VALUES + 1);
  });
});
