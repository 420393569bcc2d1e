// JSON request bodies: refused when they nest past MAX_JSON_DEPTH, before they are parsed (one
// linear scan; JSON.parse itself spends seconds on millions of brackets), then parsed by
// Fastify's own parser, which keeps its prototype-poisoning checks. An empty body is no body, as
// without a content type: clients that label every request `application/json` (a DELETE, a POST
// whose fields are all optional) are not refused for it; a route that needs a body says so.
import type { FastifyInstance } from 'fastify';
import { MAX_JSON_DEPTH, textNestedDeeperThan } from '../json-depth.js';

export function useDepthCheckedJson(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if ((body as string).length === 0) {
      done(null, undefined);
      return;
    }
    if (textNestedDeeperThan(body as string)) {
      done(Object.assign(new Error(`the body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`), { statusCode: 400 }), undefined);
      return;
    }
    parseJson(req, body as string, done);
  });
}
