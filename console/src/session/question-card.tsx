// One pending AskUser call: its questions, each a fieldset of options (radio buttons, or
// checkboxes when several may be chosen) with a free-text `Other answer`; answered or dismissed.
import { useState } from 'preact/hooks';
import { postJson, sessionPath } from '../api';
import { ErrorAlert } from '../components/alert';
import { questionAnswer, type QuestionAnswer, type QuestionChoice } from '../lib/answers.js';
import { formatDateTime } from '../lib/format.js';
import { ApiError, messageOf } from '../lib/problem.js';
import type { Question } from '../lib/types.js';

export interface QuestionCardProps {
  sessionId: string;
  question: Question;
  canAnswer: boolean;
  onDone: (id: string, what: string, notice?: string) => void;
}

export function QuestionCard({ sessionId, question, canAnswer, onDone }: QuestionCardProps) {
  const [choices, setChoices] = useState<QuestionChoice[]>(() => question.questions.map(() => ({ labels: [], other: '' })));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const id = `q-${question.id}`;

  const update = (i: number, change: (c: QuestionChoice) => QuestionChoice) => setChoices((all) => all.map((c, j) => (j === i ? change(c) : c)));

  const send = async (body: QuestionAnswer, what: string) => {
    setBusy(true);
    setError(null);
    try {
      await postJson(sessionPath(sessionId, 'questions', question.id), body);
      onDone(question.id, what);
    } catch (err) {
      if (err instanceof ApiError && err.status === 409) onDone(question.id, 'The question was already answered', err.message);
      else {
        setError(messageOf(err));
        setBusy(false);
      }
    }
  };

  const answer = (e: Event) => {
    e.preventDefault();
    if (busy) return;
    const built = questionAnswer(question.questions, choices);
    if ('missing' in built) {
      setError(`Choose an option or type an answer for: ${built.missing.join(' / ')}`);
      return;
    }
    void send(built.body, 'Question answered');
  };

  const head = (
    <>
      <h3>Question</h3>
      <p class="meta">
        <span class="mono">{question.id}</span> · turn <span class="mono">{question.turn_id}</span> · asked{' '}
        <time dateTime={question.created_at}>{formatDateTime(question.created_at)}</time>
      </p>
    </>
  );

  // Watching only: the questions and their options, without controls.
  if (!canAnswer) {
    return (
      <section class="card" aria-label="Question">
        {head}
        {question.questions.map((q) => (
          <div class="question-view" key={q.question}>
            <p class="question-text">
              {q.header && <span class="chip">{q.header}</span>} {q.question}
              {q.multiSelect && <span class="hint"> (one or more)</span>}
            </p>
            <ul>
              {q.options.map((o) => (
                <li key={o.label}>
                  {o.label}
                  {o.description && <span class="desc"> — {o.description}</span>}
                </li>
              ))}
            </ul>
          </div>
        ))}
        <p class="watch">watch only</p>
      </section>
    );
  }

  return (
    <section class="card" aria-label="Question">
      {head}
      <form onSubmit={answer}>
        {question.questions.map((q, i) => {
          const name = `${id}-${i}`;
          const choice = choices[i] ?? { labels: [], other: '' };
          return (
            <fieldset key={q.question} disabled={busy}>
              <legend>{q.question}</legend>
              {q.header && <span class="chip">{q.header}</span>}
              {q.multiSelect && <p class="hint">Choose one or more.</p>}
              {q.options.map((o, k) => (
                <div class="option" key={o.label}>
                  <label>
                    <input
                      type={q.multiSelect ? 'checkbox' : 'radio'}
                      name={name}
                      value={o.label}
                      checked={choice.labels.includes(o.label)}
                      aria-describedby={o.description ? `${name}-d${k}` : undefined}
                      onChange={(e) => {
                        const on = e.currentTarget.checked;
                        update(i, (c) => ({
                          ...c,
                          labels: q.multiSelect ? (on ? [...c.labels.filter((l) => l !== o.label), o.label] : c.labels.filter((l) => l !== o.label)) : on ? [o.label] : [],
                        }));
                      }}
                    />
                    {o.label}
                  </label>
                  {o.description && (
                    <span class="desc" id={`${name}-d${k}`}>
                      {o.description}
                    </span>
                  )}
                </div>
              ))}
              <div class="field">
                <label for={`${name}-other`}>Other answer</label>
                <input id={`${name}-other`} type="text" value={choice.other} onInput={(e) => { const v = e.currentTarget.value; update(i, (c) => ({ ...c, other: v })); }} />
              </div>
            </fieldset>
          );
        })}
        <div class="buttons">
          <button type="submit" class="primary" disabled={busy}>
            Answer
          </button>
          <button type="button" onClick={() => void send({ dismiss: true }, 'Question dismissed')} disabled={busy}>
            Dismiss
          </button>
        </div>
      </form>
      <ErrorAlert message={error} />
    </section>
  );
}
