// Secrets for sandboxed processes (API.md "Network scope and secrets"): a value the session's
// processes never see. Their environment holds a placeholder; the egress proxy puts the value into
// requests to the secret's hosts only. Declared by the operator (NORMA_SECRETS_FILE), a tenant's
// policy, or the session; shown by name only.
import { Type, type Static } from '@sinclair/typebox';

/** An environment variable name. */
export const SECRET_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_]{0,63}$';
/** An HTTP header name (RFC 9110 token). */
export const HEADER_NAME_PATTERN = "^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$";

export const SecretSchema = Type.Object(
  {
    value: Type.String({ minLength: 8, maxLength: 16_384, writeOnly: true, description: 'The secret (8 characters or more; no line breaks or control characters): never shown, never in the sandbox' }),
    hosts: Type.Array(Type.String({ minLength: 1, maxLength: 300 }), {
      minItems: 1,
      maxItems: 32,
      description: 'Where the value may go: `example.com`, `*.example.com` (subdomains only), optionally with `:port` — as `Network(domain:…)` rules write them',
    }),
    header: Type.Optional(
      Type.String({ pattern: HEADER_NAME_PATTERN, description: 'Set this header on every request to the hosts (e.g. `Authorization`); without it, the placeholder is replaced where the process puts it (a header, Basic credentials, the body)' }),
    ),
    format: Type.Optional(Type.String({ minLength: 7, maxLength: 1024, description: 'The header\'s value with `{value}` where the secret goes (default `{value}`), e.g. `Bearer {value}`' })),
  },
  { additionalProperties: false },
);
export type Secret = Static<typeof SecretSchema>;

export const SecretsSchema = Type.Record(Type.String({ pattern: SECRET_NAME_PATTERN }), SecretSchema, {
  maxProperties: 32,
  description:
    'Secrets by environment variable name: `{value, hosts, header?, format?}`. Sandboxed processes see the name set to a placeholder, never the value; ' +
    'the egress proxy puts the value into requests to the hosts only (HTTPS too: the session\'s processes trust its certificate authority) and refuses a request that carries a placeholder anywhere else. ' +
    'Needs the process sandbox and network (`sandbox_network` other than false)',
});
export type Secrets = Static<typeof SecretsSchema>;
