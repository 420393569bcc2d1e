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

export { htmlToPlainText } from './html-text.js';
