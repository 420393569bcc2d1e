// The web console's login (API.md: a key entered once becomes an HttpOnly SameSite=Strict
// cookie): what is sent to log in, and what the console learns about the login.
import { Type, type Static } from '@sinclair/typebox';
import { KEY_SCOPES } from './tenant.js';
import { StringEnum } from './common.js';
import { Timestamp } from './fields.js';

export const ConsoleLoginSchema = Type.Object(
  { key: Type.String({ minLength: 1, maxLength: 512, description: 'An API key (NORMA_TOKEN or one of NORMA_API_KEYS_FILE); it is not kept by the page or sent again' }) },
  { $id: 'ConsoleLogin', additionalProperties: false },
);
export type ConsoleLoginBody = Static<typeof ConsoleLoginSchema>;

export const ConsoleSessionSchema = Type.Object(
  {
    keys_required: Type.Boolean({ description: 'false: the server has no key (a loopback bind); the console needs no login and acts as the loopback caller' }),
    tenant: Type.String({ description: 'The tenant whose sessions the console sees' }),
    key: Type.Optional(Type.String({ description: 'The name of the key the login acts for' })),
    scopes: Type.Array(StringEnum(KEY_SCOPES), { description: 'What the login may do: the key\'s scopes with the ones they include' }),
    expires_at: Type.Optional(Timestamp('When the login ends (at most 12 hours after it was made; earlier if the key is removed or expires)')),
  },
  { $id: 'ConsoleSession', description: 'The console\'s login, or the loopback caller on a server without keys' },
);
export type ConsoleSession = Static<typeof ConsoleSessionSchema>;
