// ExitPlanMode's manual for the model.

export const EXIT_PLAN_MODE_DESCRIPTION = `Presents your plan to the user for approval and, once approved, leaves plan mode \
so you can carry it out. Always asks a person: the turn pauses until they approve (possibly choosing the \
mode to continue in) or reject it with feedback; after a rejection you are still in plan mode — revise \
the plan using their message and present it again.

Use it only in plan mode, when you have finished exploring and the plan is concrete: the steps, the files \
you will change, how you will verify the result. Write \`plan\` in Markdown, concise.

Do not use it to ask questions (use AskUser), for research tasks that need no implementation, or outside plan mode.`;
