// The settings of a session made at `initialize`: `params._meta["norma/session"]`, the body of
// POST /v1/sessions, validated as that route validates it (the same schemas, options and
// explanations). Without it the session has the tenant's defaults.
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { ref, SessionCreateSchema, type SessionCreate } from '../../contract/schemas.js';
import { DomainError } from '../../errors.js';
import { SHARED_SCHEMAS } from '../../http/docs.js';
import { REQUEST_AJV_OPTIONS, ValidationExplainer } from '../../http/validation.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

export const SETTINGS_META_KEY = 'norma/session';

let validate: ValidateFunction | undefined;
let explainer: ValidationExplainer | undefined;

/** The session settings an initialize request carries (none: `{}`); 400 when they are not a valid session body. */
export function sessionSettingsOf(params: { _meta?: Record<string, unknown> }): SessionCreate {
  const given = params._meta?.[SETTINGS_META_KEY];
  if (given === undefined) return {};
  if (!validate) {
    const ajv = new Ajv({ ...REQUEST_AJV_OPTIONS, coerceTypes: false });
    addFormats(ajv);
    for (const s of SHARED_SCHEMAS) ajv.addSchema(s as Record<string, unknown>);
    validate = ajv.compile(ref(SessionCreateSchema) as Record<string, unknown>);
  }
  // A copy: defaults are filled in as the route would, without changing the request.
  const settings = structuredClone(given);
  if (validate(settings)) return settings as SessionCreate;
  explainer ??= new ValidationExplainer(SHARED_SCHEMAS);
  const problems = explainer.explain(validate.errors ?? []).map((i) => `params._meta["${SETTINGS_META_KEY}"]${i.path}: ${i.message}`);
  throw new DomainError('invalid', `the session settings of initialize are not valid: ${problems.join('; ')}`, problems);
}
