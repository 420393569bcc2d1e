// EnterPlanMode and ExitPlanMode. Entering is an effect (the session switches to `plan` and
// remembers the mode before it). Exiting always asks a person with the plan — whatever the
// mode and the allow rules; the approval fills in `next_mode` (the mode the person chose, or
// the one before plan mode) as its updated input, and the call's effect switches to it. A
// denial keeps plan mode and its message reaches the model as the result. The request, with
// the plan in its input, and its decisions are the plan's record.
import { Type, type Static } from '@sinclair/typebox';
import { PERMISSION_MODES, type PermissionMode } from '../../contract/schemas.js';
import { defineTool, textOutput } from '../../tools/tool.js';
import { ENTER_PLAN_MODE_DESCRIPTION } from './enter-plan-mode.description.js';
import { EXIT_PLAN_MODE_DESCRIPTION } from './exit-plan-mode.description.js';

export const MAX_PLAN_CHARS = 100_000;

export interface PlanDeps {
  planState(): { mode: PermissionMode; before: PermissionMode | null };
}

const EnterInput = Type.Object({}, { additionalProperties: false });
type EnterInput = Static<typeof EnterInput>;

export const enterPlanModeTool = defineTool<EnterInput, PlanDeps>({
  name: 'EnterPlanMode',
  description: ENTER_PLAN_MODE_DESCRIPTION,
  inputSchema: EnterInput,
  // Entering plan mode only narrows what may run.
  isReadOnly: () => true,
  isConcurrencySafe: () => false,
  requiresApproval: () => false,
  async call(_input, _ctx, deps) {
    const { mode } = deps.planState();
    if (mode === 'plan') return textOutput('The session is already in plan mode. Explore with read-only tools, then present your plan with ExitPlanMode.');
    return {
      content: [
        {
          type: 'text',
          text:
            `Entered plan mode (the mode before was ${mode}; approving your plan returns to it unless the user picks another). ` +
            'Explore with read-only tools only — no edits, no commands that change anything — then present a concrete plan with ExitPlanMode.',
        },
      ],
      effects: [{ kind: 'set_mode', mode: 'plan' }],
    };
  },
});

const ExitInput = Type.Object(
  {
    plan: Type.String({ minLength: 1, maxLength: MAX_PLAN_CHARS, description: 'The plan, in Markdown: steps, files to change, how the result will be verified' }),
    next_mode: Type.Optional(
      Type.Union(
        PERMISSION_MODES.filter((m) => m !== 'plan').map((m) => Type.Literal(m)),
        { description: 'Leave out: the approval fills it in with the mode the person chose (a value given here is replaced)' },
      ),
    ),
  },
  { additionalProperties: false },
);
type ExitInput = Static<typeof ExitInput>;

export const exitPlanModeTool = defineTool<ExitInput, PlanDeps>({
  name: 'ExitPlanMode',
  description: EXIT_PLAN_MODE_DESCRIPTION,
  inputSchema: ExitInput,
  isReadOnly: () => false,
  isConcurrencySafe: () => false,
  requiresApproval: () => true,
  interactive: true,
  preview: async (input) => ({ preview: { kind: 'plan', plan: input.plan } }),
  checkPermissions: async (_input, _ctx, deps) => {
    const { mode, before } = deps.planState();
    if (mode !== 'plan') return { behavior: 'deny', reason: `ExitPlanMode: the session is not in plan mode (it is in ${mode} mode); there is no plan to approve` };
    if (before === 'dontAsk' || before === 'auto') {
      return { behavior: 'deny', reason: `ExitPlanMode: the session entered plan mode from ${before} mode, where nobody answers; a client can change the mode with PATCH` };
    }
    return { behavior: 'ask', always: true, reason: 'a person approves the plan before plan mode ends' };
  },
  async call(input, _ctx, deps) {
    const next = input.next_mode ?? deps.planState().before ?? 'default';
    return {
      content: [{ type: 'text', text: `The user approved your plan. The session is now in ${next} mode: carry out the plan, keeping the todo list current.` }],
      effects: [{ kind: 'set_mode', mode: next }],
    };
  },
});
