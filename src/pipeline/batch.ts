// Concurrency partitioning: consecutive calls that are read-only and concurrency-safe form
// one group that runs in parallel; every other call is a group of its own, in order.
export interface Partitionable {
  parallelSafe: boolean;
}

export function partitionCalls<T extends Partitionable>(calls: readonly T[]): T[][] {
  const groups: T[][] = [];
  for (const call of calls) {
    const last = groups[groups.length - 1];
    if (call.parallelSafe && last !== undefined && last[0]!.parallelSafe) last.push(call);
    else groups.push([call]);
  }
  return groups;
}
