// HTML → Markdown for WebFetch: the page is parsed (linkedom), its main content picked out the way
// reader views do (Readability; the whole body when that finds nothing), links and images made
// absolute against the page's URL, scripts and styles dropped, and the rest converted (turndown).
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';

const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '_' });
turndown.remove(['script', 'style', 'noscript', 'iframe', 'template', 'svg', 'canvas', 'form'] as never);

export interface Converted {
  title: string | null;
  markdown: string;
}

export function htmlToMarkdown(html: string, pageUrl: string): Converted {
  const { document } = prepare(html, pageUrl);
  const pageTitle = document.querySelector('title')?.textContent?.trim() || null;
  let contentHtml: string | null = null;
  let title = pageTitle;
  try {
    // Readability changes the document it reads: on failure the page is parsed again below.
    const article = new Readability(document as never, { charThreshold: 200 }).parse();
    if (article?.content && (article.textContent ?? '').trim().length >= 200) {
      contentHtml = article.content;
      title = article.title?.trim() || pageTitle;
    }
  } catch {
    contentHtml = null;
  }
  contentHtml ??= prepare(html, pageUrl).document.body?.innerHTML ?? html;
  const markdown = turndown
    .turndown(contentHtml)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return { title, markdown };
}

/** Parses the page, drops what is never content, and makes links and images absolute. */
function prepare(html: string, pageUrl: string) {
  const { document } = parseHTML(html);
  for (const el of document.querySelectorAll('script, style, noscript, template')) el.remove();
  for (const [selector, attr] of [
    ['a[href]', 'href'],
    ['img[src]', 'src'],
  ] as const) {
    for (const el of document.querySelectorAll(selector)) {
      const value = el.getAttribute(attr);
      if (value === null) continue;
      try {
        const abs = new URL(value, pageUrl);
        // A javascript: or data: link is not something to follow: keep its text only.
        if (abs.protocol === 'http:' || abs.protocol === 'https:' || abs.protocol === 'mailto:') el.setAttribute(attr, abs.toString());
        else el.removeAttribute(attr);
      } catch {
        el.removeAttribute(attr);
      }
    }
  }
  return { document };
}

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
