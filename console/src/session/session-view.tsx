// One session: what it is, what waits for a person, its turns and events, todos, memory, MCP
// servers and audit trail, kept live by its event stream.
import { ErrorAlert } from '../components/alert';
import { useFocusOnChange } from '../components/hooks';
import { canAnswer, canWrite } from '../lib/access.js';
import { formatDateTime } from '../lib/format.js';
import type { StreamStatus } from '../lib/resume.js';
import type { ConsoleSession } from '../lib/types.js';
import { Audit } from './audit';
import { McpServers, MemoryFiles, Todos } from './panels';
import { Timeline } from './timeline';
import { Turns } from './turns';
import { useSession } from './use-session';
import { Waiting } from './waiting';

const STREAM_TEXT: Record<StreamStatus, string> = {
  connecting: 'connecting…',
  live: 'live',
  reconnecting: 'reconnecting…',
  ended: 'ended (the session is closed)',
  stopped: 'stopped',
};

export function SessionView({ id, login }: { id: string; login: ConsoleSession }) {
  const { state, dispatch, stream, ready, loaded, loadError, streamError } = useSession(id);
  const heading = useFocusOnChange<HTMLHeadingElement>(id);
  const session = state.session;
  const count = (...types: string[]) => types.reduce((sum, t) => sum + (state.counts[t] ?? 0), 0);

  return (
    <div class="session">
      <p class="crumbs">
        <a href="#/">Sessions</a> / <span class="mono">{id}</span>
      </p>
      <h1 id="session-h" tabIndex={-1} ref={heading}>
        Session {id}
      </h1>
      <ErrorAlert message={loadError} />
      <ErrorAlert message={streamError && `Event stream: ${streamError}`} />
      {session && (
        <dl class="facts">
          <div>
            <dt>Status</dt>
            <dd>
              <span class={`status status-${session.status}`}>{session.status}</span>
            </dd>
          </div>
          <div>
            <dt>Permission mode</dt>
            <dd>{session.permission_mode}</dd>
          </div>
          <div>
            <dt>Tenant</dt>
            <dd>{session.tenant}</dd>
          </div>
          <div>
            <dt>Workspace</dt>
            <dd class="mono">{session.workspace}</dd>
          </div>
          <div>
            <dt>Created</dt>
            <dd>
              <time dateTime={session.created_at}>{formatDateTime(session.created_at)}</time>
            </dd>
          </div>
          <div>
            <dt>Events</dt>
            <dd>
              <span role="status" class={`stream stream-${stream}`}>
                {STREAM_TEXT[stream]}
              </span>
            </dd>
          </div>
        </dl>
      )}
      <Waiting sessionId={id} pending={state.pending} ready={ready} loaded={loaded} canAnswer={canAnswer(login.scopes)} onResolved={(pid) => dispatch({ kind: 'resolved', id: pid })} />
      <Turns sessionId={id} turns={state.turns} pending={state.pending} live={state.live} canWrite={canWrite(login.scopes)} dispatch={dispatch} />
      <Timeline events={state.events} live={state.live} />
      <div class="columns">
        <Todos todos={state.todos} />
        <MemoryFiles sessionId={id} version={count('tool:Memory')} />
        <McpServers sessionId={id} version={count('mcp.server.started', 'mcp.server.exited', 'tools.changed')} />
      </div>
      <Audit sessionId={id} counts={state.counts} />
    </div>
  );
}
