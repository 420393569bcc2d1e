// A session's todo list (the TodoWrite tool, API.md "Todos").
import { Type, type Static } from '@sinclair/typebox';
import { ref, StringEnum } from './common.js';

const todoItemProperties = {
  content: Type.String({ minLength: 1, maxLength: 2000, description: 'What is to be done, imperative ("Run the tests")' }),
  status: StringEnum(['pending', 'in_progress', 'completed']),
  activeForm: Type.String({ minLength: 1, maxLength: 2000, description: 'The same in the present continuous, shown while it is in progress ("Running the tests")' }),
};

/** One item as TodoWrite takes it (self-contained: a tool's input schema has no `$ref`s). */
export const TodoItemInput = Type.Object(todoItemProperties, { additionalProperties: false });

export const TodoItemSchema = Type.Object(todoItemProperties, { $id: 'TodoItem', additionalProperties: false });
export type TodoItem = Static<typeof TodoItemSchema>;

export const TodoListSchema = Type.Object(
  {
    items: Type.Array(ref(TodoItemSchema)),
    updated_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When TodoWrite last replaced the list; null: never' }),
  },
  { $id: 'TodoList' },
);
export type TodoList = Static<typeof TodoListSchema>;
