import { describe, expect, it } from 'vitest';
import { parseHookJson } from '../../src/hooks/command.js';

describe('parseHookJson: the fields a command hook may print', () => {
  it.each([
    [{ decision: 'block', reason: 'r' }, { decision: 'deny', reason: 'r' }],
    [{ decision: 'approve' }, { decision: 'allow' }],
    [{ permissionDecision: 'ask', permissionDecisionReason: 'why' }, { decision: 'ask', reason: 'why' }],
    [{ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'no' } }, { decision: 'deny', reason: 'no' }],
    [{ hookSpecificOutput: { updatedInput: { a: 1 }, additionalContext: 'ctx' } }, { updatedInput: { a: 1 }, additionalContext: 'ctx' }],
    [{ continue: false, stopReason: 'enough' }, { continue: false, stopReason: 'enough' }],
    [{ continue: true }, {}],
    [{ updatedToolOutput: 'replaced' }, { updatedOutput: 'replaced' }],
    [{ hookSpecificOutput: { permissionDecision: 'allow' }, decision: 'deny' }, { decision: 'allow' }],
    [{ additionalContext: '' }, {}],
  ])('%j → %j', (input, expected) => {
    expect(parseHookJson(input)).toEqual(expected);
  });

  it.each([[null], [[1, 2]], ['text'], [{ decision: 'maybe' }], [{ permissionDecision: 3 }]])('refuses %j', (input) => {
    expect(() => parseHookJson(input)).toThrow();
  });
});
