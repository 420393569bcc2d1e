// A permission request or a question of a call, asked through an MCP client's elicitation: a form
// a person can answer (allow or deny, and which suggested rule to remember; each question's
// options), and what the client's answer means as an answer of the REST API. An answer that does
// not fit the form answers nothing: the request stays pending for the REST API, the console or the
// timeout.
import type { PermissionRequest, PermissionResponse, Question, QuestionResponse } from '../../contract/schemas.js';
import type { ElicitRequestFormParams, ElicitResult } from '@modelcontextprotocol/sdk/types.js';

/** The longest message shown in a form (a request's reason and preview can be long). */
const MESSAGE_CHARS = 4000;

function shorten(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function inputLine(input: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(input) ?? '';
  } catch {
    text = '';
  }
  return shorten(text, 1500);
}

export function permissionForm(p: PermissionRequest): ElicitRequestFormParams {
  const preview = p.preview ? `\n\n${shorten(JSON.stringify(p.preview), 1500)}` : '';
  const properties: ElicitRequestFormParams['requestedSchema']['properties'] = {
    decision: { type: 'string', title: 'Decision', enum: ['allow', 'deny'], description: `Allow or deny this ${p.tool} call` },
    message: { type: 'string', title: 'Message to the model (when denying)', maxLength: 2000 },
  };
  if (p.suggestions.length > 0) {
    properties.remember = { type: 'string', title: 'Always allow (a rule to remember)', enum: p.suggestions, description: 'Leave empty to allow only this call' };
  }
  return {
    mode: 'form',
    message: shorten(`${p.tool} asks for permission (${p.id}): ${p.reason}\nInput: ${inputLine(p.input)}${preview}`, MESSAGE_CHARS),
    requestedSchema: { type: 'object', properties, required: ['decision'] },
  };
}

/** The REST answer a form's result stands for; null: no answer (cancelled, or not fitting the form). */
export function permissionAnswer(p: PermissionRequest, result: ElicitResult): PermissionResponse | null {
  if (result.action === 'decline') return { behavior: 'deny', message: 'The person declined in the MCP client.' };
  if (result.action !== 'accept' || !result.content) return null;
  const { decision, remember, message } = result.content as Record<string, unknown>;
  if (message !== undefined && (typeof message !== 'string' || message.length > 2000)) return null;
  if (decision === 'deny') return { behavior: 'deny', ...(typeof message === 'string' && message !== '' ? { message } : {}) };
  if (decision !== 'allow') return null;
  if (remember === undefined || remember === '') return { behavior: 'allow' };
  if (typeof remember !== 'string' || !p.suggestions.includes(remember)) return null;
  return { behavior: 'allow', remember: [remember] };
}

/** Form fields are q1…q4 (question texts can be long and repeat words); each one's title is its question. */
export function questionForm(q: Question): ElicitRequestFormParams {
  const properties: ElicitRequestFormParams['requestedSchema']['properties'] = {};
  q.questions.forEach((item, i) => {
    const labels = item.options.map((o) => o.label);
    const description = shorten(item.options.map((o) => (o.description ? `${o.label}: ${o.description}` : o.label)).join('\n'), 1000);
    properties[`q${i + 1}`] = item.multiSelect
      ? { type: 'array', title: shorten(item.question, 500), description, items: { type: 'string', enum: labels } }
      : { type: 'string', title: shorten(item.question, 500), description, enum: labels };
  });
  return {
    mode: 'form',
    message: shorten(`A call asks ${q.questions.length === 1 ? 'a question' : `${q.questions.length} questions`} (${q.id}):\n${q.questions.map((x) => x.question).join('\n')}`, MESSAGE_CHARS),
    requestedSchema: { type: 'object', properties, required: Object.keys(properties) },
  };
}

export function questionAnswer(q: Question, result: ElicitResult): QuestionResponse | null {
  if (result.action === 'decline') return { dismiss: true, message: 'The person declined in the MCP client.' };
  if (result.action !== 'accept' || !result.content) return null;
  const answers: Record<string, string | string[]> = {};
  for (const [i, item] of q.questions.entries()) {
    const given = (result.content as Record<string, unknown>)[`q${i + 1}`];
    const labels = new Set(item.options.map((o) => o.label));
    if (item.multiSelect) {
      if (!Array.isArray(given) || given.length === 0 || !given.every((g) => typeof g === 'string' && labels.has(g))) return null;
      answers[item.question] = [...new Set(given as string[])];
    } else {
      if (typeof given !== 'string' || !labels.has(given)) return null;
      answers[item.question] = given;
    }
  }
  return { answers };
}
