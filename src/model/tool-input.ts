// A model's tool input arrives as JSON text (whole or in streamed fragments). Anything but a JSON
// object is reported on the call (`input_error`), which then gets an is_error tool_result the
// model can correct itself from; it never fails the turn.

import { MAX_JSON_DEPTH, nestedDeeperThan } from '../json-depth.js';

export function parseToolInput(raw: string): { input: unknown; input_error?: string } {
  if (raw.trim() === '') return { input: {} };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    return { input: {}, input_error: `the input is not valid JSON (${(err as Error).message}): ${truncate(raw)}` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { input: {}, input_error: `the input must be a JSON object, got ${truncate(raw)}` };
  }
  if (nestedDeeperThan(value)) return { input: {}, input_error: `the input nests deeper than ${MAX_JSON_DEPTH} levels` };
  return { input: value };
}

function truncate(s: string): string {
  return s.length > 200 ? `${s.slice(0, 200)}…` : s;
}
