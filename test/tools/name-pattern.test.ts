// Tool-name patterns (deferred_tools, unlocks, a skill's allowed-tools): exact names, `*` patterns,
// `mcp__<server>` for every tool of one server, and texts that are not patterns matching nothing.
import { describe, expect, it } from 'vitest';
import { matchesAny, namePattern, TOOL_NAME_PATTERN } from '../../src/tools/name-pattern.js';

const matches = (pattern: string, names: string[]) => {
  const m = namePattern(pattern);
  expect(m, `${pattern} is a pattern`).not.toBeNull();
  return names.filter((n) => m!(n));
};

const NAMES = [
  'Grep',
  'Glob',
  'Read',
  'WebFetch',
  'mcp__github__create_issue',
  'mcp__github__list_prs',
  'mcp__github2__create_issue',
  'mcp__gitlab__create_issue',
  'mcp__server',
  'mcp__server__x',
  'mcp__server2__x',
  'my-tool',
  'my_tool',
];

describe('namePattern', () => {
  it('an exact name matches that name only (case-sensitive, no prefix or suffix)', () => {
    expect(matches('Grep', [...NAMES, 'grep', 'Grep2', 'XGrep', 'GREP'])).toEqual(['Grep']);
    expect(matches('WebFetch', NAMES)).toEqual(['WebFetch']);
    expect(matches('mcp__github__create_issue', NAMES)).toEqual(['mcp__github__create_issue']);
    // `_` and `-` are ordinary characters, not wildcards.
    expect(matches('my-tool', NAMES)).toEqual(['my-tool']);
    expect(matches('my_tool', NAMES)).toEqual(['my_tool']);
  });

  it('`*` stands for any run of characters, anchored at both ends', () => {
    expect(matches('mcp__*', NAMES)).toEqual([
      'mcp__github__create_issue',
      'mcp__github__list_prs',
      'mcp__github2__create_issue',
      'mcp__gitlab__create_issue',
      'mcp__server',
      'mcp__server__x',
      'mcp__server2__x',
    ]);
    expect(matches('mcp__github__*', NAMES)).toEqual(['mcp__github__create_issue', 'mcp__github__list_prs']);
    expect(matches('*', NAMES)).toEqual(NAMES);
    expect(matches('G*', NAMES)).toEqual(['Grep', 'Glob']);
    expect(matches('G*p', NAMES)).toEqual(['Grep']);
    expect(matches('*__create_issue', NAMES)).toEqual(['mcp__github__create_issue', 'mcp__github2__create_issue', 'mcp__gitlab__create_issue']);
    expect(matches('*Fetch', NAMES)).toEqual(['WebFetch']);
    expect(matches('my-*', NAMES)).toEqual(['my-tool']);
    // Anchored: a `*` pattern is not a substring search.
    expect(matches('rep*', NAMES)).toEqual([]);
    expect(matches('*Gre', NAMES)).toEqual([]);
  });

  it('`mcp__<server>` means every tool of that server (and the name itself), never of a server whose name only starts alike', () => {
    expect(matches('mcp__server', NAMES)).toEqual(['mcp__server', 'mcp__server__x']);
    expect(matches('mcp__github', NAMES)).toEqual(['mcp__github__create_issue', 'mcp__github__list_prs']);
    expect(namePattern('mcp__github')!('mcp__github2__create_issue')).toBe(false);
    expect(namePattern('mcp__server')!('mcp__server2__x')).toBe(false);
    expect(namePattern('mcp__server')!('mcp__serverx')).toBe(false);
  });

  it('texts that are not tool name patterns are null and match nothing', () => {
    for (const p of ['', 'Gr ep', ' Grep', 'Grep ', 'a.b', '.*', 'Grep(*)', 'Bash(git push *)', 'mcp__a.b', 'G?ep', 'x'.repeat(129), 'Grep\n', '[Gg]rep', '^Grep$']) {
      expect(namePattern(p), JSON.stringify(p)).toBeNull();
    }
    // A dot is not a regex wildcard, even where it would match.
    expect(matchesAny(['a.b'], 'aXb')).toBe(false);
    expect(matchesAny(['a.b'], 'a.b')).toBe(false);
    expect(matchesAny(['.*'], 'Grep')).toBe(false);
    // The longest allowed name is still a pattern.
    expect(namePattern('x'.repeat(128))!('x'.repeat(128))).toBe(true);
    expect(new RegExp(TOOL_NAME_PATTERN).test('mcp__github__*')).toBe(true);
    expect(new RegExp(TOOL_NAME_PATTERN).test('Gr ep')).toBe(false);
  });
});

describe('matchesAny', () => {
  it('is true when any pattern matches; non-patterns among them are skipped', () => {
    expect(matchesAny(['Read', 'G*'], 'Glob')).toBe(true);
    expect(matchesAny(['Read', 'G*'], 'WebFetch')).toBe(false);
    expect(matchesAny(['not a pattern', 'Grep'], 'Grep')).toBe(true);
    expect(matchesAny(['not a pattern'], 'not a pattern')).toBe(false);
    expect(matchesAny(['mcp__github'], 'mcp__github__list_prs')).toBe(true);
    expect(matchesAny(['mcp__github'], 'mcp__github2__list_prs')).toBe(false);
    expect(matchesAny(['mcp__github__*', 'WebFetch'], 'mcp__gitlab__x')).toBe(false);
  });

  it('no patterns match nothing', () => {
    expect(matchesAny([], 'Grep')).toBe(false);
    expect(matchesAny([], '')).toBe(false);
  });
});

describe('namePattern: `*` patterns are matched in linear time', () => {
  it('many stars against a long tool name an MCP server chose: answered at once (seconds of backtracking as a regular expression)', () => {
    const name = `mcp__h__${'a'.repeat(110)}`;
    const t0 = performance.now();
    expect(namePattern(`${'*a'.repeat(5)}*b`)!(name)).toBe(false);
    expect(namePattern(`${'*a'.repeat(60)}*`)!(name)).toBe(true);
    expect(namePattern(`${'*a'.repeat(60)}*b`)!(name)).toBe(false);
    expect(performance.now() - t0).toBeLessThan(50);
  });

  it('agrees with the anchored regular expression on every pattern and name over a small alphabet', () => {
    const texts: string[] = [''];
    for (let len = 1; len <= 5; len++) for (const t of texts.filter((x) => x.length === len - 1)) for (const c of ['a', 'b', '*']) texts.push(t + c);
    const names = texts.filter((t) => !t.includes('*'));
    for (const p of texts.filter((t) => t.includes('*'))) {
      const m = namePattern(p)!;
      const re = new RegExp(`^${p.split('*').join('.*')}$`);
      for (const n of names) expect(m(n), `${p} against ${JSON.stringify(n)}`).toBe(re.test(n));
    }
  });
});
