// How a server becomes one of the replicas on its PostgreSQL database: the node joins (its
// liveness lock, its notifications) and the application routes owner-bound use cases through it.
// A node that loses its lock for good lets its sessions go without writing and asks to stop.
import type { Logger } from 'pino';
import { ClusterNode } from '../cluster/node.js';
import type { PostgresStore } from '../store/pg-store.js';
import type { Application } from './index.js';
import type { ReplicaOptions, Replicas } from './replicas.js';

export async function joinAsReplica(o: {
  app: Application;
  store: PostgresStore;
  url: string;
  logger: Logger;
  options?: ReplicaOptions;
  /** Stops the server (after the node lost its lock). */
  stop: () => Promise<void>;
}): Promise<{ node: ClusterNode; replicas: Replicas }> {
  let replicas: Replicas | undefined;
  const node = await ClusterNode.join({
    url: o.url,
    nodeId: o.store.nodeId,
    onSignal: (s) => replicas?.signal(s),
    onLost: (why) => {
      // This node cannot prove it is alive: others take its sessions over. It lets them go
      // without writing, and the server stops (exit code 1 once everything is closed).
      o.logger.fatal({ reason: why }, 'lost the node lock on the database and could not take it again; stopping');
      process.exitCode = 1;
      void replicas?.releaseAll().finally(() => void o.stop().catch(() => undefined));
    },
    log: o.logger,
    ...(o.options?.nodeLockWaitMs !== undefined ? { lockWaitMs: o.options.nodeLockWaitMs } : {}),
  });
  replicas = o.app.replicate(node, o.store, o.options);
  return { node, replicas };
}
