// Shared by the provider tests: a request that records what streams and what is retried, and
// helpers that complete it or expect it to fail with a ProviderError.
import { expect } from 'vitest';
import { ProviderError, type ModelProvider, type ModelRequest, type ModelResponse } from '../../src/model/provider.js';

export interface Run {
  texts: [string, number][];
  retries: { attempt: number; delayMs: number; reason: string }[];
  request: ModelRequest;
}

export function request(over: Partial<ModelRequest> = {}): Run {
  const run: Run = { texts: [], retries: [], request: undefined as never };
  run.request = {
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Say hello' }] }],
    tools: [],
    maxTokens: 1024,
    signal: new AbortController().signal,
    onText: (t, i) => run.texts.push([t, i]),
    onRetry: (r) => run.retries.push(r),
    ...over,
  };
  return run;
}

export async function complete(p: ModelProvider, over: Partial<ModelRequest> = {}): Promise<Run & { result: ModelResponse }> {
  const run = request(over);
  return { ...run, result: await p.complete(run.request) };
}

export async function failure(p: ModelProvider, over: Partial<ModelRequest> = {}): Promise<Run & { err: ProviderError }> {
  const run = request(over);
  const err = await p.complete(run.request).then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  return { ...run, err: err as ProviderError };
}

