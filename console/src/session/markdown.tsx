// Markdown from the model (a plan), rendered with marked and sanitised with DOMPurify: links
// open in a new tab without opener or referrer, no remote image is loaded, no inline style.
import DOMPurify from 'dompurify';
import { Marked } from 'marked';
import { useMemo } from 'preact/hooks';

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const marked = new Marked({
  gfm: true,
  async: false,
  renderer: {
    // Raw HTML in the Markdown is shown as text: a plan needs none, and markup never reaches
    // the sanitiser's parser (where Chrome reports blocked inline handlers as CSP violations).
    html({ text }) {
      return escapeHtml(text);
    },
    // A remote image becomes a link to it: nothing is fetched while reading the plan.
    image({ href, text }) {
      if (/^data:image\//i.test(href)) return false;
      const a = document.createElement('a');
      a.href = href;
      a.textContent = text || href;
      return a.outerHTML;
    },
  },
});

DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A' && node.hasAttribute('href')) {
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
  if (node.tagName === 'IMG' && !/^data:image\//i.test(node.getAttribute('src') ?? '')) node.removeAttribute('src');
});

/** Sanitised HTML of a Markdown text. */
export function renderMarkdown(text: string): string {
  const html = marked.parse(text) as string;
  return DOMPurify.sanitize(html, {
    FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select'],
    FORBID_ATTR: ['style', 'srcset'],
  });
}

export function Markdown({ text, label }: { text: string; label?: string }) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  return <div class="markdown" aria-label={label} role={label ? 'region' : undefined} dangerouslySetInnerHTML={{ __html: html }} />;
}
