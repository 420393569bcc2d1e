// The host-interaction tools: TodoWrite (the session's todo list, kept as session state) and
// AskUser (questions a person answers while the turn pauses).
import type { Capability } from '../../tools/capability.js';
import { askUserTool, type AskUserDeps } from './ask-user.js';
import { todoWriteTool } from './todo-write.js';

export const interactionCapability: Capability<AskUserDeps> = {
  group: 'interaction',
  tools: [todoWriteTool, askUserTool],
  install: (s) => ({ deps: { askQuestions: s.askQuestions } }),
};
