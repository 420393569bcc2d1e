// How SearchExtraTools picks deferred tools (rankTools): `select:` by exact name, `/regex/` over
// names and descriptions, keywords ranked (name parts over names over descriptions), `+required`,
// ties by name, at most `max`, and nothing when nothing matches.
import { describe, expect, it } from 'vitest';
import { rankTools, type RegexMatcher } from '../../../src/capabilities/deferred/rank.js';
import type { DeferredToolInfo } from '../../../src/tools/capability.js';

const tool = (name: string, description: string): DeferredToolInfo => ({ name, description, input_schema: { type: 'object', title: name } });

const TOOLS: DeferredToolInfo[] = [
  tool('mcp__github__create_issue', 'Open a new issue in a GitHub repository.'),
  tool('mcp__github__list_prs', 'List the pull requests of a repository.'),
  tool('mcp__slack__post_message', 'Post a message to a Slack channel.'),
  tool('WebFetch', 'Downloads a page and converts it to markdown.'),
  tool('Notes', 'Keeps notes about the web pages you visited.'),
  tool('Grep', 'Searches file contents with a regular expression.'),
  tool('Glob', 'Finds files by name pattern.'),
];

/** A plain matcher (the tool uses one that runs with a time budget), recording what it was given. */
function recordingMatcher(): RegexMatcher & { calls: { source: string; flags: string; texts: readonly string[] }[] } {
  const calls: { source: string; flags: string; texts: readonly string[] }[] = [];
  const fn = ((source: string, flags: string, texts: readonly string[]) => {
    calls.push({ source, flags, texts });
    const r = new RegExp(source, flags);
    return texts.map((t) => r.test(t));
  }) as RegexMatcher & { calls: typeof calls };
  fn.calls = calls;
  return fn;
}
const noRegex: RegexMatcher = () => {
  throw new Error('the regex matcher must not be used for this query');
};
const names = (found: DeferredToolInfo[]) => found.map((t) => t.name);

describe('select:', () => {
  it('returns the named tools in the order asked, ignoring unknown names and blanks', () => {
    expect(names(rankTools(TOOLS, 'select:Grep,WebFetch', 5, noRegex))).toEqual(['Grep', 'WebFetch']);
    expect(names(rankTools(TOOLS, 'select:WebFetch,Grep', 5, noRegex))).toEqual(['WebFetch', 'Grep']);
    expect(names(rankTools(TOOLS, 'select: Glob , nope,, mcp__slack__post_message', 5, noRegex))).toEqual(['Glob', 'mcp__slack__post_message']);
    expect(names(rankTools(TOOLS, 'SELECT:Grep', 5, noRegex))).toEqual(['Grep']);
  });

  it('matches names exactly (no case folding, no prefixes or patterns) and returns the tool whole', () => {
    expect(rankTools(TOOLS, 'select:grep,Gre,G*,mcp__github', 5, noRegex)).toEqual([]);
    expect(rankTools(TOOLS, 'select:', 5, noRegex)).toEqual([]);
    const [found] = rankTools(TOOLS, 'select:Glob', 5, noRegex);
    expect(found).toBe(TOOLS[6]);
  });

  it('honours max', () => {
    expect(names(rankTools(TOOLS, 'select:Grep,Glob,WebFetch,Notes', 2, noRegex))).toEqual(['Grep', 'Glob']);
    expect(names(rankTools(TOOLS, 'select:Grep,Glob,WebFetch,Notes', 1, noRegex))).toEqual(['Grep']);
  });
});

describe('/regex/', () => {
  it('matches over the name and the description, in registration order, with the flags given', () => {
    const m = recordingMatcher();
    expect(names(rankTools(TOOLS, '/^Gl/', 5, m))).toEqual(['Glob']);
    expect(m.calls).toHaveLength(1);
    expect(m.calls[0]!.source).toBe('^Gl');
    expect(m.calls[0]!.flags).toBe('');
    // Each text is the name, a newline, then the description.
    expect(m.calls[0]!.texts[5]).toBe('Grep\nSearches file contents with a regular expression.');
    expect(m.calls[0]!.texts).toHaveLength(TOOLS.length);

    // A description match counts; the result keeps the tools' order.
    expect(names(rankTools(TOOLS, '/repository/', 5, m))).toEqual(['mcp__github__create_issue', 'mcp__github__list_prs']);
    expect(names(rankTools(TOOLS, '/^mcp__(github|slack)__/', 5, m))).toEqual(['mcp__github__create_issue', 'mcp__github__list_prs', 'mcp__slack__post_message']);
    // Flags pass through (deduplicated); case matters without `i`.
    expect(rankTools(TOOLS, '/GITHUB/', 5, m)).toEqual([]);
    expect(names(rankTools(TOOLS, '/GITHUB/ii', 5, m))).toEqual(['mcp__github__create_issue', 'mcp__github__list_prs']);
    expect(m.calls.at(-1)!.flags).toBe('i');
  });

  it('honours max, and matching nothing is an empty list', () => {
    const m = recordingMatcher();
    expect(names(rankTools(TOOLS, '/e/', 2, m))).toEqual(['mcp__github__create_issue', 'mcp__github__list_prs']);
    expect(rankTools(TOOLS, '/^zzz$/', 5, m)).toEqual([]);
  });

  it('errors of the matcher (an invalid or too slow regex) reach the caller', () => {
    const failing: RegexMatcher = () => {
      throw new Error('too slow');
    };
    expect(() => rankTools(TOOLS, '/(a+)+$/', 5, failing)).toThrow('too slow');
  });

  it('looks at no more than the first 2000 characters of a description', () => {
    const long = [tool('Long', `${'x'.repeat(2000)} needle`), tool('Short', 'needle')];
    const m = recordingMatcher();
    expect(names(rankTools(long, '/needle/', 5, m))).toEqual(['Short']);
    expect(m.calls[0]!.texts[0]).toHaveLength('Long\n'.length + 2000);
  });
});

