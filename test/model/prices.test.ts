// Model prices and context windows: which ids a table key covers, the operator's file winning over
// the built-in table, what a call costs, and every way a NORMA_MODEL_PRICES file is refused.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.js';
import { callCost, contextWindow, loadPriceFile, priceTable, worstCaseCost, type ModelPrice } from '../../src/model/prices.js';

const SONNET: ModelPrice = { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 };

describe('priceTable built-in', () => {
  const table = priceTable();

  it.each([
    ['anthropic', 'claude-sonnet-4', 3],
    ['anthropic', 'claude-sonnet-4-20250514', 3],
    ['anthropic', 'claude-3-5-sonnet-latest', 3],
    ['anthropic', 'claude-opus-4-1@20250805', 15],
    ['anthropic', 'claude-opus-4-5-20251101', 5],
    ['anthropic', 'claude-3-haiku-20240307', 0.25],
    ['openai', 'gpt-4o-2024-08-06', 2.5],
    ['openai', 'gpt-4o-mini', 0.15],
    ['openai', 'gpt-4o-mini-2024-07-18', 0.15],
    ['openai', 'gpt-4.1-nano', 0.1],
    ['openai', 'o3-mini-2025-01-31', 1.1],
    ['openai', 'o3', 2],
  ] as const)('%s %s costs %s per million input', (provider, model, input) => {
    expect(table.lookup(provider, model)).toEqual({ price: expect.objectContaining({ input }), source: 'built-in' });
  });

  it('gives whole prices, with OpenAI cache writes at the input price', () => {
    expect(table.lookup('anthropic', 'claude-sonnet-4-5')?.price).toEqual(SONNET);
    expect(table.lookup('anthropic', 'claude-3-5-haiku')?.price).toEqual({ input: 0.8, output: 4, cache_read: 0.08, cache_write: 1 });
    expect(table.lookup('openai', 'gpt-5')?.price).toEqual({ input: 1.25, output: 10, cache_read: 0.125, cache_write: 1.25 });
    expect(table.lookup('openai', 'o1')?.price).toEqual({ input: 15, output: 60, cache_read: 7.5, cache_write: 15 });
  });

  it('resolves gpt-4o-mini to its own key, not gpt-4o', () => {
    expect(table.lookup('openai', 'gpt-4o-mini')?.price.output).toBe(0.6);
    expect(table.lookup('openai', 'gpt-4o')?.price.output).toBe(10);
  });

  it.each([
    ['openai', 'gpt-4o-audio-preview'],
    ['openai', 'my-gpt-4o'],
    ['openai', 'GPT-4o'],
    ['openai', 'gpt-4o-2024-08'],
    ['openai', 'gpt-4o-latest-20240101'],
    ['openai', 'claude-sonnet-4'],
    ['anthropic', 'claude-sonnet-4-5-foo'],
    ['anthropic', 'claude-sonnet-4-2025051'],
    ['anthropic', 'gpt-4o'],
    ['anthropic', ''],
    ['scripted', 'claude-sonnet-4'],
    ['scripted', 'gpt-4o'],
  ] as const)('%s %j is unknown', (provider, model) => {
    expect(table.lookup(provider, model)).toBeNull();
  });
});

