// A sandboxed session's resource limits: what can be set, and the operator's defaults.
import { Type, type Static } from '@sinclair/typebox';

export const LimitValuesSchema = Type.Object(
  {
    memory_bytes: Type.Integer({ minimum: 16 * 1024 * 1024, description: 'Memory of the session\'s processes together (cgroups), or of each process (rlimit)' }),
    processes: Type.Integer({ minimum: 8, description: 'Processes and threads of the session at once (cgroups); per server user with rlimits' }),
    cpu_weight: Type.Integer({ minimum: 1, maximum: 10000, description: 'CPU share relative to other work (cgroup cpu.weight: 100 is an ordinary process)' }),
    file_size_bytes: Type.Integer({ minimum: 1024 * 1024, description: 'Largest file one process may write' }),
    open_files: Type.Integer({ minimum: 32, description: 'Open descriptors per process' }),
    disk_bytes: Type.Integer({ minimum: 1024 * 1024, description: 'Disk used by the workspace and the sandbox\'s home and /tmp together' }),
  },
  { additionalProperties: false },
);
export type ResourceLimits = Static<typeof LimitValuesSchema>;

export type Enforcement = 'cgroup2' | 'cgroup1' | 'rlimit';

export const DEFAULT_LIMITS: ResourceLimits = {
  memory_bytes: 2 * 1024 ** 3,
  processes: 512,
  cpu_weight: 50,
  file_size_bytes: 2 * 1024 ** 3,
  open_files: 4096,
  disk_bytes: 10 * 1024 ** 3,
};

