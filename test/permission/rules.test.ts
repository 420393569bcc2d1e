import { describe, it, expect } from 'vitest';
import { allowingRules, firstLenientMatch, parseRule, parseRules, type ParsedRule } from '../../src/permission/rules.js';

function mustParse(text: string): ParsedRule {
  const r = parseRule(text);
  if (!r.ok) throw new Error(`expected ${JSON.stringify(text)} to parse, got error: ${r.error}`);
  return r.rule;
}

describe('parseRule: valid rules', () => {
  const cases: { text: string; tool: string; specifier: string | null }[] = [
    { text: '*', tool: '*', specifier: null },
    { text: 'Read', tool: 'Read', specifier: null },
    { text: 'mcp__srv__*', tool: 'mcp__srv__*', specifier: null },
    { text: 'mcp__srv__tool', tool: 'mcp__srv__tool', specifier: null },
    { text: 'my-tool_2', tool: 'my-tool_2', specifier: null },
    { text: 'Bash(git status)', tool: 'Bash', specifier: 'git status' },
    { text: 'Bash(npm run test:*)', tool: 'Bash', specifier: 'npm run test:*' },
    { text: 'Read(src/**)', tool: 'Read', specifier: 'src/**' },
    { text: 'WebFetch(domain:example.com)', tool: 'WebFetch', specifier: 'domain:example.com' },
    { text: 'Bash(echo $(date))', tool: 'Bash', specifier: 'echo $(date)' },
    { text: 'Bash(f (a (b) c) d)', tool: 'Bash', specifier: 'f (a (b) c) d' },
    { text: 'Bash((x))', tool: 'Bash', specifier: '(x)' },
  ];
  it.each(cases)('$text → tool $tool, specifier $specifier', ({ text, tool, specifier }) => {
    const r = parseRule(text);
    expect(r).toMatchObject({ ok: true, rule: { text, tool, specifier } });
  });

  it('trims surrounding whitespace for matching but keeps the text as written', () => {
    const r = parseRule('  Read  ');
    expect(r).toMatchObject({ ok: true, rule: { text: '  Read  ', tool: 'Read', specifier: null, kind: 'name' } });
    const b = parseRule(' Bash(ls -la) ');
    expect(b).toMatchObject({ ok: true, rule: { text: ' Bash(ls -la) ', tool: 'Bash', specifier: 'ls -la', kind: 'command' } });
  });
});

describe('parseRule: invalid rules', () => {
  // `names` is the part of the rule the error message must quote.
  const cases: { text: string; names: string; mentions: RegExp }[] = [
    { text: 'Bash(', names: 'Bash(', mentions: /closing "\)"/ },
    { text: 'Bash(git status', names: 'Bash(git status', mentions: /closing "\)"/ },
    { text: 'Bash()', names: 'Bash()', mentions: /empty specifier/ },
    { text: 'Bash(   )', names: 'Bash(   )', mentions: /empty specifier/ },
    { text: 'Read)x', names: 'Read)x', mentions: /not a tool name/ },
    { text: 'a b', names: 'a b', mentions: /not a tool name/ },
    { text: 'Bash*(x)', names: 'Bash*', mentions: /not a tool name/ },
    { text: 'Bash (x)', names: 'Bash ', mentions: /not a tool name/ },
    { text: '1Read', names: '1Read', mentions: /not a tool name/ },
    { text: 'mcp*x', names: 'mcp*x', mentions: /not a tool name/ },
    { text: '**', names: '**', mentions: /not a tool name/ },
    { text: 'Bash(a(b)', names: 'Bash(a(b)', mentions: /unbalanced/ },
    { text: 'Bash((x)', names: 'Bash((x)', mentions: /unbalanced/ },
    { text: 'Bash(x))', names: 'Bash(x))', mentions: /unbalanced/ },
    { text: 'Bash(a)b)', names: 'Bash(a)b)', mentions: /unbalanced/ },
    { text: 'Bash(a)(b)', names: 'Bash(a)(b)', mentions: /unbalanced/ },
    { text: 'Foo*', names: 'Foo*', mentions: /wildcard is only "\*".*mcp__<server>__\*/ },
    { text: 'mcp__*', names: 'mcp__*', mentions: /wildcard/ },
    { text: 'Read(~/notes)', names: 'Read(~/notes)', mentions: /home-relative/ },
    { text: 'Read(../x)', names: 'Read(../x)', mentions: /"\.\." is not allowed/ },
    { text: 'Edit(src/../../etc)', names: 'Edit(src/../../etc)', mentions: /"\.\." is not allowed/ },
    { text: 'Read(!secret)', names: 'Read(!secret)', mentions: /cannot be negated/ },
    { text: 'Read(src/[ab)', names: 'Read(src/[ab)', mentions: /unclosed character class/ },
    { text: 'Grep({a,b)', names: 'Grep({a,b)', mentions: /invalid path glob/ },
    { text: 'WebFetch(example.com)', names: 'WebFetch(example.com)', mentions: /domain:<host>/ },
    { text: 'WebFetch(domain:exa mple.com)', names: 'WebFetch(domain:exa mple.com)', mentions: /not a host name/ },
    { text: 'WebFetch(domain:*.*.example.com)', names: 'WebFetch(domain:*.*.example.com)', mentions: /only wildcard/ },
    { text: 'WebFetch(domain:ex*ample.com)', names: 'WebFetch(domain:ex*ample.com)', mentions: /only wildcard/ },
    // Network rules: a host and optionally a port, nothing else.
    { text: 'Network(domain:https://example.com)', names: 'https://example.com', mentions: /is a URL.*without a scheme/ },
    { text: 'Network(domain:example.com/path)', names: 'example.com/path', mentions: /has a path/ },
    { text: 'Network(domain:api.*.example.com)', names: 'api.*.example.com', mentions: /only wildcard/ },
    { text: 'Network(domain:example.*)', names: 'example.*', mentions: /only wildcard/ },
    { text: 'Network(domain:*)', names: 'Network(domain:*)', mentions: /only wildcard|not a host name/ },
    { text: 'Network(domain:example.com:0)', names: '0', mentions: /not a port/ },
    { text: 'Network(domain:example.com:65536)', names: '65536', mentions: /not a port/ },
    { text: 'Network(domain:example.com:22x)', names: '22x', mentions: /not a port/ },
    { text: 'Network(domain:user@example.com)', names: 'user@example.com', mentions: /user information/ },
    { text: 'Network(domain:*.10.0.0.1)', names: 'Network(domain:*.10.0.0.1)', mentions: /no subdomains/ },
    { text: 'Network(domain:[::1)', names: 'Network(domain:[::1)', mentions: /not a host name/ },
    { text: 'Network(example.com)', names: 'Network(example.com)', mentions: /domain:<host>/ },
    { text: 'TaskStop(task_1)', names: 'TaskStop(task_1)', mentions: /takes no specifier/ },
    { text: 'mcp__srv__query(x)', names: 'mcp__srv__query(x)', mentions: /takes no specifier/ },
    { text: 'Bash(FOO=1)', names: 'Bash(FOO=1)', mentions: /invalid command pattern: pattern names no command/ },
    { text: "Bash(echo 'unclosed)", names: "Bash(echo 'unclosed)", mentions: /invalid command pattern/ },
  ];
  it.each(cases)('$text is rejected', ({ text, names, mentions }) => {
    const r = parseRule(text);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toContain(`"${names}"`);
    expect(r.error).toMatch(mentions);
  });

  it.each(['', '   ', '\t\n'])('empty rule %j is rejected', (text) => {
    const r = parseRule(text);
    expect(r).toEqual({ ok: false, error: 'empty rule' });
  });
});

