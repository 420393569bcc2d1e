// Field schemas several resources embed (timestamps, permission rule strings). They are not
// registered components, and the public index does not export them.
import { Type } from '@sinclair/typebox';
import './formats.js';

export const Timestamp = (description: string) => Type.String({ format: 'date-time', description });

export const RuleString = Type.String({
  minLength: 1,
  maxLength: 1024,
  description:
    'A permission rule: `*`, a tool name, `mcp__server__*`, `Bash(<command pattern>)`, `Read(<path glob>)` / `Edit(<path glob>)` ' +
    '(or Write, MultiEdit, LS, Glob, Grep), `Memory(/memories/<path glob>)`, `WebFetch(domain:<host>[:port])`, `Network(domain:<host>[:port])` (connections of sandboxed processes) or `Skill(<name>)`; docs/PERMISSIONS.md gives the matching rules',
});
