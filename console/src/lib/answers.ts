// The bodies of answers to permission requests and questions (PermissionResponse and
// QuestionResponse in openapi.json), built from what the person chose.
import type { PermissionMode, QuestionItem } from './types.js';

export type PermissionAnswer =
  | { behavior: 'allow'; remember?: string[]; mode?: Exclude<PermissionMode, 'plan'> }
  | { behavior: 'deny'; message?: string; interrupt?: boolean };

/** The modes ExitPlanMode's approval may switch to (empty: the mode before plan mode). */
export const PLAN_EXIT_MODES = ['default', 'acceptEdits', 'bypassPermissions', 'dontAsk', 'auto'] as const;

export function allowAnswer(remember: readonly string[], mode = ''): PermissionAnswer {
  const chosen = PLAN_EXIT_MODES.find((m) => m === mode);
  return {
    behavior: 'allow',
    ...(remember.length ? { remember: [...remember] } : {}),
    ...(chosen ? { mode: chosen } : {}),
  };
}

export function denyAnswer(message: string, interrupt: boolean): PermissionAnswer {
  const text = message.trim();
  return { behavior: 'deny', ...(text ? { message: text } : {}), ...(interrupt ? { interrupt: true } : {}) };
}

/** What a person picked for one question: option labels, and free text in `Other answer`. */
export interface QuestionChoice {
  labels: readonly string[];
  other: string;
}

export type QuestionAnswer = { answers: Record<string, string | string[]> } | { dismiss: true };

/**
 * The answers, or what is missing. Free text wins over picked options (it is what the person
 * typed last to say something the options do not); several labels only for multiSelect.
 */
export function questionAnswer(questions: readonly QuestionItem[], choices: readonly (QuestionChoice | undefined)[]): { body: QuestionAnswer } | { missing: string[] } {
  const answers: Record<string, string | string[]> = {};
  const missing: string[] = [];
  questions.forEach((q, i) => {
    const choice = choices[i];
    const other = choice?.other.trim() ?? '';
    const labels = (choice?.labels ?? []).filter((l) => q.options.some((o) => o.label === l));
    if (other) answers[q.question] = other;
    else if (labels.length && q.multiSelect) answers[q.question] = [...labels];
    else if (labels.length) answers[q.question] = labels[0]!;
    else missing.push(q.question);
  });
  return missing.length ? { missing } : { body: { answers } };
}
