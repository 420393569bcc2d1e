// Questions a call asks a person (the AskUser tool, API.md "Questions"): what is asked, and how
// a person answers or dismisses it.
import { Type, type Static } from '@sinclair/typebox';
import { Id, OneOf, ref, StringEnum } from './common.js';
import { Timestamp } from './fields.js';

const QuestionOption = Type.Object(
  {
    label: Type.String({ minLength: 1, maxLength: 200, description: 'What the person picks (and what the answer names)' }),
    description: Type.Optional(Type.String({ maxLength: 1000, description: 'What choosing it means' })),
  },
  { additionalProperties: false },
);

const questionItemProperties = {
  question: Type.String({ minLength: 1, maxLength: 2000, description: 'The question, ending with a question mark; unique within the call' }),
  header: Type.Optional(Type.String({ minLength: 1, maxLength: 40, description: 'A very short label shown as a chip or tag (e.g. "Auth method")' })),
  options: Type.Array(QuestionOption, { minItems: 2, maxItems: 4, description: '2–4 choices; a person may also answer in free text' }),
  multiSelect: Type.Optional(Type.Boolean({ default: false, description: 'Several options may be chosen' })),
};

/** One question as AskUser takes it (self-contained: a tool's input schema has no `$ref`s). */
export const QuestionItemInput = Type.Object(questionItemProperties, { additionalProperties: false });

export const QuestionItemSchema = Type.Object(questionItemProperties, { $id: 'QuestionItem', additionalProperties: false });
export type QuestionItem = Static<typeof QuestionItemSchema>;

export const QUESTION_STATUSES = ['pending', 'answered', 'dismissed', 'timed_out', 'cancelled'] as const;
export type QuestionStatus = (typeof QUESTION_STATUSES)[number];

export const QuestionSchema = Type.Object(
  {
    id: Id('Server-made question id (`q_…`)'),
    session_id: Type.String(),
    turn_id: Type.String(),
    tool_use_id: Type.String(),
    questions: Type.Array(ref(QuestionItemSchema)),
    status: StringEnum(QUESTION_STATUSES),
    answers: Type.Optional(
      Type.Record(Type.String(), Type.Union([Type.String(), Type.Array(Type.String())]), {
        description: 'Answered: for each question text, the chosen label (or labels, multiSelect) or a free-text answer',
      }),
    ),
    response: Type.Optional(Type.String({ description: 'Free text the person added to the answers' })),
    message: Type.Optional(Type.String({ description: 'Dismissed, timed out or cancelled: why, as the model is told' })),
    resolved_by: Type.Optional(
      StringEnum(['client', 'timeout', 'cancel', 'session_closed'], {
        description: 'Who or what resolved the question',
      }),
    ),
    answered_by: Type.Optional(Type.String({ description: 'With resolved_by `client`: the name of the API key that answered (absent without keys)' })),
    created_at: Timestamp('Creation time'),
    resolved_at: Type.Optional(Timestamp('Resolution time')),
  },
  { $id: 'Question' },
);
export type Question = Static<typeof QuestionSchema>;

export const QuestionListSchema = Type.Object({ items: Type.Array(ref(QuestionSchema)) }, { $id: 'QuestionList' });

export const QuestionResponseSchema = OneOf(
  [
    Type.Object(
      {
        answers: Type.Record(
          Type.String({ minLength: 1, maxLength: 2000 }),
          Type.Union([Type.String({ minLength: 1, maxLength: 10_000 }), Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: 4 })]),
          {
            description:
              'For each question text: the label of an offered option, several labels (multiSelect), or free text. Every question needs an answer unless `response` says it all.',
          },
        ),
        response: Type.Optional(Type.String({ minLength: 1, maxLength: 10_000, description: 'Free text for the model besides (or instead of) the choices' })),
      },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        dismiss: Type.Literal(true),
        message: Type.Optional(Type.String({ maxLength: 10_000, description: 'Why, for the model' })),
      },
      { additionalProperties: false },
    ),
  ],
  { $id: 'QuestionResponse', description: 'Answers (`answers`, optional `response`), or a dismissal (`dismiss: true`)' },
);
export type QuestionResponse = Static<typeof QuestionResponseSchema>;
