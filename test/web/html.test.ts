// HTML → Markdown for WebFetch, and its worker thread: content picked out, links absolute, unsafe
// links and scripts dropped; a conversion past its time limit falls back to plain text; huge pages
// are converted from their beginning.
import { afterAll, describe, expect, it } from 'vitest';
import { FALLBACK_HTML_CHARS, HtmlConverter, MAX_HTML_CHARS } from '../../src/web/html-convert.js';

const converter = new HtmlConverter();
afterAll(() => converter.close());
const convertHtml: HtmlConverter['convert'] = (html, url, opts) => converter.convert(html, url, opts);
import { htmlToMarkdown, htmlToPlainText } from '../../src/web/html-markdown.js';

const article = (body: string) =>
  `<!doctype html><html><head><title>Page title</title><style>p{}</style></head><body>
  <header><nav><a href="/">Home</a></nav></header>
  <main><article><h1>Heading</h1>${body}</article></main>
  <footer>© footer</footer><script>track()</script></body></html>`;
const long = '<p>' + 'A sentence long enough to count as content for a reader view. '.repeat(8) + '</p>';

describe('htmlToMarkdown', () => {
  it('keeps the article, as Markdown, with absolute links and images', () => {
    const { title, markdown } = htmlToMarkdown(
      article(`${long}<p>Read <a href="../guide/intro.html?x=1#top">the guide</a>, see <img src="/i/logo.png" alt="logo">.</p><h2>Code</h2><pre><code>npm test</code></pre><ol><li>one</li><li>two</li></ol>`),
      'https://docs.example.com/a/b/page.html',
    );
    expect(title).toBe('Page title');
    expect(markdown).toContain('[the guide](https://docs.example.com/a/guide/intro.html?x=1#top)');
    expect(markdown).toContain('![logo](https://docs.example.com/i/logo.png)');
    expect(markdown).toContain('## Code');
    expect(markdown).toContain('```\nnpm test\n```');
    expect(markdown).toMatch(/1\.\s+one\n2\.\s+two/);
    expect(markdown).not.toContain('track()');
    expect(markdown).not.toContain('p{}');
  });

  it('drops javascript: and data: links but keeps their text; short pages fall back to the whole body', () => {
    const { markdown } = htmlToMarkdown('<html><body><p>Click <a href="javascript:alert(1)">here</a> or <a href="data:text/html,x">there</a>.</p></body></html>', 'https://e.com/');
    expect(markdown).toBe('Click here or there.');
  });

  it('plain-text fallback strips tags, scripts and entities', () => {
    expect(htmlToPlainText('<p>a &amp; b</p><script>x()</script><div>c&lt;d</div>')).toBe('a & b\nc<d');
  });
});

describe('convertHtml (worker thread)', () => {
  it('converts in the worker', async () => {
    const r = await convertHtml(article(long), 'https://e.com/');
    expect(r).toMatchObject({ mode: 'markdown', title: 'Page title', omittedChars: 0 });
    expect(r.markdown).toContain('# Heading');
  });

  it('falls back to plain text when the conversion passes its time limit, and recovers afterwards', async () => {
    const big = article(long.repeat(3000));
    const slow = await convertHtml(big, 'https://e.com/', { timeoutMs: 1 });
    expect(slow.mode).toBe('text');
    expect(slow.markdown).toContain('A sentence long enough');
    expect(slow.markdown).not.toContain('<p>');
    const again = await convertHtml(article(long), 'https://e.com/');
    expect(again.mode).toBe('markdown');
  });

  it('converts only the first MAX_HTML_CHARS of a huge page (the fallback the first FALLBACK_HTML_CHARS), and says how much was left out', async () => {
    const huge = `<html><body><p>start</p>${'x'.repeat(MAX_HTML_CHARS)}</body></html>`;
    const r = await convertHtml(huge, 'https://e.com/', { timeoutMs: 1 });
    expect(r.mode).toBe('text');
    expect(r.omittedChars).toBe(huge.length - FALLBACK_HTML_CHARS);
    expect(r.markdown.startsWith('start\nxxx')).toBe(true);
    expect(r.markdown.length).toBeLessThanOrEqual(FALLBACK_HTML_CHARS);
  });

  it('the plain-text fallback stays linear on hostile markup, and keeps what is text', () => {
    const n = 200_000;
    expect(htmlToPlainText(`${'<'.repeat(n)}end`)).toBe(`${'<'.repeat(n)}end`);
    expect(htmlToPlainText(`a<b${'<a'.repeat(n)}`)).toBe(`a<b${'<a'.repeat(n)}`.replace(/^a<b/, 'a<b'));
    expect(htmlToPlainText(`${'<div>'.repeat(n)}deep${'</div>'.repeat(n)}`)).toBe('deep');
    expect(htmlToPlainText(`x${'<script>'.repeat(n)}never closed`)).toBe('x');
    expect(htmlToPlainText(`x${'<!--'.repeat(n)}`)).toBe('x');
    expect(htmlToPlainText(`a${' '.repeat(n)}b${' \n '.repeat(n)}c`)).toBe('a b\nc');
    expect(htmlToPlainText('<p>one &amp; two &lt;three&gt;</p><p>four&nbsp;five</p><br>six')).toBe('one & two <three>\nfour five\nsix');
  });

  it('a cancelled call rejects with the reason', async () => {
    const controller = new AbortController();
    const pending = convertHtml(article(long.repeat(2000)), 'https://e.com/', { signal: controller.signal });
    controller.abort(new Error('turn cancelled'));
    await expect(pending).rejects.toThrow('turn cancelled');
  });
});
