// Coverage check: unbash is a tolerant parser and can silently drop tokens (e.g. the `(` of
// `ls ( x`). Every character of a structural node that is not inside one of its children must be
// whitespace, a comment, a line continuation, or one of the node's own keywords/operators.
// Here-document bodies lie outside the nodes that own them and are skipped.
//
// Linear: each gap between a node's children is scanned once, and the here-doc bodies that fall
// into it are found by binary search (a line of thousands of here-docs is not quadratic).
import { forEachChild, type Script, type SyntaxNode } from 'unbash';
import { fail } from './types.js';

const OWN_TOKENS: Record<string, readonly string[]> = {
  Script: [';', '&'],
  CompoundList: [';', '&'],
  Statement: [';', '&'],
  AndOr: ['&&', '||'],
  Pipeline: ['|', '|&'],
  Command: [],
  Redirected: [],
  If: ['if', 'then', 'else', 'fi', ';', '&'],
  Elif: ['elif', 'then', ';', '&'],
  For: ['for', 'in', 'do', 'done', ';', '&', '{', '}'],
  Select: ['select', 'in', 'do', 'done', ';', '&', '{', '}'],
  While: ['while', 'until', 'do', 'done', ';', '&'],
  Subshell: ['(', ')', ';', '&'],
  BraceGroup: ['{', '}', ';', '&'],
  Case: ['case', 'in', 'esac', ';', '&'],
  CaseItem: ['(', ')', '|', ';;', ';&', ';;&'],
  TestCommand: ['[[', ']]'],
};

const GAP_TOKEN = /\s+|\\\n|#[^\n]*|\[\[|\]\]|;;&|;;|;&|&&|\|\||\|&|[;&|(){}]|[A-Za-z]+|[^]/y;

type Range = readonly [number, number];

/** Here-document bodies of one script, in source order (they never overlap). */
export class HereDocBodies {
  private constructor(private readonly ranges: readonly Range[]) {}

  static none: HereDocBodies = new HereDocBodies([]);

  /** `ownSource`: the script's own text, when it has one (a quick way to see there are none). */
  static of(script: Script, ownSource: string | undefined): HereDocBodies {
    if (ownSource !== undefined && !ownSource.includes('<<')) return HereDocBodies.none;
    const out: Range[] = [];
    const visit = (node: SyntaxNode): void => {
      if (node.type === 'HereDoc') {
        out.push([node.body.pos, node.closing ? node.closing.end : node.body.end]);
        return;
      }
      if (node.type === 'Word' || node.type === 'Assignment' || node.type === 'Redirect' || node.type === 'HereString') return;
      forEachChild(node, visit);
    };
    visit(script);
    let sorted = true;
    for (let i = 1; i < out.length && sorted; i++) sorted = out[i - 1]![0] <= out[i]![0];
    if (!sorted) out.sort((a, b) => a[0] - b[0]);
    return new HereDocBodies(out);
  }

  /** Calls `gap` for the parts of [from, to) outside every body. */
  forGaps(from: number, to: number, gap: (s: number, e: number) => void): void {
    const r = this.ranges;
    let lo = 0;
    let hi = r.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (r[mid]![1] <= from) lo = mid + 1;
      else hi = mid;
    }
    let at = from;
    for (let i = lo; i < r.length && r[i]![0] < to; i++) {
      if (r[i]![0] > at) gap(at, r[i]![0]);
      at = Math.max(at, r[i]![1]);
    }
    if (at < to) gap(at, to);
  }
}

const isBlank = (src: string, s: number, e: number): boolean => {
  for (let i = s; i < e; i++) {
    const c = src.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x09 && c !== 0x0d) return false;
  }
  return true;
};

export function checkOwnText(node: SyntaxNode & { pos: number; end: number }, src: string, bodies: HereDocBodies): void {
  const allowed = OWN_TOKENS[node.type];
  if (allowed === undefined) fail(`unsupported syntax: ${node.type}`);
  const scan = (s: number, e: number): void => {
    if (isBlank(src, s, e)) return;
    const text = src.slice(s, e);
    GAP_TOKEN.lastIndex = 0;
    while (GAP_TOKEN.lastIndex < text.length) {
      const m = GAP_TOKEN.exec(text);
      if (m === null) fail('parse error');
      const tok = m[0];
      const c = tok.charCodeAt(0);
      if (c === 0x23 /* # */ || tok === '\\\n' || /^\s/.test(tok)) continue;
      if (!allowed.includes(tok)) fail(`parse error near ${JSON.stringify(tok)}`);
    }
  };
  // Children come in source order (checked); the gaps between them are the node's own text.
  let at = node.pos;
  let prevStart = -1;
  let sorted = true;
  forEachChild(node, (child) => {
    if (!sorted || !('pos' in child && 'end' in child)) return;
    if (child.pos < prevStart) {
      sorted = false;
      return;
    }
    prevStart = child.pos;
    if (child.end <= at || child.pos >= node.end) return;
    if (child.pos > at) bodies.forGaps(at, child.pos, scan);
    at = Math.max(at, child.end);
  });
  if (!sorted) {
    const children: Range[] = [];
    forEachChild(node, (child) => {
      if ('pos' in child && 'end' in child) children.push([child.pos, child.end]);
    });
    children.sort((a, b) => a[0] - b[0]);
    at = node.pos;
    for (const [s, e] of children) {
      if (e <= at) continue;
      if (s >= node.end) break;
      if (s > at) bodies.forGaps(at, Math.min(s, node.end), scan);
      at = Math.max(at, e);
    }
  }
  if (at < node.end) bodies.forGaps(at, node.end, scan);
}

/** Most `<<` operators on one line (counted in the raw text, quotes included: an overestimate). */
export const MAX_HEREDOCS_PER_LINE = 100;

export function maxHereDocsOnALine(src: string): number {
  let max = 0;
  let n = 0;
  for (let i = 0; i < src.length; i++) {
    const c = src.charCodeAt(i);
    if (c === 0x0a) {
      n = 0;
    } else if (c === 0x3c && src.charCodeAt(i + 1) === 0x3c) {
      if (src.charCodeAt(i + 2) === 0x3c) i += 2; // a here-string
      else if (++n > max) max = n;
      i++;
    }
  }
  return max;
}
