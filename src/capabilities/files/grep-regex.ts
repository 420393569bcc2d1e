// The fallback's regex: ripgrep (Rust regex) syntax translated to a JavaScript RegExp with the
// same line semantics as ripgrep:
//   - `.` never matches "\n" (but does match "\r", unlike a plain JS `.`);
//   - `^`/`$` are line anchors that only know "\n" (JS `m` mode also treats "\r", U+2028 as ends);
//   - `\A`/`\z` are start/end of the searched text; `(?P<name>…)` is a named group;
//   - `[[:alpha:]]`-style POSIX classes, `\pL`, `\x{…}`, a leading `(?i)`/`(?s)` are understood;
//   - without multiline, a pattern that could only match "\n" is an error, as in ripgrep.
// Known differences (JavaScript semantics apply): `\w`, `\d`, `\b` are ASCII-only; look-around
// and backreferences are accepted (ripgrep refuses them); nested classes and class set
// operations (`[a&&b]`), inline flags other than a leading (?i)/(?s) are refused.

export class GrepRegexError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GrepRegexError';
  }
}

const POSIX_CLASSES: Record<string, string> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  ascii: '\\x00-\\x7F',
  blank: '\\t ',
  cntrl: '\\x00-\\x1F\\x7F',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-\\/:-@\\[-`{-~',
  space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z',
  word: '0-9A-Za-z_',
  xdigit: '0-9A-Fa-f',
};

/** Characters JavaScript's `u` mode allows after a backslash as themselves. */
const JS_SYNTAX = new Set(['^', '$', '\\', '.', '*', '+', '?', '(', ')', '[', ']', '{', '}', '|', '/']);

// Worded like ripgrep's refusal.
const NEWLINE_ERROR = 'the literal \'"\\n"\' is not allowed in a regex\n\nConsider enabling multiline mode (multiline: true); then new line characters can be matched.';

/** The RegExp (flags `u`, maybe `i`; never `g`) for a ripgrep pattern. */
export function translateRegex(pattern: string, opts: { ignoreCase: boolean; multiline: boolean }): RegExp {
  let p = pattern;
  let ignoreCase = opts.ignoreCase;
  let dotAll = false;
  const lead = /^\(\?([a-zA-Z]+)\)/.exec(p);
  if (lead) {
    for (const f of lead[1]!) {
      if (f === 'i') ignoreCase = true;
      else if (f === 's') dotAll = true;
      else throw new GrepRegexError(`regex parse error: inline flag "${f}" is not supported by the built-in search (only a leading (?i) or (?s))`);
    }
    p = p.slice(lead[0].length);
  }

  let out = '';
  let inClass = false;
  let classContentStart = -1;
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    if (c === '\\') {
      const d = p[i + 1];
      if (d === undefined) throw new GrepRegexError('regex parse error: incomplete escape sequence at the end of the pattern');
      i++;
      if (d === 'n' && !opts.multiline) throw new GrepRegexError(NEWLINE_ERROR);
      if (d === 'x' && p[i + 1] === '{') {
        const close = p.indexOf('}', i + 2);
        if (close < 0) throw new GrepRegexError('regex parse error: unclosed \\x{…} escape');
        out += `\\u{${p.slice(i + 2, close)}}`;
        i = close;
      } else if ((d === 'p' || d === 'P') && p[i + 1] !== '{' && p[i + 1] !== undefined) {
        out += `\\${d}{${p[i + 1]}}`;
        i++;
      } else if (d === 'A' && !inClass) {
        out += '(?<![\\s\\S])';
      } else if (d === 'z' && !inClass) {
        out += '(?![\\s\\S])';
      } else if (/[A-Za-z0-9]/.test(d)) {
        out += `\\${d}`;
      } else if (JS_SYNTAX.has(d) || (inClass && d === '-')) {
        out += `\\${d}`;
      } else {
        // An escaped punctuation character JavaScript does not allow escaping: the character itself.
        out += d === '\n' ? '\\n' : d;
      }
      continue;
    }
    if (c === '\n' && !opts.multiline) throw new GrepRegexError(NEWLINE_ERROR);
    if (inClass) {
      if (c === '[' && p[i + 1] === ':') {
        const close = p.indexOf(':]', i + 2);
        const name = close < 0 ? '' : p.slice(i + 2, close);
        const negated = name.startsWith('^');
        const cls = POSIX_CLASSES[negated ? name.slice(1) : name];
        if (cls === undefined || negated) throw new GrepRegexError(`regex parse error: unsupported POSIX class "[:${name}:]"`);
        out += cls;
        i = close + 1;
      } else if (c === '[') {
        throw new GrepRegexError('regex parse error: nested character classes are not supported by the built-in search');
      } else if (c === '&' && p[i + 1] === '&') {
        throw new GrepRegexError('regex parse error: class set operations (&&) are not supported by the built-in search');
      } else if (c === ']' && i === classContentStart) {
        out += '\\]'; // a leading `]` is a member
      } else if (c === ']') {
        inClass = false;
        out += ']';
      } else {
        out += c;
      }
      continue;
    }
    switch (c) {
      case '[':
        inClass = true;
        out += '[';
        if (p[i + 1] === '^') {
          out += '^';
          i++;
        }
        classContentStart = i + 1;
        break;
      case '.':
        out += dotAll ? '[\\s\\S]' : '[^\\n]';
        break;
      case '^':
        out += '(?<![^\\n])';
        break;
      case '$':
        out += '(?![^\\n])';
        break;
      case '{': {
        // A repetition `{n}`, `{n,}`, `{n,m}`; anything else is an error, as in ripgrep.
        const m = /^\{(\d+)(,(\d*))?\}/.exec(p.slice(i));
        if (!m) throw new GrepRegexError('regex parse error: repetition quantifier expects a valid decimal (escape a literal "{" as "\\{")');
        out += m[0];
        i += m[0].length - 1;
        break;
      }
      case '}':
        out += '\\}';
        break;
      case '(':
        if (p.startsWith('(?P<', i)) {
          out += '(?<';
          i += 3;
        } else {
          out += '(';
        }
        break;
      default:
        out += c;
    }
  }
  if (inClass) throw new GrepRegexError('regex parse error: unclosed character class');

  const flags = `u${ignoreCase ? 'i' : ''}`;
  try {
    return new RegExp(out, flags);
  } catch (err) {
    // V8 says "Invalid regular expression: /<translated source>/<flags>: <problem>": keep the problem.
    const problem = (err as Error).message.split(': ').pop() ?? String(err);
    throw new GrepRegexError(`regex parse error: ${problem} in ${JSON.stringify(pattern)}`);
  }
}
