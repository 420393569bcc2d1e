// WebFetch: one URL through the egress guard (src/egress/client.ts). HTML becomes Markdown,
// text and JSON come as they are, binaries are refused. Redirects on the same host are followed
// (each hop checked again); a redirect to another host is reported, not followed, so the model has
// to fetch the new URL itself — and that call meets the permission rules for the new host.
// Answers are cached per session for 15 minutes.
import { Type, type Static } from '@sinclair/typebox';
import { EgressRefusal } from '../../sandbox/egress.js';
import { EgressFailure } from '../../egress/types.js';
import { defineTool, textOutput, ToolRefusal, type ToolOutput } from '../../tools/tool.js';
import type { WebDeps } from './deps.js';
import { WEB_FETCH_DESCRIPTION } from './web-fetch.description.js';
import { parsePeerJson } from '../../json-depth.js';

const WebFetchInput = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 4096, description: 'An http(s) URL' }),
    prompt: Type.Optional(Type.String({ maxLength: 10_000, description: 'What you want from the page; repeated above the content' })),
  },
  { additionalProperties: false },
);
type WebFetchInput = Static<typeof WebFetchInput>;

const TEXTUAL = /^(text\/|application\/(json|xml|xhtml\+xml|javascript|ecmascript|x-www-form-urlencoded|ld\+json|rss\+xml|atom\+xml|x-ndjson|yaml|x-yaml|toml)|[^;]*\+(json|xml)\b)/i;

/** How much of an error page is read (and redacted) for the 2,000 characters of it the model sees. */
const ERROR_PAGE_READ_BYTES = 64 * 1024;

export const webFetchTool = defineTool<WebFetchInput, WebDeps>({
  name: 'WebFetch',
  description: WEB_FETCH_DESCRIPTION,
  inputSchema: WebFetchInput,
  permissionSubject: (input) => {
    let host = '';
    let port: number | undefined;
    try {
      const u = new URL(input.url);
      host = u.hostname.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
      port = Number(u.port || (u.protocol === 'http:' ? 80 : 443));
    } catch {
      host = '';
    }
    return { kind: 'url', url: input.url, host, ...(port !== undefined ? { port } : {}) };
  },
  // An outbound request is an effect (a URL can carry data out): it is asked about unless a rule allows the domain.
  isReadOnly: () => false,
  isConcurrencySafe: () => true,
  requiresApproval: () => true,
  async call(input, ctx, deps) {
    const web = deps.state;
    const redact = web.redact ?? ((text: string) => text);
    const cached = web.cache.get(input.url);
    if (cached) {
      const note = `(From this session's 15-minute cache: fetched at ${new Date(cached.at).toISOString()}.)`;
      return { ...cached.output, content: [...withPrompt(input.prompt, cached.output).content, { type: 'text', text: note }] };
    }
    let res;
    try {
      res = await deps.fetcher(ctx, 'WebFetch')({
        url: input.url,
        method: 'GET',
        headers: {
          accept: 'text/html, application/xhtml+xml, text/markdown, text/plain, application/json;q=0.9, */*;q=0.1',
          'user-agent': 'NormaServer-WebFetch/1.0',
        },
        redirects: 'same-host',
        maxBytes: web.fetchMaxBytes,
        timeoutMs: web.fetchTimeoutMs,
        signal: ctx.signal,
      });
    } catch (err) {
      if (err instanceof EgressRefusal) throw new ToolRefusal(`Refused by the egress guard: ${err.message}`);
      if (err instanceof EgressFailure) throw new ToolRefusal(`Could not fetch ${input.url}: ${redact(err.message)}`);
      throw err;
    }
    if (res.redirect) {
      return textOutput(
        `${res.url} redirects (HTTP ${res.redirect.status}) to another host: ${res.redirect.location}\n` +
          'It was not followed. To get it, call WebFetch with that URL (the permission rules for its host apply).',
      );
    }
    const type = (res.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    const head = [`URL: ${res.url}`, `Status: ${res.status}`, `Content-Type: ${res.headers['content-type'] ?? '(none)'}`];
    if (res.status >= 400) {
      // Redacted before it is cut (a cut would leave the part of a secret a run needs).
      const snippet = redact(decode(res.body.subarray(0, ERROR_PAGE_READ_BYTES), res.headers['content-type'])).slice(0, 2000).trim();
      return textOutput(`${head.join('\n')}\n\nThe server answered HTTP ${res.status}.${snippet ? `\n\n${snippet}` : ''}`, true);
    }
    const binary = type !== '' ? !TEXTUAL.test(type) : res.body.subarray(0, 8192).includes(0);
    if (binary) {
      throw new ToolRefusal(`${res.url} is binary content (${type || 'unknown type'}, ${res.body.length}${res.truncated ? '+' : ''} bytes); WebFetch returns text, HTML and JSON only.`);
    }
    const text = decode(res.body, res.headers['content-type']);
    let body: string;
    if (type === 'text/html' || type === 'application/xhtml+xml' || (type === '' && /^\s*<(!doctype html|html)/i.test(text))) {
      const page = await deps.html.convert(text, res.url, { signal: ctx.signal, timeoutMs: web.convertTimeoutMs });
      if (page.title) head.push(`Title: ${page.title}`);
      body = page.markdown;
      if (page.mode === 'text') body = `[The page took too long to convert to Markdown: this is its plain text.]\n\n${body}`;
      if (page.omittedChars > 0) body += `\n\n[Only the first ${text.length - page.omittedChars} characters of the page's HTML were converted; ${page.omittedChars} more were left out.]`;
    } else if (type === 'application/json' || type.endsWith('+json')) {
      try {
        body = JSON.stringify(parsePeerJson(text), null, 2);
      } catch {
        body = text;
      }
    } else body = text;
    const parts = [head.join('\n'), body];
    if (res.truncated) parts.push(`[The response was larger than ${web.fetchMaxBytes} bytes; only the first ${web.fetchMaxBytes} were read.]`);
    const output = textOutput(parts.join('\n\n'));
    web.cache.set(input.url, output);
    return withPrompt(input.prompt, output);
  },
});

function withPrompt(prompt: string | undefined, output: ToolOutput): ToolOutput {
  if (!prompt) return output;
  return { ...output, content: [{ type: 'text', text: `Requested: ${prompt}` }, ...output.content] };
}

/** The body as text, in the charset the response names (UTF-8 when it names none or one unknown here). */
function decode(body: Buffer, contentType: string | undefined): string {
  const charset = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType ?? '')?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}
