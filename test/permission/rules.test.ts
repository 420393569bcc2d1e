import { describe, it, expect } from 'vitest';
import { nameRuleMatcher, parseRule, parseRules, type ParsedRule, type RuleBehavior } from '../../src/permission/rules.js';

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
    expect(r).toEqual({ ok: true, rule: { text, tool, specifier } });
  });

  it('trims surrounding whitespace for matching but keeps the text as written', () => {
    const r = parseRule('  Read  ');
    expect(r).toEqual({ ok: true, rule: { text: '  Read  ', tool: 'Read', specifier: null } });
    const b = parseRule(' Bash(ls -la) ');
    expect(b).toEqual({ ok: true, rule: { text: ' Bash(ls -la) ', tool: 'Bash', specifier: 'ls -la' } });
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
      expect(p.startsWith('disallowed_tools: invalid rule ')).toBe(true);
      expect(p).toContain(JSON.stringify(text));
    });
  });

  it('returns no problems for an all-valid list and nothing for an empty one', () => {
    expect(parseRules('allowed_tools', ['*', 'mcp__srv__*', 'Bash(npm run test:*)'])).toEqual({
      rules: [
        { text: '*', tool: '*', specifier: null },
        { text: 'mcp__srv__*', tool: 'mcp__srv__*', specifier: null },
        { text: 'Bash(npm run test:*)', tool: 'Bash', specifier: 'npm run test:*' },
      ],
      problems: [],
    });
    expect(parseRules('ask_rules', [])).toEqual({ rules: [], problems: [] });
  });
});

describe('nameRuleMatcher', () => {
  const behaviors: RuleBehavior[] = ['allow', 'deny', 'ask'];
  const cases: { rule: string; tool: string; match: boolean }[] = [
    { rule: '*', tool: 'Read', match: true },
    { rule: '*', tool: 'mcp__srv__x', match: true },
    { rule: 'Read', tool: 'Read', match: true },
    { rule: 'Read', tool: 'read', match: false },
    { rule: 'Read', tool: 'ReadMcpResource', match: false },
    { rule: 'Read', tool: 'Write', match: false },
    { rule: 'mcp__srv__*', tool: 'mcp__srv__query', match: true },
    { rule: 'mcp__srv__*', tool: 'mcp__srv__', match: true },
    { rule: 'mcp__srv__*', tool: 'mcp__srv2__query', match: false },
    { rule: 'mcp__srv__*', tool: 'mcp__other__query', match: false },
    { rule: 'mcp__srv__*', tool: 'Bash', match: false },
    { rule: 'mcp__srv__query', tool: 'mcp__srv__query', match: true },
    { rule: 'mcp__srv__query', tool: 'mcp__srv__query2', match: false },
  ];
  for (const behavior of behaviors) {
    it.each(cases)(`${behavior}: rule $rule vs tool $tool → $match`, ({ rule, tool, match }) => {
      expect(nameRuleMatcher.matches(mustParse(rule), behavior, { toolName: tool, input: {} })).toBe(match);
    });
  }

  describe('Name(specifier) rules', () => {
    const specRules = ['Bash(git status)', 'Bash(npm run test:*)', 'Read(src/**)'];
    it.each(specRules)('%s matches every call of its tool for deny and ask', (text) => {
      const rule = mustParse(text);
      for (const input of [{}, { command: 'rm -rf /' }, { file_path: '/etc/passwd' }, null]) {
        expect(nameRuleMatcher.matches(rule, 'deny', { toolName: rule.tool, input })).toBe(true);
        expect(nameRuleMatcher.matches(rule, 'ask', { toolName: rule.tool, input })).toBe(true);
      }
    });

    it.each(specRules)('%s never matches for allow (fail-closed), even with the exact arguments', (text) => {
      const rule = mustParse(text);
      const inputs = [{}, { command: 'git status' }, { command: 'npm run test:unit' }, { file_path: 'src/a.ts' }];
      for (const input of inputs) {
        expect(nameRuleMatcher.matches(rule, 'allow', { toolName: rule.tool, input })).toBe(false);
      }
    });

    it('does not match a different tool for any behavior', () => {
      const rule = mustParse('Bash(git status)');
      for (const b of behaviors) {
        expect(nameRuleMatcher.matches(rule, b, { toolName: 'Read', input: { command: 'git status' } })).toBe(false);
      }
    });
  });
});
