// Values drawn from the OpenAPI document's schemas, valid or deliberately not, from a seeded
// generator (the same seed draws the same values). Used by the contract fuzz test the way
// schemathesis uses a document: every operation, generated parameters and bodies.

type Schema = Record<string, unknown> | boolean;

/** mulberry32: small, fast and good enough to draw test inputs from a seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ALNUM = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-';
const NASTY = ['', ' ', '../../etc/passwd', '\u0000', '%00', '${HOME}', '$(id)', '<script>', '\u202e', '😀', 'a'.repeat(300), '\\', '"', "'", 'null', '-1', '1e309'];

export class SchemaFuzzer {
  constructor(
    private readonly components: Record<string, Schema>,
    private readonly rand: () => number,
  ) {}

  int(lo: number, hi: number): number {
    return lo + Math.floor(this.rand() * (hi - lo + 1));
  }

  chance(p: number): boolean {
    return this.rand() < p;
  }

  pick<T>(xs: readonly T[]): T {
    return xs[this.int(0, xs.length - 1)]!;
  }

  private resolve(s: Schema): Schema {
    if (typeof s === 'object' && typeof s.$ref === 'string') {
      const name = s.$ref.replace('#/components/schemas/', '');
      return this.components[name] ?? {};
    }
    return s;
  }

  /**
   * A value for the schema. `invalidRate` is the chance, at each level, of drawing something the
   * schema does not allow (a wrong type, a missing required or an unknown property, a value out
   * of range or off the enum).
   */
  value(schema: Schema, invalidRate: number, depth = 0): unknown {
    const s = this.resolve(schema);
    if (s === true) return this.anyValue(depth);
    if (s === false) return this.anyValue(depth);
    if (depth > 6) return null;
    if (this.chance(invalidRate)) return this.invalid(s, depth);
    const alternatives = (s.oneOf ?? s.anyOf) as Schema[] | undefined;
    if (alternatives) return this.value(this.pick(alternatives), invalidRate, depth + 1);
    if (s.allOf) return Object.assign({}, ...(s.allOf as Schema[]).map((x) => this.value(x, invalidRate, depth + 1)));
    if (s.const !== undefined) return s.const;
    if (Array.isArray(s.enum)) return this.pick(s.enum);
    const type = Array.isArray(s.type) ? this.pick(s.type as string[]) : (s.type as string | undefined);
    switch (type) {
      case 'string':
        return this.string(s);
      case 'integer':
      case 'number':
        return this.number(s, type === 'integer');
      case 'boolean':
        return this.chance(0.5);
      case 'null':
        return null;
      case 'array': {
        const min = (s.minItems as number | undefined) ?? 0;
        const max = Math.min((s.maxItems as number | undefined) ?? 3, min + 3);
        const n = this.int(min, max);
        return Array.from({ length: n }, () => this.value((s.items as Schema | undefined) ?? true, invalidRate, depth + 1));
      }
      case 'object':
      case undefined: {
        if (type === undefined && !s.properties && !s.additionalProperties) return this.anyValue(depth);
        const out: Record<string, unknown> = {};
        const props = (s.properties as Record<string, Schema> | undefined) ?? {};
        const required = new Set((s.required as string[] | undefined) ?? []);
        for (const [k, v] of Object.entries(props)) {
          if (v === false) continue;
          if (required.has(k) || this.chance(0.35)) out[k] = this.value(v, invalidRate, depth + 1);
        }
        const extra = s.additionalProperties;
        if (extra && typeof extra === 'object' && this.chance(0.5)) {
          for (let i = this.int(1, 2); i > 0; i--) out[this.word()] = this.value(extra as Schema, invalidRate, depth + 1);
        }
        return out;
      }
      default:
        return this.anyValue(depth);
    }
  }

  private invalid(s: Schema & object, depth: number): unknown {
    const props = s.properties as Record<string, Schema> | undefined;
    const required = (s.required as string[] | undefined) ?? [];
    const options: (() => unknown)[] = [
      () => this.anyValue(depth), // most likely the wrong type
      () => this.pick(NASTY),
    ];
    if (props) {
      options.push(() => {
        const v = this.value(s, 0, depth) as Record<string, unknown>;
        if (required.length > 0) delete v[this.pick(required)];
        else v[`unknown_${this.word()}`] = 1;
        return v;
      });
    }
    if (typeof s.maxLength === 'number') options.push(() => 'x'.repeat((s.maxLength as number) + 1));
    if (typeof s.maximum === 'number') options.push(() => (s.maximum as number) + 1);
    if (typeof s.minimum === 'number') options.push(() => (s.minimum as number) - 1);
    if (Array.isArray(s.enum)) options.push(() => `${String(this.pick(s.enum as unknown[]))}_not`);
    return this.pick(options)();
  }

  private string(s: Record<string, unknown>): string {
    if (s.format === 'date-time') return new Date(Date.UTC(2026, 0, 1) + this.int(0, 1e9) * 1000).toISOString();
    if (s.format === 'uri') return this.pick(['http://127.0.0.1:9/x', 'https://example.invalid/a', 'file:///etc/passwd', 'http://[::1]:1/']);
    const min = (s.minLength as number | undefined) ?? 0;
    const max = Math.min((s.maxLength as number | undefined) ?? 24, min + 24);
    if (typeof s.pattern === 'string' && !/^\^\[A-Za-z0-9_-\]/.test(s.pattern) && this.chance(0.5)) return this.pick(NASTY);
    const n = this.int(Math.max(min, 0), Math.max(max, min));
    let out = '';
    for (let i = 0; i < n; i++) out += ALNUM[this.int(0, ALNUM.length - 1)];
    return out;
  }

  private number(s: Record<string, unknown>, integer: boolean): number {
    const lo = (s.minimum as number | undefined) ?? (typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum + 1 : -5);
    const hi = (s.maximum as number | undefined) ?? lo + 1000;
    const v = lo + this.rand() * (hi - lo);
    return integer ? Math.round(v) : v;
  }

  word(): string {
    let out = '';
    for (let i = this.int(1, 8); i > 0; i--) out += ALNUM[this.int(0, 51)];
    return out;
  }

  anyValue(depth: number): unknown {
    switch (this.int(0, depth > 3 ? 4 : 6)) {
      case 0:
        return null;
      case 1:
        return this.chance(0.5);
      case 2:
        return this.int(-1e6, 1e6);
      case 3:
        return this.pick(NASTY);
      case 4:
        return this.word();
      case 5:
        return [this.anyValue(depth + 1)];
      default:
        return { [this.word()]: this.anyValue(depth + 1) };
    }
  }
}
