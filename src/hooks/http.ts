// HTTP hooks: the event's JSON is POSTed to the hook's URL through the egress guard (checked,
// resolved once, pinned; private targets only when the operator allowlisted them), with a
// timeout. With a `secret`, the request carries `X-Norma-Timestamp` and `X-Norma-Signature:
// sha256=<hex HMAC-SHA256 of "<timestamp>.<body>">` so the receiver can verify and reject
// replays. A 2xx answer's JSON body is honoured like a command hook's stdout; an empty body
// changes nothing; any other status or invalid JSON is a reported, non-blocking error. A
// refused URL, an unreachable server or the timeout is a failure (fail-closed in PreToolUse).
import { createHmac } from 'node:crypto';
import { request } from 'undici';
import { checkTarget, EgressRefusal, pinnedAgent, type EgressPolicy } from '../sandbox/egress.js';
import { parseHookJson } from './command.js';
import { HookNonBlockingError, type HookCallback, type HookOutput } from './registry.js';

const MAX_RESPONSE_BYTES = 256 * 1024;

export function signBody(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

export function httpHook(url: string, secret: string | undefined, egress: EgressPolicy, timeoutMs: number): HookCallback {
  return async (input, signal): Promise<HookOutput | void> => {
    let target;
    try {
      target = await checkTarget(url, egress);
    } catch (err) {
      if (err instanceof EgressRefusal) throw new Error(`refused by the egress guard: ${err.message}`);
      throw err;
    }
    const body = JSON.stringify(input);
    const timestamp = String(Math.floor(Date.now() / 1000));
    const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'norma-server-hook' };
    if (secret) {
      headers['x-norma-timestamp'] = timestamp;
      headers['x-norma-signature'] = signBody(secret, timestamp, body);
    }
    const agent = pinnedAgent(target, timeoutMs);
    try {
      // undici does not follow redirects here: a 3xx is answered as a non-2xx status.
      const res = await request(target.url, { method: 'POST', body, headers, dispatcher: agent, signal });
      let text = '';
      for await (const chunk of res.body) {
        text += chunk.toString('utf8');
        if (text.length > MAX_RESPONSE_BYTES) {
          res.body.destroy();
          throw new HookNonBlockingError(`answered more than ${MAX_RESPONSE_BYTES} bytes`);
        }
      }
      if (res.statusCode < 200 || res.statusCode > 299) throw new HookNonBlockingError(`answered HTTP ${res.statusCode}${text ? `: ${text.slice(0, 500)}` : ''}`);
      if (text.trim() === '') return;
      try {
        return parseHookJson(JSON.parse(text));
      } catch (err) {
        throw new HookNonBlockingError(`answered a body that is not a JSON object (${(err as Error).message})`);
      }
    } finally {
      await agent.close().catch(() => undefined);
    }
  };
}
