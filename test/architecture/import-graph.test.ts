// The import graph of src/ and routes/: dependencies point down (layers.ts), type imports
// included, and no file reaches itself through its imports.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { FORBIDDEN, LAYERS, layerOf } from './layers.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) out.push(...sources(rel));
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}

/** Every relative import and re-export of a file (`import type` and `import('…')` types included), as repository paths. */
export function importsOf(file: string, text = fs.readFileSync(path.join(ROOT, file), 'utf8')): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const specs: string[] = [];
  const visit = (n: ts.Node) => {
    if ((ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) && n.moduleSpecifier && ts.isStringLiteral(n.moduleSpecifier)) specs.push(n.moduleSpecifier.text);
    else if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument) && ts.isStringLiteral(n.argument.literal)) specs.push(n.argument.literal.text);
    else if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.ImportKeyword && n.arguments[0] && ts.isStringLiteral(n.arguments[0])) specs.push(n.arguments[0].text);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return specs
    .filter((s) => s.startsWith('.'))
    .map((s) => path.posix.normalize(path.posix.join(path.posix.dirname(file), s)).replace(/\.js$/, '.ts'));
}

function graph(): Map<string, string[]> {
  const files = [...sources('src'), ...sources('routes')];
  return new Map(files.map((f) => [f, importsOf(f)]));
}

/** The edges that break the layering, as "from → to (why)". */
export function violations(g: Map<string, string[]>): string[] {
  const out: string[] = [];
  for (const [from, tos] of g) {
    for (const to of tos) {
      const lf = layerOf(from);
      const lt = layerOf(to);
      if (lt > lf) out.push(`${from} → ${to} (layer ${lt} above ${lf})`);
      for (const f of FORBIDDEN) if (from.startsWith(f.from) && to.startsWith(f.to)) out.push(`${from} → ${to} (${f.why})`);
    }
  }
  return out;
}

/** Circles of files (strongly connected components of more than one file, or a file importing itself). */
export function circles(g: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const strong = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of g.get(v) ?? []) {
      if (!g.has(w)) continue;
      if (!idx.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (g.get(v) ?? []).includes(v)) out.push(scc.sort());
    }
  };
  for (const v of g.keys()) if (!idx.has(v)) strong(v);
  return out;
}

describe('the import graph', () => {
  const g = graph();

  it('places every file of src/ and routes/ in a layer', () => {
    expect([...g.keys()].filter((f) => layerOf(f) < 0)).toEqual([]);
  });

  it('points down: no file imports a higher layer or a forbidden place, type imports included', () => {
    expect(violations(g)).toEqual([]);
  });

  it('has no circles', () => {
    expect(circles(g)).toEqual([]);
  });

  it('resolves every relative import to a file that exists', () => {
    const missing = [...g].flatMap(([from, tos]) => tos.filter((t) => !fs.existsSync(path.join(ROOT, t))).map((t) => `${from} → ${t}`));
    expect(missing).toEqual([]);
  });
});

describe('the checker itself', () => {
  it('catches an upward edge, a type-only one included, and a forbidden one', () => {
    const g = new Map([
      ['src/store/sqlite.ts', importsOf('src/store/sqlite.ts', "import type { Message } from '../model/provider.js';")],
      ['src/permission/evaluate.ts', importsOf('src/permission/evaluate.ts', "type T = import('../capabilities/shell/bash.js').X;")],
      ['src/capabilities/files/read.ts', importsOf('src/capabilities/files/read.ts', "import { x } from '../../store/sqlite.js';")],
      ['src/pipeline/x.ts', importsOf('src/pipeline/x.ts', "export { y } from '../session/y.js';")],
    ]);
    const v = violations(g);
    expect(v).toContain('src/store/sqlite.ts → src/model/provider.ts (layer 6 above 1)');
    expect(v.some((x) => x.startsWith('src/store/sqlite.ts → src/model/provider.ts (the store'))).toBe(true);
    expect(v.some((x) => x.startsWith('src/permission/evaluate.ts → src/capabilities/shell/bash.ts (permission sees'))).toBe(true);
    // Not above it, yet forbidden: tools never reach the store.
    expect(v).toEqual(expect.arrayContaining(['src/capabilities/files/read.ts → src/store/sqlite.ts (tools never reach the store)']));
    expect(v.filter((x) => x.startsWith('src/capabilities/files/read.ts'))).toHaveLength(1);
    expect(v).toContain('src/pipeline/x.ts → src/session/y.ts (layer 8 above 7)');
    expect(LAYERS.length).toBeGreaterThan(5);
  });

  it('catches a circle', () => {
    const g = new Map([
      ['src/a.ts', ['src/b.ts']],
      ['src/b.ts', ['src/c.ts']],
      ['src/c.ts', ['src/a.ts']],
      ['src/d.ts', ['src/a.ts']],
    ]);
    expect(circles(g)).toEqual([['src/a.ts', 'src/b.ts', 'src/c.ts']]);
  });
});
