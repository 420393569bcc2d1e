// JSON as the docs show it: `…` stands for what is left out (members, elements, a value, part of
// a string). Used to check that an example prints what its `# → {…}` comment shows.
export type Pattern =
  | { kind: 'any' }
  | { kind: 'object'; members: [string, Pattern][]; open: boolean }
  /** `null` is a `…` element: any number of elements there. */
  | { kind: 'array'; items: (Pattern | null)[] }
  | { kind: 'string'; pieces: string[] }
  | { kind: 'literal'; value: number | boolean | null };

/** Parses JSON in which `…` may stand for members, elements, a value, or part of a string. */
export function parseShown(text: string): Pattern {
  let i = 0;
  const ws = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const fail = (what: string): never => {
    throw new Error(`shown JSON: ${what} at ${i}: ${text.slice(Math.max(0, i - 20), i + 20)}`);
  };
  const value = (): Pattern => {
    ws();
    const c = text[i];
    if (c === '…') {
      i++;
      return { kind: 'any' };
    }
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      i++;
      const members: [string, Pattern][] = [];
      const items: (Pattern | null)[] = [];
      let open = false;
      ws();
      if (text[i] === close) {
        i++;
      } else {
        for (;;) {
          ws();
          if (text[i] === '…') {
            i++;
            open = true;
            items.push(null);
          } else if (c === '{') {
            const key = value();
            if (key.kind !== 'string' || key.pieces.length !== 1) fail('a member name');
            ws();
            if (text[i++] !== ':') fail('":"');
            members.push([(key as { pieces: string[] }).pieces[0]!, value()]);
          } else {
            items.push(value());
          }
          ws();
          if (text[i] === ',') {
            i++;
            continue;
          }
          if (text[i++] !== close) fail(`"${close}"`);
          break;
        }
      }
      return c === '{' ? { kind: 'object', members, open } : { kind: 'array', items };
    }
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      const decoded = JSON.parse(text.slice(i, j + 1)) as string;
      i = j + 1;
      return { kind: 'string', pieces: decoded.split('…') };
    }
    const lit = /^(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(text.slice(i));
    if (!lit) return fail('a value');
    i += lit[0].length;
    return { kind: 'literal', value: JSON.parse(lit[0]) as number | boolean | null };
  };
  const p = value();
  ws();
  if (i !== text.length) fail('the end');
  return p;
}

/** Does `actual` look like the shown `pattern`? */
export function matches(pattern: Pattern, actual: unknown): boolean {
  switch (pattern.kind) {
    case 'any':
      return true;
    case 'literal':
      return actual === pattern.value;
    case 'string': {
      if (typeof actual !== 'string') return false;
      const [first, ...rest] = pattern.pieces;
      if (rest.length === 0) return actual === first;
      if (!actual.startsWith(first!)) return false;
      let at = first!.length;
      for (const [n, piece] of rest.entries()) {
        if (n === rest.length - 1) return actual.length - piece.length >= at && actual.endsWith(piece);
        const found = actual.indexOf(piece, at);
        if (found < 0) return false;
        at = found + piece.length;
      }
      return true;
    }
    case 'object': {
      if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false;
      const o = actual as Record<string, unknown>;
      if (!pattern.open && Object.keys(o).length !== pattern.members.length) return false;
      return pattern.members.every(([k, p]) => Object.hasOwn(o, k) && matches(p, o[k]));
    }
    case 'array': {
      if (!Array.isArray(actual)) return false;
      const items = pattern.items;
      // Element by element; a `…` takes any number of elements (the shortest run that lets the rest match).
      const from = (p: number, a: number): boolean => {
        if (p === items.length) return a === actual.length;
        const item = items[p] as Pattern | null;
        if (item === null) {
          for (let k = a; k <= actual.length; k++) if (from(p + 1, k)) return true;
          return false;
        }
        return a < actual.length && matches(item, actual[a]) && from(p + 1, a + 1);
      };
      return from(0, 0);
    }
  }
}

/** The JSON documents in a block's output (curl prints them back to back; other text is skipped). */
export function documents(out: string): unknown[] {
  const docs: unknown[] = [];
  let i = 0;
  while (i < out.length) {
    if (out[i] !== '{' && out[i] !== '[') {
      i++;
      continue;
    }
    let depth = 0;
    let j = i;
    for (; j < out.length; j++) {
      const c = out[j];
      if (c === '"') {
        for (j++; j < out.length && out[j] !== '"'; j += out[j] === '\\' ? 2 : 1);
      } else if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') {
        if (--depth === 0) break;
      }
    }
    try {
      docs.push(JSON.parse(out.slice(i, j + 1)));
      i = j + 1;
    } catch {
      i++;
    }
  }
  return docs;
}

/** The JSON each `# →` comment of a block shows, in order. */
export function shownOutputs(code: string): { text: string; pattern: Pattern }[] {
  const shown: { text: string; pattern: Pattern }[] = [];
  const lines = code.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const first = /^# → (.*)$/.exec(lines[i]!);
    if (!first) continue;
    const parts = [first[1]!];
    // Continued by indented comment lines (`#` and two spaces or more); a plain `# …` comment is prose.
    while (i + 1 < lines.length && /^#\s{2,}\S/.test(lines[i + 1]!)) parts.push(lines[++i]!.replace(/^#\s*/, ''));
    const text = parts.join(' ');
    shown.push({ text, pattern: parseShown(text) });
  }
  return shown;
}

