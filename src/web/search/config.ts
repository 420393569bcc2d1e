// Whether a WebSearch configuration is usable, and the endpoint it points at. Checked at start-up
// and before each search, so a bad setting is reported naming the environment variable to fix.
import { BACKENDS } from './backends.js';
import { truncate } from './text.js';
import { SEARCH_BACKENDS, SearchError, type SearchBackendName, type SearchConfig } from './types.js';

/**
 * Problems that make the backend unusable (missing key for a keyed backend, missing/invalid url for
 * searxng, a url that is not http(s) or has credentials); [] when usable. Each message names the env
 * var to fix: NORMA_WEBSEARCH_BACKEND, NORMA_WEBSEARCH_API_KEY, NORMA_WEBSEARCH_URL.
 */
export function searchConfigProblems(c: SearchConfig): string[] {
  const problems: string[] = [];
  const name: string = c.backend;
  if (!isBackendName(name)) {
    problems.push(`NORMA_WEBSEARCH_BACKEND: "${truncate(String(name), 40)}" is not a search backend; use one of ${SEARCH_BACKENDS.join(', ')}`);
    return problems;
  }
  const backend = BACKENDS[name];
  if (backend.keyed) {
    const key = c.apiKey ?? '';
    if (key.trim() === '') problems.push(`NORMA_WEBSEARCH_API_KEY: the ${name} search backend needs an API key`);
    else if (/[\s\x00-\x1f\x7f]/.test(key)) problems.push('NORMA_WEBSEARCH_API_KEY: the API key contains whitespace or control characters');
  }
  if (c.url === undefined || c.url.trim() === '') {
    if (typeof backend.origin !== 'string') problems.push(`NORMA_WEBSEARCH_URL: the ${name} search backend needs ${backend.origin.required}`);
  } else {
    problems.push(...urlProblems(c.url.trim()));
  }
  return problems;
}

function isBackendName(name: string): name is SearchBackendName {
  return (SEARCH_BACKENDS as readonly string[]).includes(name);
}

function urlProblems(raw: string): string[] {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    // The text is not echoed: it may hold a password.
    return ['NORMA_WEBSEARCH_URL: not a valid absolute URL (expected e.g. http://searx.local:8080)'];
  }
  const out: string[] = [];
  if (u.protocol !== 'http:' && u.protocol !== 'https:') out.push(`NORMA_WEBSEARCH_URL: must be an http or https URL, not ${u.protocol}`);
  if (u.username !== '' || u.password !== '') out.push('NORMA_WEBSEARCH_URL: must not contain a user name or password');
  if (u.search !== '' || u.hash !== '' || raw.includes('?') || raw.includes('#')) out.push('NORMA_WEBSEARCH_URL: must be a base URL, without a query or fragment');
  return out;
}

/** The endpoint a backend is asked at: the default origin, or `url` (scheme, host, base path), plus the backend's path. */
export function endpoint(c: SearchConfig): string {
  const backend = BACKENDS[c.backend];
  const base = c.url !== undefined && c.url.trim() !== '' ? c.url.trim().replace(/\/+$/, '') : backend.origin;
  if (typeof base !== 'string') throw new SearchError(`${c.backend}: NORMA_WEBSEARCH_URL is not set`, { backend: c.backend });
  return base + backend.path;
}