describe('priceTable with operator entries', () => {
  const cheap: ModelPrice = { input: 0.01, output: 0.02, cache_read: 0.01, cache_write: 0.01 };
  const dear: ModelPrice = { input: 100, output: 200, cache_read: 100, cache_write: 100 };

  it('lets a bare operator key win over the built-in price, for both real providers', () => {
    const table = priceTable(new Map([['gpt-4o', cheap], ['claude-sonnet-4', dear]]));
    expect(table.lookup('openai', 'gpt-4o-2024-08-06')).toEqual({ price: cheap, source: 'operator' });
    expect(table.lookup('anthropic', 'claude-sonnet-4-20250514')).toEqual({ price: dear, source: 'operator' });
    expect(table.lookup('openai', 'gpt-4o-mini')).toEqual({ price: expect.objectContaining({ input: 0.15 }), source: 'built-in' });
  });

  it('prices a model the built-in table lacks', () => {
    const table = priceTable(new Map([['openai/llama3', cheap]]));
    expect(table.lookup('openai', 'llama3')).toEqual({ price: cheap, source: 'operator' });
    expect(table.lookup('openai', 'llama3-latest')).toEqual({ price: cheap, source: 'operator' });
    expect(table.lookup('anthropic', 'llama3')).toBeNull();
    expect(table.lookup('openai', 'llama3-8b')).toBeNull();
  });

  it('prices scripted models only under a scripted/ key', () => {
    const table = priceTable(new Map([['scripted/fake', cheap], ['other', dear]]));
    expect(table.lookup('scripted', 'fake')).toEqual({ price: cheap, source: 'operator' });
    expect(table.lookup('scripted', 'fake-20250101')).toEqual({ price: cheap, source: 'operator' });
    expect(table.lookup('scripted', 'other')).toBeNull();
    expect(table.lookup('openai', 'other')).toEqual({ price: dear, source: 'operator' });
    expect(table.lookup('openai', 'fake')).toBeNull();
  });

  it('prefers the provider-qualified key at equal length, and the longer name over either', () => {
    const table = priceTable(new Map([['gpt-4o', cheap], ['openai/gpt-4o', dear], ['gpt-4o-2024-08-06', SONNET]]));
    expect(table.lookup('openai', 'gpt-4o')?.price).toEqual(dear);
    expect(table.lookup('openai', 'gpt-4o-2024-05-13')?.price).toEqual(dear);
    expect(table.lookup('openai', 'gpt-4o-2024-08-06')?.price).toEqual(SONNET);
    expect(table.lookup('anthropic', 'gpt-4o')?.price).toEqual(cheap);
  });
});

describe('callCost and worstCaseCost', () => {
  it('prices input and output without cache fields', () => {
    // 1M × $3 + 0.5M × $15 = 3 + 7.5
    expect(callCost(SONNET, { input_tokens: 1_000_000, output_tokens: 500_000 })).toBe(10.5);
    // 1,234 × 3 / 1e6 + 567 × 15 / 1e6 = 0.003702 + 0.008505
    expect(callCost(SONNET, { input_tokens: 1234, output_tokens: 567 })).toBe(0.012207);
  });

  it('prices cache reads and writes at their own rates', () => {
    // 0.8M uncached × 3 + 0.2M read × 0.3 = 2.4 + 0.06
    expect(callCost(SONNET, { input_tokens: 1_000_000, output_tokens: 0, cache_read_input_tokens: 200_000 })).toBe(2.46);
    // 0.5M uncached × 3 + 0.2M read × 0.3 + 0.3M written × 3.75 + 0.01M out × 15 = 1.5 + 0.06 + 1.125 + 0.15
    expect(
      callCost(SONNET, { input_tokens: 1_000_000, output_tokens: 10_000, cache_read_input_tokens: 200_000, cache_creation_input_tokens: 300_000 }),
    ).toBe(2.835);
  });

  it('never counts negative uncached input', () => {
    // 100 read × 0.3 / 1e6, the 50 claimed input tokens are all cached
    expect(callCost(SONNET, { input_tokens: 50, output_tokens: 0, cache_read_input_tokens: 100 })).toBe(0.00003);
  });

  it('rounds away float noise', () => {
    const price: ModelPrice = { input: 0.1, output: 0.2, cache_read: 0.1, cache_write: 0.1 };
    // 0.1 + 0.2 is 0.30000000000000004 in floating point; the cost is 3e-7 exactly
    expect(callCost(price, { input_tokens: 1, output_tokens: 1 })).toBe(3e-7);
    expect(callCost(price, { input_tokens: 1, output_tokens: 0, cache_read_input_tokens: 0 })).toBe(1e-7);
    expect(callCost(price, { input_tokens: 3_000, output_tokens: 0 })).toBe(0.0003);
    expect(worstCaseCost(price, 3_000, 0)).toBe(0.0003);
  });

  it('assumes nothing cached and a full response for the worst case', () => {
    // 100k × 3 / 1e6 + 8,192 × 15 / 1e6 = 0.3 + 0.12288
    expect(worstCaseCost(SONNET, 100_000, 8_192)).toBe(0.42288);
    expect(worstCaseCost(SONNET, 0, 0)).toBe(0);
  });
});

