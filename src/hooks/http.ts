// HTTP hooks: the event's JSON is POSTed to the hook's URL through the egress guard (checked,
// resolved once, pinned; private targets only when the operator allowlisted them), with a
// timeout. With a `secret`, the request carries `X-Norma-Timestamp` and `X-Norma-Signature:
// sha256=<hex HMAC-SHA256 of "<timestamp>.<body>">` so the receiver can verify and reject
// replays. A 2xx answer's JSON body is honoured like a command hook's stdout; an empty body
// changes nothing; any other status or invalid JSON is a reported, non-blocking error. A
// refused URL, an unreachable server or the timeout is a failure (fail-closed in PreToolUse).
// The request goes through the tools' egress client, so it leaves the same evidence record.
import { createHmac } from 'node:crypto';
import { EgressRefusal, type EgressPolicy } from '../sandbox/egress.js';
import { egressFetcher } from '../egress/client.js';
import type { EgressEvidence } from '../egress/types.js';
import { parseHookJson } from './command.js';
import { Redactor } from '../redact.js';
import { HookNonBlockingError, type HookCallback, type HookInput, type HookOutput } from './registry.js';
import { parsePeerJson } from '../json-depth.js';

const MAX_RESPONSE_BYTES = 256 * 1024;

/** Receives the evidence of a hook's outbound request, with the event input it carried and the hook's name. */
export type HookEvidenceSink = (evidence: EgressEvidence, input: HookInput, hook: string) => void;

export function signBody(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

export function httpHook(
  url: string,
  secret: string | undefined,
  egress: EgressPolicy,
  timeoutMs: number,
  evidence?: (e: EgressEvidence, input: HookInput) => void,
  /** The session's secrets (and the server's); the hook's own is added. */
  redactor: Redactor = Redactor.NONE,
): HookCallback {
  // What the hook's server answers is a peer's text: it may echo the hook's secret or another
  // one, in any encoding. Errors and every string of the answer pass the redactor before they
  // become a hook run, a decision, an event or what the model reads.
  const redact = redactor.with([secret]);
  const call = async (input: HookInput, signal: AbortSignal): Promise<HookOutput | void> => {
    const body = JSON.stringify(input);
    const timestamp = String(Math.floor(Date.now() / 1000));
    const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'norma-server-hook' };
    if (secret) {
      headers['x-norma-timestamp'] = timestamp;
      headers['x-norma-signature'] = signBody(secret, timestamp, body);
    }
    const fetch = egressFetcher({ policy: egress, ...(evidence ? { onEvidence: (e) => evidence(e, input) } : {}) });
    let res;
    try {
      // No redirects: a 3xx is answered as a status that is not 2xx.
      res = await fetch({ url, method: 'POST', headers, body, redirects: 'none', maxBytes: MAX_RESPONSE_BYTES, timeoutMs, signal });
    } catch (err) {
      if (err instanceof EgressRefusal) throw new Error(`refused by the egress guard: ${err.message}`);
      throw err;
    }
    if (res.truncated) throw new HookNonBlockingError(`answered more than ${MAX_RESPONSE_BYTES} bytes`);
    const text = res.body.toString('utf8');
    // Redacted before it is cut to 500 characters.
    if (res.status < 200 || res.status > 299) throw new HookNonBlockingError(`answered HTTP ${res.status}${text ? `: ${redact.redact(text).slice(0, 500)}` : ''}`);
    if (text.trim() === '') return;
    let parsed: HookOutput;
    try {
      parsed = parseHookJson(parsePeerJson(text));
    } catch (err) {
      throw new HookNonBlockingError(`answered a body that is not a JSON object (${(err as Error).message})`);
    }
    return redact.redactDeep(parsed);
  };
  return async (input, signal) => {
    try {
      return await call(input, signal);
    } catch (err) {
      if (!(err instanceof Error)) throw err;
      const message = redact.redact(err.message);
      if (message === err.message) throw err;
      throw err instanceof HookNonBlockingError ? new HookNonBlockingError(message) : new Error(message);
    }
  };
}
