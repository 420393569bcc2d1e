// What waits for a person across a tenant's sessions (API.md "An inbox for people"): GET
// /v1/pending lists permission requests and questions, each with the session it belongs to.
import { Type, type Static } from '@sinclair/typebox';
import { OneOf, ref } from './common.js';
import { PermissionModeSchema, PermissionRequestSchema } from './permission.js';
import { QuestionSchema } from './question.js';

export const PendingSessionSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.Union([Type.String(), Type.Null()]),
    labels: Type.Record(Type.String(), Type.String()),
    permission_mode: ref(PermissionModeSchema),
  },
  { $id: 'PendingSession', description: 'The session a pending item belongs to, as a person needs it to decide' },
);

export const PendingPermissionSchema = Type.Object(
  {
    kind: Type.Literal('permission'),
    session: ref(PendingSessionSchema),
    permission: ref(PermissionRequestSchema),
  },
  { $id: 'PendingPermission', description: 'A permission request; answer with POST /v1/sessions/{session_id}/permissions/{id}' },
);

export const PendingQuestionSchema = Type.Object(
  {
    kind: Type.Literal('question'),
    session: ref(PendingSessionSchema),
    question: ref(QuestionSchema),
  },
  { $id: 'PendingQuestion', description: 'A question; answer with POST /v1/sessions/{session_id}/questions/{id}' },
);

export const PendingItemSchema = OneOf([ref(PendingPermissionSchema), ref(PendingQuestionSchema)], {
  $id: 'PendingItem',
  discriminator: 'kind',
  description: 'Something waiting for a person',
});
export type PendingItem = Static<typeof PendingItemSchema>;

export const PendingListSchema = Type.Object(
  {
    items: Type.Array(ref(PendingItemSchema), { description: 'Oldest first' }),
    next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `cursor` for the next page' }),
  },
  { $id: 'PendingList' },
);
export type PendingList = Static<typeof PendingListSchema>;
