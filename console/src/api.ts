// Every request the console makes goes through here: same-origin credentials (the login cookie)
// and `X-Norma-Console: 1`, without which the server ignores the cookie. Errors become
// ApiErrors with the problem's detail; a 401 from /v1 means the login ended and is told to the
// app (which shows the login again).
import { ApiError, errorFromAnswer } from './lib/problem.js';
import type { ConsoleSession } from './lib/types.js';

type Listener = () => void;
const unauthorizedListeners = new Set<Listener>();

/** Called whenever /v1 answers 401. Returns the unsubscribe function. */
export function onUnauthorized(listener: Listener): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'DELETE' | 'PATCH';
  body?: unknown;
  signal?: AbortSignal;
  accept?: string;
}

export async function request(path: string, { method = 'GET', body, signal, accept = 'application/json' }: RequestOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { 'X-Norma-Console': '1', Accept: accept };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      cache: 'no-store',
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      ...(signal ? { signal } : {}),
    });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiError(0, `The server could not be reached (${error instanceof Error ? error.message : String(error)}).`);
  }
  if (response.ok) return response;
  const text = await response.text().catch(() => '');
  const error = errorFromAnswer(response.status, response.statusText, response.headers.get('content-type') ?? '', text);
  if (response.status === 401 && path.startsWith('/v1/')) for (const l of [...unauthorizedListeners]) l();
  throw error;
}

export async function getJson<T>(path: string, signal?: AbortSignal): Promise<T> {
  const response = await request(path, signal ? { signal } : {});
  return (await response.json()) as T;
}

export async function postJson<T>(path: string, body: unknown = {}): Promise<T> {
  const response = await request(path, { method: 'POST', body });
  return (await response.json()) as T;
}

/** `/v1/sessions/<id>` plus a rest, with every id encoded. */
export function sessionPath(id: string, ...rest: string[]): string {
  return ['/v1/sessions', id, ...rest].map((p, i) => (i === 0 ? p : encodeURIComponent(p))).join('/');
}

// The console's login.
export const getLogin = () => getJson<ConsoleSession>('/console/session');
export const logIn = (key: string) => postJson<ConsoleSession>('/console/session', { key });
export const logOut = () => request('/console/session', { method: 'DELETE' }).then(() => undefined);

/** Saves a blob as a download named `filename`. */
export function saveBlob(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** GETs `path` (with the console's header) and saves the answer as `filename`. */
export async function download(path: string, filename: string, accept = '*/*'): Promise<void> {
  const response = await request(path, { accept });
  saveBlob(await response.blob(), filename);
}
