// Budgets and what model calls cost: the `budget` a session or a prompt turn is given, the usage
// the server counts (tokens as the provider reported them, US dollars from the price table), and
// the input of a `Budget` permission request.
import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from './common.js';

/** The most a budget may name, in US dollars (a typo of a few zeros is refused, not obeyed). */
export const MAX_BUDGET_USD = 1_000_000;

export const BudgetSchema = Type.Object(
  {
    max_usd: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        maximum: MAX_BUDGET_USD,
        description: 'What model calls may cost, in US dollars (the session\'s model needs a known price: NORMA_MODEL_PRICES or a built-in one)',
      }),
    ),
    max_tokens: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000_000_000, description: 'Input plus output tokens model calls may use' })),
  },
  {
    $id: 'Budget',
    additionalProperties: false,
    minProperties: 1,
    description:
      'A limit on model calls: checked before each call with the call\'s worst case (its input and max_tokens of output); reaching it pauses the turn with a `Budget` permission request, or ends it with `budget_exceeded` where nobody can be asked (dontAsk, auto)',
  },
);
export type Budget = Static<typeof BudgetSchema>;

export const UsageSchema = Type.Object(
  {
    input_tokens: Type.Integer({ description: 'Every input token, cached ones included' }),
    output_tokens: Type.Integer({ description: 'Output tokens, thinking included' }),
    cache_read_input_tokens: Type.Optional(Type.Integer({ description: 'Of input_tokens: read from the provider\'s prompt cache' })),
    cache_creation_input_tokens: Type.Optional(Type.Integer({ description: 'Of input_tokens: written to the provider\'s prompt cache' })),
    cost_usd: Type.Optional(
      Type.Union([Type.Number(), Type.Null()], {
        description: 'What the calls cost in US dollars, from the operator\'s price table (NORMA_MODEL_PRICES) or the built-in one; null when the model\'s price is not known (never a guess)',
      }),
    ),
    estimated_calls: Type.Optional(
      Type.Integer({ description: 'Calls whose provider reported no usage: they are counted at their worst case (their input estimate and max_tokens)' }),
    ),
  },
  { $id: 'Usage', description: 'Tokens as the provider counted them and their cost (summed over model calls)' },
);
export type UsageTotals = Static<typeof UsageSchema>;

export const SessionUsageSchema = Type.Composite(
  [UsageSchema, Type.Object({ model_calls: Type.Integer({ description: 'Model calls made, subagents\' included' }) })],
  { $id: 'SessionUsage', description: 'What all the session\'s model calls used and cost' },
);
export type SessionUsage = Static<typeof SessionUsageSchema>;

export const BUDGET_SCOPES = ['turn', 'session', 'tenant'] as const;
export type BudgetScope = (typeof BUDGET_SCOPES)[number];

export const BudgetAskSchema = Type.Object(
  {
    scope: StringEnum(BUDGET_SCOPES, { description: '`turn`: the turn\'s `budget`; `session`: the session\'s; `tenant`: the tenant\'s max_usd_per_day (this UTC day)' }),
    unit: StringEnum(['usd', 'tokens']),
    spent: Type.Number({ description: 'Spent so far in the scope' }),
    limit: Type.Number({ description: 'The scope\'s limit' }),
    next_call_max: Type.Number({ description: 'What the next model call may cost at most (its worst case)' }),
  },
  {
    $id: 'BudgetAsk',
    description:
      'The input of a `tool: "Budget"` permission request. Allow lets the next model call go on; allow with `updated_input: {"limit": N}` raises the turn\'s or session\'s limit to N (above what is spent; a key with `write`). A tenant\'s limit is the operator\'s: no answer lets a turn past it (400); the request is decided when the operator raises it, or denied',
  },
);
export type BudgetAsk = Static<typeof BudgetAskSchema>;
