// The session's todo list, memory files and MCP servers.
import { getJson, sessionPath } from '../api';
import { ErrorAlert } from '../components/alert';
import { useResource } from '../components/hooks';
import { formatBytes, formatDateTime } from '../lib/format.js';
import type { McpServerState, MemoryListing, TodoList } from '../lib/types.js';
import { TableWrap } from '../components/table-wrap';

const TODO_TEXT = { pending: 'to do', in_progress: 'in progress', completed: 'done' } as const;

export function Todos({ todos }: { todos: TodoList | null }) {
  return (
    <section aria-labelledby="todos-h" class="panel">
      <h2 id="todos-h">Todos</h2>
      {!todos || todos.items.length === 0 ? (
        <p class="muted">No todo list.</p>
      ) : (
        <>
          <ul class="todos">
            {todos.items.map((t, i) => (
              <li key={i} class={`todo todo-${t.status}`}>
                <span class={`badge badge-${t.status}`}>{TODO_TEXT[t.status]}</span> {t.status === 'in_progress' ? t.activeForm : t.content}
              </li>
            ))}
          </ul>
          {todos.updated_at && (
            <p class="meta">
              Updated <time dateTime={todos.updated_at}>{formatDateTime(todos.updated_at)}</time>
            </p>
          )}
        </>
      )}
    </section>
  );
}

export function MemoryFiles({ sessionId, version }: { sessionId: string; version: number }) {
  const memory = useResource(() => getJson<MemoryListing>(sessionPath(sessionId, 'memory')), sessionId, version);
  const items = memory.data?.items ?? [];
  return (
    <section aria-labelledby="memory-h" class="panel">
      <h2 id="memory-h">Memory files</h2>
      <ErrorAlert message={memory.error} />
      {memory.data && (
        <p class="meta">
          Store <span class="mono">{memory.data.store}</span>
        </p>
      )}
      {memory.data && items.length === 0 && <p class="muted">No memory files.</p>}
      {items.length > 0 && (
        <TableWrap labelledBy="memory-h">
          <table aria-labelledby="memory-h">
            <thead>
              <tr>
                <th scope="col">Path</th>
                <th scope="col">Size</th>
                <th scope="col">Modified</th>
              </tr>
            </thead>
            <tbody>
              {items.map((f) => (
                <tr key={f.path}>
                  <td class="mono">{f.path}</td>
                  <td>{formatBytes(f.bytes)}</td>
                  <td>
                    <time dateTime={f.modified_at}>{formatDateTime(f.modified_at)}</time>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </section>
  );
}

export function McpServers({ sessionId, version }: { sessionId: string; version: number }) {
  const mcp = useResource(() => getJson<{ servers: McpServerState[] }>(sessionPath(sessionId, 'mcp')), sessionId, version);
  const servers = mcp.data?.servers ?? [];
  return (
    <section aria-labelledby="mcp-h" class="panel">
      <h2 id="mcp-h">MCP servers</h2>
      <ErrorAlert message={mcp.error} />
      {mcp.data && servers.length === 0 && <p class="muted">No MCP servers.</p>}
      {servers.length > 0 && (
        <TableWrap labelledBy="mcp-h">
          <table aria-labelledby="mcp-h">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Tools</th>
                <th scope="col">Problems</th>
              </tr>
            </thead>
            <tbody>
              {servers.map((s) => (
                <tr key={s.name}>
                  <td class="mono">{s.name}</td>
                  <td>
                    <span class={`status status-${s.status}`}>{s.status}</span>
                  </td>
                  <td>{s.tools.length}</td>
                  <td>{s.problems.length ? s.problems.join('; ') : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </section>
  );
}
