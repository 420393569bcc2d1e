// The shared transport's pure parts: retry-after, backoff, the provider's error message and the
// abortable sleep.
import { describe, expect, it } from 'vitest';
import { abortableSleep, backoffMs, errorDetail, parseRetryAfter } from '../../src/model/http.js';

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-08-12T10:00:00Z');
  it.each([
    [{ 'retry-after': '3' }, 3],
    [{ 'retry-after': ' 1.5 ' }, 1.5],
    [{ 'retry-after': '0' }, 0],
    [{ 'retry-after': 'Tue, 12 Aug 2025 10:00:07 GMT' }, 7],
    [{ 'retry-after': 'Tue, 12 Aug 2025 09:59:00 GMT' }, 0],
    [{ 'retry-after-ms': '250', 'retry-after': '9' }, 0.25],
    [{ 'retry-after': ['4', '8'] }, 4],
    [{ 'retry-after': 'soon' }, undefined],
    [{}, undefined],
  ])('%j → %s s', (headers, expected) => {
    expect(parseRetryAfter(headers, now)).toBe(expected);
  });
});

describe('backoffMs', () => {
  it('doubles from the base, with jitter over the upper half, capped', () => {
    const policy = { maxRetries: 5, baseDelayMs: 100, maxDelayMs: 1000 };
    for (let i = 0; i < 50; i++) {
      const d0 = backoffMs(policy, 0);
      expect(d0).toBeGreaterThanOrEqual(50);
      expect(d0).toBeLessThanOrEqual(100);
      const d2 = backoffMs(policy, 2);
      expect(d2).toBeGreaterThanOrEqual(200);
      expect(d2).toBeLessThanOrEqual(400);
      const d9 = backoffMs(policy, 9);
      expect(d9).toBeGreaterThanOrEqual(500);
      expect(d9).toBeLessThanOrEqual(1000);
    }
  });
});

describe('errorDetail', () => {
  it.each([
    ['{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}', 'overloaded_error: Overloaded'],
    ['{\n    "error": {\n        "message": "Bad key",\n        "type": "invalid_request_error",\n        "param": null,\n        "code": "invalid_api_key"\n    }\n}\n', 'invalid_request_error: Bad key'],
    ['{"error":{"message":"no type here"}}', 'no type here'],
    ['{"error":{"message":"Conflict","code":409}}', '409: Conflict'],
    ['{"error":"model \\"x\\" not found"}', 'model "x" not found'],
    ['{"object":"error","message":"max_tokens is too large","type":"BadRequestError","param":null,"code":400}', 'BadRequestError: max_tokens is too large'],
    ['{"detail":"Not Found"}', 'Not Found'],
    ['<html>\n<body>502 Bad Gateway</body>\n</html>', '<html> <body>502 Bad Gateway</body> </html>'],
    ['', ''],
    ['[1,2]', '[1,2]'],
  ])('%s → %s', (body, expected) => {
    expect(errorDetail(body)).toBe(expected);
  });

  it('keeps at most 500 characters', () => {
    const detail = errorDetail(JSON.stringify({ error: { message: 'y'.repeat(2000) } }));
    expect(detail).toBe(`${'y'.repeat(500)}…`);
  });
});

describe('abortableSleep', () => {
  it('resolves after the delay', async () => {
    const started = Date.now();
    await abortableSleep(20, new AbortController().signal);
    expect(Date.now() - started).toBeGreaterThanOrEqual(15);
  });

  it('rejects with the reason as soon as the signal aborts, or at once when it already has', async () => {
    const ac = new AbortController();
    const reason = new Error('stop');
    const started = Date.now();
    setTimeout(() => ac.abort(reason), 10);
    await expect(abortableSleep(60_000, ac.signal)).rejects.toBe(reason);
    expect(Date.now() - started).toBeLessThan(1000);
    await expect(abortableSleep(60_000, ac.signal)).rejects.toBe(reason);
  });
});
