// The egress proxy of bench/network-proxy.ts in a process of its own, as it runs in the server's
// process apart from the sandbox's clients and the servers they reach. Prints one JSON line
// ({socketPath, caPem}) once it listens; exits on SIGTERM.
import fs from 'node:fs/promises';
import path from 'node:path';
import { SandboxNetProxy } from '../src/sandbox/net-proxy.js';
import { SessionAuthority } from '../src/sandbox/net/ca.js';
import { bindSecrets } from '../src/sandbox/net/secrets.js';

const dir = process.env.BENCH_DIR!;
const upstreamCa = await fs.readFile(path.join(dir, 'upstream-ca.pem'), 'utf8');
const sessionCa = new SessionAuthority('bench-session');
const { bindings } = bindSecrets('ses_bench', [{ source: 'session', secrets: { API_TOKEN: { value: process.env.BENCH_TOKEN!, hosts: ['api.bench'], header: 'Authorization', format: 'Bearer {value}' } } }]);
const proxy = new SandboxNetProxy({
  dir: path.join(dir, 'net'),
  policy: { allow: ['127.0.0.0/8'], resolve: async () => [{ address: '127.0.0.2', family: 4 }] },
  ownAddresses: () => [],
  onEvidence: () => undefined,
  decide: async () => ({ allow: true, rules: ['Network(domain:api.bench)'] }),
  secrets: () => bindings,
  authority: () => sessionCa,
  upstreamCa: () => [upstreamCa],
});
const endpoint = await proxy.endpoint({ toolUseId: 'toolu_bench', turnId: 'turn_bench' });
process.stdout.write(`${JSON.stringify({ socketPath: endpoint.socketPath, caPem: sessionCa.certPem, placeholder: bindings[0]!.placeholder })}\n`);
process.once('SIGTERM', () => void proxy.close().then(() => process.exit(0)));
