// What model calls cost and how much context a model holds. Prices are USD per million tokens:
// a built-in table for the Anthropic and OpenAI models the server knows, overridden or extended
// by the operator's NORMA_MODEL_PRICES file. A model id names a table key exactly or with a
// snapshot suffix (`-20250514`, `-2024-08-06`, `-latest`, `@20250514`); any other id is unknown,
// and an unknown model has no price rather than a guessed one.
import fs from 'node:fs/promises';
import { ConfigError } from '../config.js';
import { parsePeerJson } from '../json-depth.js';
import type { Usage } from './provider.js';

export interface ModelPrice {
  input: number;
  output: number;
  cache_read: number;
  cache_write: number;
}

export type PriceSource = 'operator' | 'built-in';
type Provider = 'anthropic' | 'openai' | 'scripted';

export interface PriceTable {
  /** The price of provider/model, or null when unknown (never a guess). */
  lookup(provider: Provider, model: string): { price: ModelPrice; source: PriceSource } | null;
}

const PROVIDERS: readonly Provider[] = ['anthropic', 'openai', 'scripted'];

function p(input: number, output: number, cache_read: number, cache_write: number): ModelPrice {
  return { input, output, cache_read, cache_write };
}
/** OpenAI charges no premium for writing its cache: a write costs what plain input costs. */
function o(input: number, output: number, cache_read: number): ModelPrice {
  return p(input, output, cache_read, input);
}

const BUILT_IN: Record<'anthropic' | 'openai', ReadonlyMap<string, ModelPrice>> = {
  anthropic: new Map([
    ['claude-opus-4-5', p(5, 25, 0.5, 6.25)],
    ['claude-opus-4-1', p(15, 75, 1.5, 18.75)],
    ['claude-opus-4', p(15, 75, 1.5, 18.75)],
    ['claude-sonnet-4-5', p(3, 15, 0.3, 3.75)],
    ['claude-sonnet-4', p(3, 15, 0.3, 3.75)],
    ['claude-3-7-sonnet', p(3, 15, 0.3, 3.75)],
    ['claude-3-5-sonnet', p(3, 15, 0.3, 3.75)],
    ['claude-haiku-4-5', p(1, 5, 0.1, 1.25)],
    ['claude-3-5-haiku', p(0.8, 4, 0.08, 1)],
    ['claude-3-opus', p(15, 75, 1.5, 18.75)],
    ['claude-3-haiku', p(0.25, 1.25, 0.03, 0.3)],
  ]),
  openai: new Map([
    ['gpt-5', o(1.25, 10, 0.125)],
    ['gpt-5-mini', o(0.25, 2, 0.025)],
    ['gpt-5-nano', o(0.05, 0.4, 0.005)],
    ['gpt-4.1', o(2, 8, 0.5)],
    ['gpt-4.1-mini', o(0.4, 1.6, 0.1)],
    ['gpt-4.1-nano', o(0.1, 0.4, 0.025)],
    ['gpt-4o', o(2.5, 10, 1.25)],
    ['gpt-4o-mini', o(0.15, 0.6, 0.075)],
    ['o3', o(2, 8, 0.5)],
    ['o4-mini', o(1.1, 4.4, 0.275)],
    ['o3-mini', o(1.1, 4.4, 0.55)],
    ['o1', o(15, 60, 7.5)],
  ]),
};

function windows(groups: [number, string[]][]): ReadonlyMap<string, number> {
  return new Map(groups.flatMap(([tokens, models]) => models.map((m): [string, number] => [m, tokens])));
}

const WINDOWS: Record<'anthropic' | 'openai', ReadonlyMap<string, number>> = {
  anthropic: windows([[200_000, [...BUILT_IN.anthropic.keys()]]]),
  openai: windows([
    [400_000, ['gpt-5', 'gpt-5-mini', 'gpt-5-nano']],
    [1_047_576, ['gpt-4.1', 'gpt-4.1-mini', 'gpt-4.1-nano']],
    [128_000, ['gpt-4o', 'gpt-4o-mini']],
    [200_000, ['o3', 'o4-mini', 'o3-mini', 'o1']],
  ]),
};

const SNAPSHOT_SUFFIX = /(?:-\d{8}|-\d{4}-\d{2}-\d{2}|-latest|@\d{8})$/;

/**
 * The keys a model id may be priced under, longest first: the id itself, then the id without its
 * snapshot suffix. Only one suffix is taken off, so `gpt-4o-mini` never falls back to `gpt-4o`.
 */
function candidates(model: string): string[] {
  const m = SNAPSHOT_SUFFIX.exec(model);
  return m && m.index > 0 ? [model, model.slice(0, m.index)] : [model];
}

function find<T>(table: ReadonlyMap<string, T> | undefined, model: string): T | null {
  if (!table) return null;
  for (const key of candidates(model)) {
    const hit = table.get(key);
    if (hit !== undefined) return hit;
  }
  return null;
}

/**
 * Prices with the operator's entries first. An operator key is `provider/model` or a bare model
 * that applies to anthropic and openai; for one id the longer matching name wins, and at equal
 * length the provider-qualified key wins over the bare one.
 */
export function priceTable(operator?: ReadonlyMap<string, ModelPrice>): PriceTable {
  const qualified = new Map<Provider, Map<string, ModelPrice>>(PROVIDERS.map((prov) => [prov, new Map()]));
  const bare = new Map<string, ModelPrice>();
  for (const [key, price] of operator ?? []) {
    const slash = key.indexOf('/');
    if (slash < 0) bare.set(key, price);
    else qualified.get(key.slice(0, slash) as Provider)?.set(key.slice(slash + 1), price);
  }
  return {
    lookup(provider, model) {
      for (const key of candidates(model)) {
        const hit = qualified.get(provider)?.get(key) ?? (provider === 'scripted' ? undefined : bare.get(key));
        if (hit !== undefined) return { price: hit, source: 'operator' };
      }
      if (provider === 'scripted') return null;
      const price = find(BUILT_IN[provider], model);
      return price ? { price, source: 'built-in' } : null;
    },
  };
}