describe('keywords', () => {
  it('a match on a word of the name outranks a match in the description', () => {
    // WebFetch has `web` as a name part; Notes only mentions the web in its description.
    expect(names(rankTools(TOOLS, 'web', 5, noRegex))).toEqual(['WebFetch', 'Notes']);
    // An exact name part (slack) outranks a description mention (Slack in another tool's description would count less).
    const tools = [tool('Alpha', 'Talks to slack for you.'), tool('mcp__slack__send', 'Sends.')];
    expect(names(rankTools(tools, 'slack', 5, noRegex))).toEqual(['mcp__slack__send', 'Alpha']);
    // A name part outranks a part of a name word, which outranks the description.
    const parts = [tool('Zed', 'Handles issues.'), tool('Issuer', 'Does things.'), tool('mcp__x__issue', 'Does things.')];
    expect(names(rankTools(parts, 'issue', 5, noRegex))).toEqual(['mcp__x__issue', 'Issuer', 'Zed']);
  });

  it('sums the terms: a tool matching more of them ranks first; matching none leaves it out', () => {
    expect(names(rankTools(TOOLS, 'github issue', 5, noRegex))).toEqual(['mcp__github__create_issue', 'mcp__github__list_prs']);
    expect(names(rankTools(TOOLS, 'create issue github', 5, noRegex))[0]).toBe('mcp__github__create_issue');
    expect(names(rankTools(TOOLS, 'GITHUB Issue', 5, noRegex))).toEqual(['mcp__github__create_issue', 'mcp__github__list_prs']);
  });

  it('`+term` is required (in the name or description); others only rank', () => {
    expect(names(rankTools(TOOLS, '+slack message', 5, noRegex))).toEqual(['mcp__slack__post_message']);
    expect(names(rankTools(TOOLS, '+github +issue', 5, noRegex))).toEqual(['mcp__github__create_issue']);
    // `+pull` is only in list_prs's description; `issue` alone would have ranked create_issue first.
    expect(names(rankTools(TOOLS, '+pull issue', 5, noRegex))).toEqual(['mcp__github__list_prs']);
    expect(rankTools(TOOLS, '+nothing github', 5, noRegex)).toEqual([]);
    // A lone `+` is no term.
    expect(names(rankTools(TOOLS, '+ slack', 5, noRegex))).toEqual(['mcp__slack__post_message']);
  });

  it('ties go by name', () => {
    const tied = [tool('Charlie', 'does the thing'), tool('alpha', 'does the thing'), tool('Bravo', 'does the thing')];
    expect(names(rankTools(tied, 'thing', 5, noRegex))).toEqual(['alpha', 'Bravo', 'Charlie']);
  });

  it('honours max, keeping the best', () => {
    expect(names(rankTools(TOOLS, 'web', 1, noRegex))).toEqual(['WebFetch']);
    const all = rankTools(TOOLS, 'a', 20, noRegex);
    expect(all.length).toBeGreaterThan(3);
    expect(rankTools(TOOLS, 'a', 3, noRegex)).toEqual(all.slice(0, 3));
  });

  it('matching nothing (or no tools) is an empty list', () => {
    expect(rankTools(TOOLS, 'zzzqqq', 5, noRegex)).toEqual([]);
    expect(rankTools([], 'github', 5, noRegex)).toEqual([]);
    expect(rankTools([], 'select:Grep', 5, noRegex)).toEqual([]);
    expect(rankTools([], '/x/', 5, recordingMatcher())).toEqual([]);
  });

  it('regex characters in keywords are literal', () => {
    const tools = [tool('Calc', 'Evaluates a+b (sums).'), tool('Other', 'aab')];
    expect(names(rankTools(tools, 'a+b', 5, noRegex))).toEqual(['Calc']);
    expect(names(rankTools(tools, '(sums)', 5, noRegex))).toEqual(['Calc']);
  });
});