describe('parseRules', () => {
  it('keeps valid rules in order and reports every invalid one, naming the field and the rule', () => {
    const bad = ['', 'Bash(', 'Bash()', 'Read)x', 'a b', 'Bash*(x)', 'Bash(a(b)'];
    const { rules, problems } = parseRules('disallowed_tools', ['Read', ...bad, 'Bash(git status)', '*']);
    expect(rules.map((r) => r.text)).toEqual(['Read', 'Bash(git status)', '*']);
    expect(problems).toHaveLength(bad.length);
    bad.forEach((text, i) => {
      const p = problems[i]!;
      expect(p.startsWith(`disallowed_tools[${i + 1}]: invalid rule `)).toBe(true);
      expect(p).toContain(JSON.stringify(text));
    });
  });

  it('returns no problems for an all-valid list and nothing for an empty one', () => {
    expect(parseRules('allowed_tools', ['*', 'mcp__srv__*', 'Bash(npm run test:*)'])).toMatchObject({
      rules: [
        { text: '*', tool: '*', specifier: null, kind: 'name' },
        { text: 'mcp__srv__*', tool: 'mcp__srv__*', specifier: null, kind: 'name' },
        { text: 'Bash(npm run test:*)', tool: 'Bash', specifier: 'npm run test:*', kind: 'command' },
      ],
      problems: [],
    });
    expect(parseRules('ask_rules', [])).toEqual({ rules: [], problems: [] });
  });
});

describe('name rules', () => {
  const cases: { rule: string; tool: string; match: boolean }[] = [
    { rule: '*', tool: 'Read', match: true },
    { rule: '*', tool: 'mcp__srv__x', match: true },
    { rule: 'Read', tool: 'Read', match: true },
    { rule: 'Read', tool: 'read', match: false },
    { rule: 'Read', tool: 'ReadMcpResource', match: false },
    { rule: 'Read', tool: 'Write', match: false },
    { rule: 'mcp__srv__*', tool: 'mcp__srv__query', match: true },
    { rule: 'mcp__srv__*', tool: 'mcp__srv2__query', match: false },
    { rule: 'mcp__srv__*', tool: 'mcp__other__query', match: false },
    { rule: 'mcp__srv__*', tool: 'Bash', match: false },
    { rule: 'mcp__srv__query', tool: 'mcp__srv__query', match: true },
    { rule: 'mcp__srv__query', tool: 'mcp__srv__query2', match: false },
  ];
  it.each(cases)('rule $rule vs tool $tool → $match (deny, ask and allow alike)', ({ rule, tool, match }) => {
    const c = { toolName: tool, subject: { kind: 'none' as const }, root: '/ws' };
    const r = [mustParse(rule)];
    expect(firstLenientMatch(r, 'deny', c) !== undefined).toBe(match);
    expect(firstLenientMatch(r, 'ask', c) !== undefined).toBe(match);
    expect(allowingRules(r, c) !== null).toBe(match);
  });

  it('a rule with a specifier never matches a call without a subject of its kind', () => {
    const c = { toolName: 'Bash', subject: { kind: 'none' as const }, root: '/ws' };
    for (const text of ['Bash(git status)', 'Bash(*)', 'Read(**)']) {
      const r: ParsedRule[] = [mustParse(text)];
      expect(firstLenientMatch(r, 'deny', c)).toBeUndefined();
      expect(allowingRules(r, c)).toBeNull();
    }
  });
});
