// TaskList's manual for the model: what it lists.

export const TASK_LIST_DESCRIPTION = "Lists this session's background tasks with their command and status.";
