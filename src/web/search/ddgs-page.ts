// DuckDuckGo's HTML results page → results. Runs in the HTML worker thread (src/web/html-worker.ts):
// a hostile page of millions of nested elements must not hold the server's event loop.
import { collapse, decodeEntities, htmlparser2, httpUrl, INLINE_ELEMENTS, SKIPPED_CONTENT } from './text.js';
import { SearchError, type SearchResult } from './types.js';

/**
 * The organic results of html.duckduckgo.com: `.result` blocks, ads (`.result--ad`) skipped; the
 * title is `a.result__a`'s text, its href usually a `//duckduckgo.com/l/?uddg=<target>` redirect;
 * the snippet is `.result__snippet`'s text. A bot challenge instead of results is an error.
 */
export function parseDdgHtml(html: string, fail: (message: string) => Error = (m) => new SearchError(`ddgs: ${m}`, { backend: 'ddgs' })): SearchResult[] {
  const out: SearchResult[] = [];
  // One pass of a streaming parser (linear, no tree, no recursion: a page of a million nested
  // elements costs a million steps). Open elements are a stack of their text roles.
  interface Open {
    inline: boolean;
    /** This element starts the current result block / its title link / its snippet. */
    role: 'result' | 'ad' | 'link' | 'snippet' | null;
  }
  const stack: Open[] = [];
  let result: { href: string | null; title: string[]; snippet: string[] | null; ad: boolean } | null = null;
  let capture: string[] | null = null;
  let skip = 0;
  let challenge = false;
  const parser = new (htmlparser2().Parser)(
    {
      onopentag(name, attrs) {
        const classes = (attrs.class ?? '').split(/\s+/);
        let role: Open['role'] = null;
        if (SKIPPED_CONTENT.has(name)) skip++;
        if (attrs.id === 'challenge-form' || (name === 'form' && /challenge|anomaly/i.test(attrs.action ?? ''))) challenge = true;
        if (result === null && classes.includes('result')) {
          result = { href: null, title: [], snippet: null, ad: classes.includes('result--ad') || classes.includes('result--ads') };
          role = 'result';
        } else if (result !== null && capture === null) {
          if (name === 'a' && classes.includes('result__a') && result.href === null) {
            result.href = decodeEntities(attrs.href ?? '');
            capture = result.title;
            role = 'link';
          } else if (classes.includes('result__snippet') && result.snippet === null) {
            result.snippet = [];
            capture = result.snippet;
            role = 'snippet';
          }
        }
        const inline = INLINE_ELEMENTS.has(name);
        if (capture !== null && role === null) capture.push(name === 'br' || !inline ? ' ' : '');
        stack.push({ inline, role });
      },
      ontext(text) {
        if (capture !== null && skip === 0) capture.push(decodeEntities(text));
      },
      onclosetag(name) {
        const el = stack.pop();
        if (SKIPPED_CONTENT.has(name) && skip > 0) skip--;
        if (el === undefined) return;
        if (el.role === 'link' || el.role === 'snippet') capture = null;
        else if (capture !== null && !el.inline) capture.push(' ');
        if (el.role === 'result' && result !== null) {
          const r = result;
          result = null;
          capture = null;
          const url = r.href === null ? null : ddgTarget(r.href);
          if (!r.ad && url !== null) {
            const title = collapse(r.title.join(''));
            out.push({ title: title || url, url, snippet: r.snippet === null ? '' : collapse(r.snippet.join('')) });
          }
        }
      },
    },
    { decodeEntities: false, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.end(html);
  if (out.length === 0 && (challenge || /anomaly|bots use DuckDuckGo/i.test(html))) {
    throw fail('DuckDuckGo refused the request: it answered with a bot challenge (anomaly page) instead of results; try again later or use another backend (NORMA_WEBSEARCH_BACKEND)');
  }
  return out;
}

/** The target of a result link: the `uddg` parameter of a DuckDuckGo redirect, or the href itself; null for ads and others. */
function ddgTarget(href: string): string | null {
  let u: URL;
  try {
    u = new URL(href.trim(), 'https://html.duckduckgo.com/');
  } catch {
    return null;
  }
  const host = u.hostname.toLowerCase();
  if (host === 'duckduckgo.com' || host.endsWith('.duckduckgo.com')) {
    if (u.pathname !== '/l/' && u.pathname !== '/l') return null; // y.js (ads) and the like
    const target = u.searchParams.get('uddg');
    return target === null ? null : httpUrl(target);
  }
  return httpUrl(u.href);
}