describe('contextWindow', () => {
  it.each([
    ['anthropic', 'claude-sonnet-4-20250514', 200_000],
    ['anthropic', 'claude-3-haiku', 200_000],
    ['anthropic', 'claude-opus-4-5@20251101', 200_000],
    ['openai', 'gpt-5-nano', 400_000],
    ['openai', 'gpt-4.1-mini-2025-04-14', 1_047_576],
    ['openai', 'gpt-4o-mini', 128_000],
    ['openai', 'gpt-4o-latest', 128_000],
    ['openai', 'o4-mini', 200_000],
    ['openai', 'o1-2024-12-17', 200_000],
  ] as const)('%s %s holds %d tokens', (provider, model, tokens) => {
    expect(contextWindow(provider, model)).toBe(tokens);
  });

  it.each([
    ['openai', 'gpt-4o-audio-preview'],
    ['anthropic', 'claude-sonnet-4-5-foo'],
    ['anthropic', 'gpt-4o'],
    ['scripted', 'claude-sonnet-4'],
  ] as const)('%s %s is unknown', (provider, model) => {
    expect(contextWindow(provider, model)).toBeNull();
  });
});

describe('loadPriceFile', () => {
  let dir: string;
  let n = 0;
  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'norma-prices-'));
  });
  afterAll(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  async function write(content: string | Buffer): Promise<string> {
    const file = path.join(dir, `prices-${++n}.json`);
    await fs.writeFile(file, content);
    return file;
  }

  /** The problems the file is refused with. */
  async function refused(content: unknown): Promise<{ file: string; problems: string[] }> {
    const file = await write(typeof content === 'string' ? content : JSON.stringify(content));
    const err: unknown = await loadPriceFile(file).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    const problems = (err as ConfigError).problems;
    for (const problem of problems) expect(problem.startsWith(`NORMA_MODEL_PRICES ${file}: `)).toBe(true);
    return { file, problems };
  }

  it('reads a good file, filling missing cache prices with the input price', async () => {
    const file = await write(
      JSON.stringify({
        models: {
          'gpt-4o': { input: 2, output: 8, cache_read: 1, cache_write: 2.5 },
          'openai/llama3': { input: 0, output: 0 },
          'scripted/fake': { input: 1.5, output: 3, cache_read: 0.15 },
          'anthropic/claude-x': { input: 4, output: 20, cache_write: 5 },
        },
      }),
    );
    const prices = await loadPriceFile(file);
    expect([...prices]).toEqual([
      ['gpt-4o', { input: 2, output: 8, cache_read: 1, cache_write: 2.5 }],
      ['openai/llama3', { input: 0, output: 0, cache_read: 0, cache_write: 0 }],
      ['scripted/fake', { input: 1.5, output: 3, cache_read: 0.15, cache_write: 1.5 }],
      ['anthropic/claude-x', { input: 4, output: 20, cache_read: 4, cache_write: 5 }],
    ]);
    const table = priceTable(prices);
    expect(table.lookup('scripted', 'fake')).toEqual({ price: prices.get('scripted/fake'), source: 'operator' });
    expect(table.lookup('openai', 'gpt-4o-2024-11-20')?.price.input).toBe(2);
  });

  it('reads an empty models object', async () => {
    expect((await loadPriceFile(await write('{"models": {}}'))).size).toBe(0);
  });

  it('refuses a file that is missing', async () => {
    const file = path.join(dir, 'absent.json');
    await expect(loadPriceFile(file)).rejects.toThrow(`NORMA_MODEL_PRICES ${file}: `);
  });

  it('refuses a file larger than 1 MiB', async () => {
    const file = await write(`{"models": {}}${' '.repeat(1024 * 1024)}`);
    await expect(loadPriceFile(file)).rejects.toThrow(/NORMA_MODEL_PRICES .*: larger than 1048576 bytes/);
  });

  it('refuses text that is not JSON', async () => {
    const { problems } = await refused('{"models": {');
    expect(problems).toEqual([expect.stringContaining('not JSON')]);
  });

  it.each([['[]'], ['"models"'], ['null'], ['3']])('refuses %s, which is not an object', async (text) => {
    const { problems } = await refused(text);
    expect(problems).toEqual([expect.stringContaining('must be a JSON object')]);
  });

  it('refuses unknown top-level fields and a models that is not an object', async () => {
    const { problems } = await refused({ model: {}, models: [] });
    expect(problems).toEqual([expect.stringContaining('unknown field "model"'), expect.stringContaining('models: must be an object')]);
  });

  it('refuses unknown fields in an entry', async () => {
    const { problems } = await refused({ models: { 'gpt-x': { input: 1, output: 2, cache: 3 } } });
    expect(problems).toEqual([expect.stringContaining('models["gpt-x"].cache: unknown field')]);
  });

  it('refuses non-numbers, negative numbers and missing prices', async () => {
    const { problems } = await refused({
      models: { 'gpt-x': { input: '1', output: -2, cache_read: null, cache_write: true }, 'gpt-y': { input: 1 }, 'gpt-z': 5 },
    });
    expect(problems).toEqual([
      expect.stringContaining('models["gpt-x"].input: must be a number ≥ 0'),
      expect.stringContaining('models["gpt-x"].output: must be a number ≥ 0'),
      expect.stringContaining('models["gpt-x"].cache_read: must be a number ≥ 0'),
      expect.stringContaining('models["gpt-x"].cache_write: must be a number ≥ 0'),
      expect.stringContaining('models["gpt-y"].output: missing'),
      expect.stringContaining('models["gpt-z"]: must be an object'),
    ]);
  });

  it('refuses numbers that are not finite', async () => {
    const { problems } = await refused('{"models": {"gpt-x": {"input": 1e999, "output": 1}}}');
    expect(problems).toEqual([expect.stringContaining('models["gpt-x"].input: must be a finite number ≥ 0')]);
  });

  it('refuses more than 1000 models', async () => {
    const models = Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`m${i}`, { input: 1, output: 1 }]));
    const { problems } = await refused({ models });
    expect(problems).toEqual([expect.stringContaining('models: 1001 models, more than 1000')]);
    const ok = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`m${i}`, { input: 1, output: 1 }]));
    expect((await loadPriceFile(await write(JSON.stringify({ models: ok })))).size).toBe(1000);
  });

  it('refuses bad keys', async () => {
    const long = 'x'.repeat(257);
    const { problems } = await refused({
      models: {
        '': { input: 1, output: 1 },
        [long]: { input: 1, output: 1 },
        'gpt 4o': { input: 1, output: 1 },
        'gpt-4o\t': { input: 1, output: 1 },
        'azure/gpt-4o': { input: 1, output: 1 },
        'openai/': { input: 1, output: 1 },
        ['y'.repeat(256)]: { input: 1, output: 1 },
      },
    });
    expect(problems).toEqual([
      expect.stringContaining('models[""]: the key is empty'),
      expect.stringContaining(`models["${long}"]: the key is longer than 256 characters`),
      expect.stringContaining('models["gpt 4o"]: the key has whitespace'),
      expect.stringContaining('models["gpt-4o\\t"]: the key has whitespace'),
      expect.stringContaining('models["azure/gpt-4o"]: unknown provider "azure"'),
      expect.stringContaining('models["openai/"]: no model after the provider'),
    ]);
  });

  it('names at most 20 problems', async () => {
    const models = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`m${i}`, { input: -1, output: 1 }]));
    const { problems } = await refused({ models });
    expect(problems).toHaveLength(20);
    expect(problems[0]).toContain('models["m0"].input: must be a number ≥ 0');
  });
});
