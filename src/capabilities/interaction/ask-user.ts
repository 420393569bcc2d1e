// AskUser: questions for a person. The call pauses through the same broker as permission
// requests (a stored question, `question.asked`, the questions routes, timeout, cancellation,
// restart resume); the tool_result states the answers or the dismissal.
import { Type, type Static } from '@sinclair/typebox';
import { QuestionItemInput, type QuestionItem } from '../../contract/schemas.js';
import type { QuestionAnswer, QuestionAsk } from '../../interaction/kinds.js';
import { defineTool, textOutput, type ToolContext } from '../../tools/tool.js';
import { ASK_USER_DESCRIPTION } from './ask-user.description.js';

const AskUserInput = Type.Object(
  {
    questions: Type.Array(QuestionItemInput, { minItems: 1, maxItems: 4, description: '1–4 questions, each with 2–4 options' }),
  },
  { additionalProperties: false },
);
type AskUserInput = Static<typeof AskUserInput>;

export interface AskUserDeps {
  askQuestions(ask: QuestionAsk, ctx: ToolContext): Promise<QuestionAnswer>;
}

/** What the schema cannot say: question texts are unique (answers are keyed by them), and so are a question's labels. */
export function questionProblems(questions: readonly QuestionItem[]): string[] {
  const problems: string[] = [];
  const texts = new Set<string>();
  for (const [i, q] of questions.entries()) {
    if (texts.has(q.question)) problems.push(`/questions/${i}/question: the question ${JSON.stringify(q.question)} is asked twice (answers are keyed by the question text)`);
    texts.add(q.question);
    const labels = new Set<string>();
    for (const [j, o] of q.options.entries()) {
      if (labels.has(o.label)) problems.push(`/questions/${i}/options/${j}/label: the option ${JSON.stringify(o.label)} is offered twice`);
      labels.add(o.label);
    }
  }
  return problems;
}

export const askUserTool = defineTool<AskUserInput, AskUserDeps>({
  name: 'AskUser',
  description: ASK_USER_DESCRIPTION,
  inputSchema: AskUserInput,
  // Asking changes nothing; the person's answer is the point. It may wait alongside other
  // read-only calls of its group (a turn can wait on a question and a permission request at once).
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  requiresApproval: () => false,
  interactive: true,
  checkInput: (input) => questionProblems(input.questions),
  async call(input, ctx, deps) {
    const outcome = await deps.askQuestions({ toolUseId: ctx.toolUseId, questions: input.questions }, ctx);
    return resultOf(input.questions, outcome);
  },
});

/** The tool_result: each question with its answer (an offered option, or the person's own words), or why there is none. */
export function resultOf(questions: readonly QuestionItem[], outcome: QuestionAnswer) {
  switch (outcome.outcome) {
    case 'cancelled':
      return textOutput(`The questions were not answered: ${outcome.reason}.`, true);
    case 'dismissed': {
      const why = outcome.message ? `: ${outcome.message}` : '';
      return textOutput(
        outcome.by === 'timeout'
          ? `The user did not answer the questions (${outcome.message ?? 'timed out'}). Go on with your best judgement or stop and explain what you need.`
          : `The user dismissed the questions without answering${why}. Do not ask the same again; go on with what you know or ask differently.`,
        true,
      );
    }
    case 'answered': {
      const lines = questions.map((q) => {
        const a = outcome.answers[q.question];
        if (a === undefined) return `- ${JSON.stringify(q.question)}: (no answer)`;
        if (Array.isArray(a)) return `- ${JSON.stringify(q.question)}: ${a.map((x) => JSON.stringify(x)).join(', ')}`;
        const offered = q.options.some((o) => o.label === a);
        return `- ${JSON.stringify(q.question)}: ${offered ? JSON.stringify(a) : `(in the user's own words) ${JSON.stringify(a)}`}`;
      });
      const response = outcome.response !== undefined ? `\nThe user added: ${outcome.response}` : '';
      return textOutput(`The user answered your questions:\n${lines.join('\n')}${response}\nGo on with these answers in mind.`);
    }
  }
}
