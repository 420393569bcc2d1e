// AskUser's manual for the model: when asking a person beats guessing, and when it does not.

export const ASK_USER_DESCRIPTION = `Asks the user 1–4 multiple-choice questions and waits for the answers (the turn pauses \
until a person answers, dismisses the questions, or they time out).

Use it when you need a decision only the user can make — a preference, a choice between approaches with \
real trade-offs, missing requirements, or ambiguous instructions — and guessing wrong would waste work. \
Ask everything you need in one call. Each question has 2–4 short, distinct options (\`label\`, and a \
\`description\` of what choosing it means); put the option you recommend first and add "(Recommended)" \
to its label. Set \`multiSelect\` when several options may apply. The user may always answer in their own \
words instead. \`header\` is a very short tag for the question (at most 40 characters).

Do not use it for things you can find out yourself (read the code, run a command), to ask permission for \
a tool call (calls that need approval are asked about automatically), or to ask whether a plan is ready \
(use ExitPlanMode in plan mode). In sessions without a person (dontAsk, auto) it fails at once.`;
