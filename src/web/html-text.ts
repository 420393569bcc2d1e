// The plain-text fallback for WebFetch, apart from the Markdown conversion so that the server's
// main thread never loads the HTML parser (linkedom, Readability and turndown load in the worker).

/**
 * A fast, rough fallback: the page's text without tags (used when the conversion takes too long).
 * One pass over the page with indexOf steps that only move forward, so it is linear whatever the
 * page holds (unclosed `<`, endless `<script`, megabytes of nesting): it runs on the event loop.
 */
export function htmlToPlainText(html: string): string {
  const lower = html.toLowerCase();
  const parts: string[] = [];
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf('<', i);
    if (lt === -1) {
      parts.push(html.slice(i));
      break;
    }
    if (lt > i) parts.push(html.slice(i, lt));
    if (lower.startsWith('<!--', lt)) {
      const end = html.indexOf('-->', lt + 4);
      i = end === -1 ? html.length : end + 3;
      parts.push(' ');
      continue;
    }
    const gt = html.indexOf('>', lt + 1);
    // An unclosed `<` is text, not the start of a tag that swallows the rest.
    if (gt === -1) {
      parts.push(html.slice(lt));
      break;
    }
    const closing = lower.charCodeAt(lt + 1) === 0x2f;
    const name = tagName(lower, closing ? lt + 2 : lt + 1, gt);
    i = gt + 1;
    if (!closing && SKIPPED.has(name)) {
      const close = lower.indexOf(`</${name}`, i);
      const end = close === -1 ? -1 : html.indexOf('>', close);
      i = end === -1 ? html.length : end + 1;
      parts.push(' ');
      continue;
    }
    // One separator for a run of tags (a million nested tags leave one, not a million).
    const sep = BREAKS.has(name) && (closing || name === 'br') ? '\n' : ' ';
    const last = parts[parts.length - 1];
    if (last === ' ' && sep === '\n') parts[parts.length - 1] = sep;
    else if (last !== sep && last !== '\n') parts.push(sep);
  }
  return collapseWhitespace(decodeBasicEntities(parts.join('')));
}

/** The lower-case tag name starting at `from` (letters and digits), at most up to `end`. */
function tagName(lower: string, from: number, end: number): string {
  let j = from;
  while (j < end && j - from < 16) {
    const c = lower.charCodeAt(j);
    if (!((c >= 0x61 && c <= 0x7a) || (j > from && c >= 0x30 && c <= 0x39))) break;
    j++;
  }
  return lower.slice(from, j);
}

const SKIPPED = new Set(['script', 'style', 'noscript', 'template']);
const BREAKS = new Set(['br', 'p', 'div', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'li', 'tr']);

function decodeBasicEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text
    .replaceAll('&nbsp;', ' ')
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&#x27;', "'")
    .replaceAll('&amp;', '&');
}

/**
 * Runs of blanks to one space; a line break with the blanks around it to one newline. Each
 * pattern fails at once where it does not match (no run is scanned twice): linear.
 */
function collapseWhitespace(text: string): string {
  return text
    .replace(/[ \t\f\v]+/g, ' ')
    .replace(/ ?[\r\n][\r\n ]*/g, '\n')
    .trim();
}
