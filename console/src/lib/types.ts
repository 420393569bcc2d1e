// The API's resources as the console reads them: the fields it uses, mirroring
// openapi/openapi.json (components.schemas). Kept apart from src/contract so the page's
// bundle and type-check do not depend on the server's TypeBox schemas.

export type Scope = 'admin' | 'write' | 'approve' | 'read';

export interface ConsoleSession {
  keys_required: boolean;
  tenant: string;
  key?: string;
  scopes: Scope[];
  expires_at?: string;
}

export const PERMISSION_MODES = ['default', 'acceptEdits', 'plan', 'bypassPermissions', 'dontAsk', 'auto'] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];

export interface Session {
  id: string;
  status: 'active' | 'closed';
  tenant: string;
  workspace: string;
  permission_mode: PermissionMode;
  mode_before_plan?: PermissionMode | null;
  tools: string[];
  active_turn_id: string | null;
  created_at: string;
  closed_at: string | null;
}

export interface SessionList {
  items: Session[];
  next_cursor: string | null;
}

export interface ToolUse {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
}

export interface Truncation {
  output_id?: string;
  block_index: number;
  total_chars: number;
  shown_chars: number;
  sha256: string;
}

export interface TextBlock {
  type: 'text';
  text: string;
}

export interface ImageBlock {
  type: 'image';
  source: { type: 'base64'; media_type: string; data: string };
}

export interface ToolResult {
  type: 'tool_result';
  tool_use_id: string;
  is_error: boolean;
  content: (TextBlock | ImageBlock)[];
  truncation?: Truncation;
  truncations?: Truncation[];
}

export type TurnStatus = 'running' | 'awaiting_permission' | 'awaiting_input' | 'completed' | 'failed' | 'cancelled' | 'interrupted';

export interface Turn {
  id: string;
  session_id: string;
  kind: 'direct' | 'prompt';
  status: TurnStatus;
  tool_uses: ToolUse[];
  results: ToolResult[];
  pending: string[];
  error?: { code: string; message: string };
  created_at: string;
  ended_at?: string;
}

export interface PermissionRequest {
  id: string;
  session_id: string;
  turn_id: string;
  tool_use_id: string;
  tool: string;
  input: unknown;
  reason: string;
  suggestions: string[];
  status: 'pending' | 'allowed' | 'denied' | 'cancelled';
  created_at: string;
  resolved_at?: string;
}

export interface QuestionItem {
  question: string;
  header?: string;
  options: { label: string; description?: string }[];
  multiSelect?: boolean;
}

export interface Question {
  id: string;
  session_id: string;
  turn_id: string;
  tool_use_id: string;
  questions: QuestionItem[];
  status: 'pending' | 'answered' | 'dismissed' | 'timed_out' | 'cancelled';
  created_at: string;
  resolved_at?: string;
}

export interface TodoItem {
  content: string;
  status: 'pending' | 'in_progress' | 'completed';
  activeForm: string;
}

export interface TodoList {
  items: TodoItem[];
  updated_at: string | null;
}

export interface MemoryListing {
  store: string;
  items: { path: string; bytes: number; sha256: string; modified_at: string }[];
}

export interface McpServerState {
  name: string;
  status: 'starting' | 'running' | 'restarting' | 'failed' | 'closed';
  tools: { name: string }[];
  problems: string[];
}

export interface Decision {
  seq: number;
  turn_id: string;
  tool_use_id: string;
  tool: string;
  behavior: 'allow' | 'deny' | 'ask';
  decided_by: string;
  rules: string[];
  mode: string;
  reason: string;
  permission_id?: string;
  created_at: string;
}

/** A page of an audit listing (`?after=` / `next_after`). */
export interface AuditPage<T> {
  items: T[];
  next_after: number | null;
}

export interface EventTicket {
  ticket: string;
  expires_at: string;
}

interface EventBase {
  session_id: string;
  /** Per-session sequence number; live-only events repeat the last durable one. */
  seq: number;
  time: string;
}

export type EgressEvent = EventBase & {
  type: 'egress.request';
  tool?: string;
  hook?: string;
  method: string;
  url: string;
  status: number | null;
  bytes: number;
  duration_ms: number;
  error?: string;
};

export type HookRunEvent = EventBase &
  (
    | { type: 'hook.completed'; hook: string; kind: string; event: string; tool_use_id?: string; duration_ms: number; outcome: 'ok' | 'blocked'; decision?: string }
    | { type: 'hook.failed'; hook: string; kind: string; event: string; tool_use_id?: string; duration_ms: number; outcome: 'error' | 'failed'; error: string }
  );

interface MessageBlock {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  input?: unknown;
}

/** Every event the server sends (components.schemas.Event). */
export type NormaEvent =
  | EgressEvent
  | HookRunEvent
  | (EventBase &
      (
        | { type: 'session.created' | 'session.updated'; session: Session }
        | { type: 'session.closed'; reason: string }
        | { type: 'turn.started'; turn_id: string; kind: 'direct' | 'prompt'; tool_uses: ToolUse[] }
        | { type: 'tool.started'; turn_id: string; tool_use_id: string; parent_tool_use_id?: string; tool: string; input: unknown }
        | { type: 'tool.progress'; turn_id: string; tool_use_id: string; chunk: string }
        | { type: 'permission.requested' | 'permission.resolved'; turn_id: string; permission: PermissionRequest }
        | { type: 'question.asked' | 'question.answered'; turn_id: string; question: Question }
        | { type: 'todo.updated'; turn_id: string; items: TodoItem[]; updated_at: string }
        | { type: 'tool.completed'; turn_id: string; tool_use_id: string; parent_tool_use_id?: string; tool: string; result: ToolResult }
        | { type: 'task.started'; task_id: string; command: string; turn_id: string }
        | { type: 'task.completed'; task_id: string; status: string; exit_code: number | null; signal: string | null }
        | { type: 'turn.completed' | 'turn.failed' | 'turn.cancelled' | 'turn.interrupted'; turn: Turn }
        | { type: 'turn.resumed'; turn_id: string; pending: string[] }
        | { type: 'message.delta'; turn_id: string; message_index: number; block_index: number; text: string; reset?: boolean }
        | { type: 'message.completed'; turn_id: string; message_index: number; message: { role: string; content: MessageBlock[] }; stop_reason: string }
        | { type: 'mcp.server.started'; server: string; tools: string[] }
        | { type: 'mcp.server.exited'; server: string; reason: string; next: string }
        | { type: 'tools.changed'; server: string; added: string[]; removed: string[]; changed: string[] }
        | { type: 'mcp.request'; server: string; method: string; tool?: string; outcome: string }
        | { type: 'stream.end'; reason: 'shutdown' | 'overflow' | 'revoked'; resume_after: number }
      ));

export type EventType = NormaEvent['type'];
export type EventOf<T extends EventType> = Extract<NormaEvent, { type: T }>;
