// Errors of API calls: problem+json answers (`{type, title, status, detail, errors?}`) and
// failures to reach the server, as one error with a message for people.

export interface Problem {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  errors?: { path?: string; location?: string; message: string }[];
  /** A rewind refused for conflicts: the paths, and why. */
  conflicts?: { path: string; reason: string }[];
}

export class ApiError extends Error {
  constructor(
    /** HTTP status; 0 when the server could not be reached. */
    readonly status: number,
    message: string,
    readonly problem: Problem | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** The message of a problem: its detail (or title), then each error with its pointer. */
export function problemMessage(problem: Problem, status: number): string {
  const head = problem.detail?.trim() || problem.title?.trim() || `The server answered ${status}.`;
  const list = (problem.errors ?? []).map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)).filter((m) => !head.includes(m));
  return list.length ? `${head} (${list.join('; ')})` : head;
}

/** An ApiError from an answer that is not 2xx. */
export function errorFromAnswer(status: number, statusText: string, contentType: string, body: string): ApiError {
  if (/json/i.test(contentType)) {
    try {
      const problem = JSON.parse(body) as Problem;
      if (problem && typeof problem === 'object') return new ApiError(status, problemMessage(problem, status), problem);
    } catch {
      // not JSON after all: fall through to the text
    }
  }
  const text = body.trim().slice(0, 300);
  return new ApiError(status, text && !/^\s*</.test(text) ? `${status} ${statusText}: ${text}` : `The server answered ${status} ${statusText}.`.replace(' .', '.'));
}

/** A message for any error a call can end with. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
