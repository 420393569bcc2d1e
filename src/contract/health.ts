// Liveness and readiness reports.
import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from './common.js';

export const HealthSchema = Type.Object({ status: Type.Literal('ok') }, { $id: 'Health' });
export const ReadinessSchema = Type.Object(
  {
    status: StringEnum(['ready', 'unready']),
    node_id: Type.String({ description: 'This replica (NORMA_NODE_ID; default: the host name). Replicas sharing a PostgreSQL database each have their own.' }),
    checks: Type.Array(
      Type.Object({
        name: Type.String(),
        ok: Type.Boolean(),
        required: Type.Boolean({ description: 'Whether readiness depends on this check' }),
        detail: Type.String(),
      }),
    ),
  },
  { $id: 'Readiness' },
);
export type Readiness = Static<typeof ReadinessSchema>;
