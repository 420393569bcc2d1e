// TodoWrite: replaces the session's todo list. The list is session state, so the tool only
// states the new list as an effect; the session stores it (durably) and announces it
// (`todo.updated`), and GET …/todos serves it.
import { Type, type Static } from '@sinclair/typebox';
import { TodoItemInput } from '../../contract/schemas.js';
import { defineTool } from '../../tools/tool.js';
import { TODO_WRITE_DESCRIPTION } from './todo-write.description.js';

export const MAX_TODOS = 100;

const TodoWriteInput = Type.Object(
  {
    todos: Type.Array(TodoItemInput, { maxItems: MAX_TODOS, description: 'The whole list, in order (an empty list clears it)' }),
  },
  { additionalProperties: false },
);
type TodoWriteInput = Static<typeof TodoWriteInput>;

export const todoWriteTool = defineTool<TodoWriteInput, unknown>({
  name: 'TodoWrite',
  description: TODO_WRITE_DESCRIPTION,
  inputSchema: TodoWriteInput,
  // It changes only the session's own bookkeeping, nothing in the workspace or outside: allowed
  // while planning, never asked about. Exclusive: two lists in one group would race.
  isReadOnly: () => true,
  isConcurrencySafe: () => false,
  requiresApproval: () => false,
  checkInput: (input) => {
    const active = input.todos.filter((t) => t.status === 'in_progress').length;
    return active > 1 ? [`/todos: ${active} items are in_progress; work on one at a time (mark the others pending or completed)`] : [];
  },
  async call(input) {
    const count = (s: string) => input.todos.filter((t) => t.status === s).length;
    const current = input.todos.find((t) => t.status === 'in_progress');
    const summary =
      input.todos.length === 0
        ? 'The todo list is now empty.'
        : `The todo list now has ${input.todos.length} item(s): ${count('completed')} completed, ${count('in_progress')} in progress, ${count('pending')} pending.` +
          (current ? ` Now: ${current.activeForm}.` : '');
    return {
      content: [{ type: 'text', text: `${summary} Keep it up to date as you work.` }],
      effects: [{ kind: 'set_todos', items: input.todos.map((t) => ({ content: t.content, status: t.status, activeForm: t.activeForm })) }],
    };
  },
});
