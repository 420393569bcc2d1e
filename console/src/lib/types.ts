// The API's resources as the console reads them: the types generated from openapi/openapi.json
// for the typed client (clients/typescript/src/schema.ts, `npm run client:write`), so the page
// cannot drift from the contract. Type-only: nothing of the client lands in the bundle.
import type { components } from '../../../clients/typescript/src/schema.js';

type Schemas = components['schemas'];

export type Scope = Schemas['ConsoleSession']['scopes'][number];
export type ConsoleSession = Schemas['ConsoleSession'];

export type PermissionMode = Schemas['PermissionMode'];
/** Every mode, in the contract's order (checked against the generated type). */
export const PERMISSION_MODES = ['default', 'acceptEdits', 'plan', 'bypassPermissions', 'dontAsk', 'auto'] as const satisfies readonly PermissionMode[];
type AllModes = Exclude<PermissionMode, (typeof PERMISSION_MODES)[number]> extends never ? true : never;
const allModes: AllModes = true;
void allModes;

export type Session = Schemas['Session'];
export type SessionList = Schemas['SessionList'];
export type ToolUse = Schemas['ToolUse'];
export type Truncation = Schemas['Truncation'];
export type TextBlock = Schemas['TextBlock'];
export type ImageBlock = Schemas['ImageBlock'];
export type ToolResult = Schemas['ToolResult'];
export type Turn = Schemas['Turn'];
export type TurnStatus = Turn['status'];
export type PermissionRequest = Schemas['PermissionRequest'];
export type PermissionPreview = Schemas['PermissionPreview'];
export type PendingItem = Schemas['PendingItem'];
export type PendingList = Schemas['PendingList'];
export type QuestionItem = Schemas['QuestionItem'];
export type Question = Schemas['Question'];
export type TodoItem = Schemas['TodoItem'];
export type TodoList = Schemas['TodoList'];
export type MemoryListing = Schemas['MemoryListing'];
export type McpServerState = Schemas['McpServerState'];
export type Decision = Schemas['Decision'];
export type EventTicket = Schemas['EventTicket'];
export type RewindResult = Schemas['RewindResult'];

/** A page of an audit listing (`?after=` / `next_after`). */
export interface AuditPage<T> {
  items: T[];
  next_after: number | null;
}

export type EgressEvent = Schemas['EventEgressRequest'];
export type HookRunEvent = Schemas['EventHookCompleted'] | Schemas['EventHookFailed'];

/** Every event the server sends: the stored ones (components.schemas.Event) and `stream.end`. */
export type NormaEvent = Schemas['Event'] | Schemas['EventStreamEnd'];

export type EventType = NormaEvent['type'];
export type EventOf<T extends EventType> = Extract<NormaEvent, { type: T }>;
