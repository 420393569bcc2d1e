// The backend's own words from an error body, so a failure message says what the backend said. The
// JSON error shapes the backends use are TypeBox schemas; a body of any other shape is read as text.
import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { collapse, MAX_DETAIL_CHARS, stripTags, truncate } from './text.js';
import { parsePeerJson } from '../../json-depth.js';

const Code = Type.Union([Type.String(), Type.Number(), Type.Null()]);
const Words = Type.Union([Type.String(), Type.Null()]);

/** `{error: "text", code?, type?}`. */
const FlatError = Type.Object({ error: Type.String(), code: Type.Optional(Code), type: Type.Optional(Code) });

/** Brave: `{type: "ErrorResponse", error: {code, detail, status, meta}}`; OpenAI-style (DeepSeek): `{error: {message, type, code}}`. */
const NestedError = Type.Object({
  error: Type.Object({
    detail: Type.Optional(Words),
    message: Type.Optional(Words),
    error: Type.Optional(Words),
    code: Type.Optional(Code),
    type: Type.Optional(Code),
  }),
});

/** Tavily / FastAPI: `{detail: "text"}`, `{detail: {error}}` or `{detail: [{msg}]}`. */
const DetailError = Type.Object({
  detail: Type.Union([
    Type.String(),
    Type.Object({ error: Type.Optional(Words), message: Type.Optional(Words) }),
    Type.Array(Type.Unknown()),
  ]),
});
/** One entry of FastAPI's list of validation errors (entries of other shapes are passed over). */
const DetailItem = Type.Object({ msg: Type.Optional(Words) });

const MessageError = Type.Object({ message: Type.String() });

/** The backend's own error text from a JSON error body (Brave, Tavily, DeepSeek, generic), or the body's text. */
export function errorDetail(text: string): string {
  let out = '';
  try {
    out = jsonErrorText(parsePeerJson(text));
  } catch {
    out = '';
  }
  if (out === '') out = stripTags(text);
  return truncate(collapse(out), MAX_DETAIL_CHARS);
}

/** The error text of a parsed JSON body; '' when it has none of the known shapes. */
export function jsonErrorText(j: unknown): string {
  if (typeof j === 'string') return j;
  if (Value.Check(FlatError, j)) return withCode(j.code ?? j.type, j.error);
  if (Value.Check(NestedError, j)) {
    const err = j.error;
    const msg = err.detail || err.message || err.error || '';
    const code = err.code ?? err.type;
    if (msg !== '') return withCode(code, msg);
    if (code !== undefined && code !== null) return String(code);
  }
  if (Value.Check(DetailError, j)) {
    const detail = j.detail;
    if (typeof detail === 'string') return detail;
    if (Array.isArray(detail)) {
      const msgs: string[] = [];
      for (const d of detail) if (Value.Check(DetailItem, d) && d.msg) msgs.push(d.msg);
      return msgs.join('; ');
    }
    return detail.error || detail.message || '';
  }
  if (Value.Check(MessageError, j)) return j.message;
  return '';
}

function withCode(code: string | number | null | undefined, msg: string): string {
  if ((typeof code === 'string' && code !== '') || typeof code === 'number') {
    const c = String(code);
    return msg.includes(c) ? msg : `${c}: ${msg}`;
  }
  return msg;
}