/** Context window in tokens of a known model, or null. */
export function contextWindow(provider: Provider, model: string): number | null {
  return provider === 'scripted' ? null : find(WINDOWS[provider], model);
}

function round(usd: number): number {
  return Math.round(usd * 1e9) / 1e9;
}

/** What one call cost in USD: cached input at the cache prices, the rest of the input at the input price. */
export function callCost(price: ModelPrice, usage: Usage): number {
  const read = usage.cache_read_input_tokens ?? 0;
  const write = usage.cache_creation_input_tokens ?? 0;
  const uncached = Math.max(0, usage.input_tokens - read - write);
  return round(
    (uncached * price.input + read * price.cache_read + write * price.cache_write + usage.output_tokens * price.output) / 1e6,
  );
}

/** The most a call can cost in USD: no input assumed cached, and a response of `maxTokens`. */
export function worstCaseCost(price: ModelPrice, inputTokens: number, maxTokens: number): number {
  return round((inputTokens * price.input + maxTokens * price.output) / 1e6);
}

const MAX_FILE_BYTES = 1024 * 1024;
const MAX_MODELS = 1000;
const MAX_KEY_CHARS = 256;
const MAX_PROBLEMS = 20;
const FIELDS = ['input', 'output', 'cache_read', 'cache_write'] as const;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function keyProblem(key: string): string | null {
  if (key.length === 0) return 'the key is empty';
  if (key.length > MAX_KEY_CHARS) return `the key is longer than ${MAX_KEY_CHARS} characters`;
  if (/\s/.test(key)) return 'the key has whitespace';
  const slash = key.indexOf('/');
  if (slash < 0) return null;
  const prefix = key.slice(0, slash);
  if (!(PROVIDERS as readonly string[]).includes(prefix)) return `unknown provider "${prefix}" (expected anthropic, openai or scripted)`;
  if (slash === key.length - 1) return 'no model after the provider';
  return null;
}

/**
 * NORMA_MODEL_PRICES: `{"models": {"<key>": {"input", "output", "cache_read"?, "cache_write"?}}}`,
 * USD per million tokens; a missing cache price is the input price. Any problem stops start-up,
 * naming the file, the key and the field.
 */
export async function loadPriceFile(file: string): Promise<Map<string, ModelPrice>> {
  const at = `NORMA_MODEL_PRICES ${file}: `;
  let json: unknown;
  try {
    const handle = await fs.open(file, 'r');
    try {
      const st = await handle.stat();
      if (!st.isFile()) throw new Error('not a regular file');
      if (st.size > MAX_FILE_BYTES) throw new Error(`larger than ${MAX_FILE_BYTES} bytes`);
      const bytes = await handle.readFile();
      if (bytes.length > MAX_FILE_BYTES) throw new Error(`larger than ${MAX_FILE_BYTES} bytes`);
      json = bytes.toString('utf8');
    } finally {
      await handle.close();
    }
  } catch (err) {
    throw new ConfigError([`${at}${(err as Error).message}`]);
  }
  try {
    json = parsePeerJson(json as string);
  } catch (err) {
    throw new ConfigError([`${at}not JSON: ${(err as Error).message}`]);
  }
  if (!isObject(json)) throw new ConfigError([`${at}must be a JSON object {"models": {...}}`]);

  const problems: string[] = [];
  const say = (problem: string) => {
    if (problems.length < MAX_PROBLEMS) problems.push(at + problem);
  };
  for (const field of Object.keys(json)) if (field !== 'models') say(`unknown field ${JSON.stringify(field)} (expected "models")`);
  const models = json.models;
  if (!isObject(models)) {
    say('models: must be an object of model prices');
    throw new ConfigError(problems);
  }
  const keys = Object.keys(models);
  if (keys.length > MAX_MODELS) {
    say(`models: ${keys.length} models, more than ${MAX_MODELS}`);
    throw new ConfigError(problems);
  }

  const out = new Map<string, ModelPrice>();
  for (const key of keys) {
    const name = `models[${JSON.stringify(key)}]`;
    const bad = keyProblem(key);
    if (bad) say(`${name}: ${bad}`);
    const entry = models[key];
    if (!isObject(entry)) {
      say(`${name}: must be an object {"input", "output", "cache_read"?, "cache_write"?}`);
      continue;
    }
    for (const field of Object.keys(entry)) {
      if (!(FIELDS as readonly string[]).includes(field)) say(`${name}.${field}: unknown field (expected ${FIELDS.join(', ')})`);
    }
    const values: Partial<Record<(typeof FIELDS)[number], number>> = {};
    let ok = !bad;
    for (const field of FIELDS) {
      const v = entry[field];
      if (v === undefined && (field === 'cache_read' || field === 'cache_write')) continue;
      if (v === undefined) say(`${name}.${field}: missing (a number ≥ 0)`);
      else if (typeof v !== 'number' || Number.isNaN(v) || v < 0) say(`${name}.${field}: must be a number ≥ 0`);
      else if (!Number.isFinite(v)) say(`${name}.${field}: must be a finite number ≥ 0`);
      else {
        values[field] = v;
        continue;
      }
      ok = false;
    }
    if (ok && values.input !== undefined && values.output !== undefined) {
      out.set(key, p(values.input, values.output, values.cache_read ?? values.input, values.cache_write ?? values.input));
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return out;
}
