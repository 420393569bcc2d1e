// EnterPlanMode's manual for the model.

export const ENTER_PLAN_MODE_DESCRIPTION = `Switches the session to plan mode: from now on only read-only tools run (Read, \
Glob, Grep, LS, searches, AskUser, TodoWrite) and anything that changes files or runs commands is refused, until \
the user approves a plan you present with ExitPlanMode.

Use it before a non-trivial change whose approach the user should agree to first: several files, an \
architectural choice, unclear requirements, or anything hard to undo. Explore, then write the plan.

Do not use it for small, obvious changes, for pure research or questions (just answer), or when you are \
already in plan mode.`;
