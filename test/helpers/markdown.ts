// The README and the guides in docs/ as the tests read them: fenced blocks with the section they
// are in, headings with the anchors GitHub gives them, and links.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** README.md and every guide in docs/ (DESIGN.md is about the code, not a guide). */
export const GUIDES = fs
  .readdirSync(path.join(root, 'docs'))
  .filter((f) => f.endsWith('.md') && f !== 'DESIGN.md')
  .sort()
  .map((f) => `docs/${f}`);
export const DOCUMENTS = ['README.md', ...GUIDES];

export function read(file: string): string {
  return fs.readFileSync(path.join(root, file), 'utf8');
}

export interface Block {
  file: string;
  info: string;
  code: string;
  /** The line of the opening fence (1-based). */
  line: number;
  /** The `##` section it is in. */
  section: string;
}

/** Fenced blocks that open at the start of a line (an indented one is part of a list item's text). */
export function fencedBlocks(file: string, text = read(file)): Block[] {
  const blocks: Block[] = [];
  const lines = text.split('\n');
  let section = '';
  for (let i = 0; i < lines.length; i++) {
    const heading = /^## (.*)$/.exec(lines[i]!);
    if (heading) section = heading[1]!;
    const open = /^```(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i] !== '```'; i++) body.push(lines[i]!);
    blocks.push({ file, info: open[1]!.trim(), code: body.join('\n'), line: start + 1, section });
  }
  return blocks;
}

/** The anchor GitHub makes of a heading: lower case, punctuation dropped, spaces to `-`. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, '')
    .replaceAll(' ', '-');
}

export interface Heading {
  level: number;
  text: string;
  anchor: string;
}

/** Headings outside fenced blocks, with their anchors (a repeated one gets `-1`, `-2`, …). */
export function headings(text: string): Heading[] {
  const out: Heading[] = [];
  const seen = new Map<string, number>();
  let fence = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) fence = !fence;
    const m = fence ? null : /^(#{1,6}) (.*)$/.exec(line);
    if (!m) continue;
    const base = slug(m[2]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.push({ level: m[1]!.length, text: m[2]!, anchor: n ? `${base}-${n}` : base });
  }
  return out;
}

/** Markdown links `[text](target)` outside fenced blocks and code spans. */
export function links(text: string): { text: string; target: string; line: number }[] {
  const out: { text: string; target: string; line: number }[] = [];
  let fence = false;
  for (const [i, line] of text.split('\n').entries()) {
    if (line.startsWith('```')) fence = !fence;
    if (fence) continue;
    const prose = line.replace(/`[^`]*`/g, (m) => ' '.repeat(m.length));
    for (const m of prose.matchAll(/\[([^\]]*)\]\(([^)\s]+)\)/g)) out.push({ text: m[1]!, target: m[2]!, line: i + 1 });
  }
  return out;
}
