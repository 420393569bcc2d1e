// TaskStop's manual for the model: what it stops.

export const TASK_STOP_DESCRIPTION = 'Stops a background task of this session (its whole process tree).';
