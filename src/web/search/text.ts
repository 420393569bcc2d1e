// Text out of HTML fragments (Brave's titles and descriptions, DuckDuckGo's results, error bodies) and
// the small string rules every backend shares. htmlparser2 reads the markup; `entities` decodes
// character references as in an attribute value, so a legacy reference without `;` followed by a
// letter, digit or `=` (`&copy=1` in a URL-like snippet) stays as written.
import { lazy } from '../../lazy.js';

export const htmlparser2 = lazy<typeof import('htmlparser2')>('htmlparser2');
const entities = lazy<typeof import('entities')>('entities');

/** HTML fragments (titles, snippets, error bodies) are read up to this many characters. */
const MAX_FRAGMENT_CHARS = 16 * 1024;
/** Longest part of a message quoted from a backend (its error text, a redirect target). */
export const MAX_DETAIL_CHARS = 300;

/** Elements whose content is not text. */
export const SKIPPED_CONTENT = new Set(['script', 'style', 'noscript', 'template']);
/** Inline elements: their boundaries add no space to the text. */
export const INLINE_ELEMENTS = new Set([
  'a', 'abbr', 'b', 'bdi', 'bdo', 'cite', 'code', 'data', 'dfn', 'em', 'font', 'i', 'kbd', 'mark', 'q', 's', 'samp',
  'small', 'span', 'strong', 'sub', 'sup', 'time', 'u', 'var', 'wbr',
]);

/** Decodes character references (named, decimal, hex); unknown names stay as written. */
export function decodeEntities(s: string): string {
  return s.includes('&') ? entities().decodeHTMLAttribute(s) : s;
}

/** The text of HTML in one streaming pass: script/style skipped, block boundaries a space, inline ones nothing. */
function textOfHtml(html: string): string {
  const parts: string[] = [];
  let skip = 0;
  const parser = new (htmlparser2().Parser)(
    {
      onopentag(name) {
        if (SKIPPED_CONTENT.has(name)) skip++;
        else if (name === 'br' || !INLINE_ELEMENTS.has(name)) parts.push(' ');
      },
      ontext(text) {
        if (skip === 0) parts.push(decodeEntities(text));
      },
      onclosetag(name) {
        if (SKIPPED_CONTENT.has(name)) skip = Math.max(0, skip - 1);
        else if (!INLINE_ELEMENTS.has(name)) parts.push(' ');
      },
    },
    { decodeEntities: false, lowerCaseTags: true },
  );
  parser.end(html);
  return parts.join('');
}

/** Text of an HTML fragment (Brave's titles and descriptions carry <strong> and entities). */
export function htmlToText(fragment: string): string {
  return collapse(textOfHtml(fragment.slice(0, MAX_FRAGMENT_CHARS)));
}

/** Text of an error body: markup removed when there is any. */
export function stripTags(s: string): string {
  return textOfHtml(s.slice(0, MAX_FRAGMENT_CHARS));
}

export function collapse(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/** At most `max` characters (code points), with an ellipsis when cut. */
export function truncate(s: string, max: number): string {
  if (s.length <= max) return s;
  const chars = [...s.slice(0, max * 2)];
  if (chars.length <= max && s.length <= max * 2) return s;
  return `${chars.slice(0, max).join('')}…`;
}

/** An absolute http(s) URL, normalised; null otherwise. */
export function httpUrl(s: string): string | null {
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    return null;
  }
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.hostname === '') return null;
  return u.href;
}
