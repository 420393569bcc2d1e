// Plan mode: EnterPlanMode (an effect on the session's mode) and ExitPlanMode (a person approves the plan).
import type { Capability } from '../../tools/capability.js';
import { enterPlanModeTool, exitPlanModeTool, type PlanDeps } from './plan-tools.js';

export const planCapability: Capability<PlanDeps> = {
  group: 'plan',
  tools: [enterPlanModeTool, exitPlanModeTool],
  install: (s) => ({ deps: { planState: s.planState } }),
};
