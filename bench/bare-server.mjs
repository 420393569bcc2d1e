// Baseline for the direct-turn bench: a bare Fastify JSON route on loopback, no logging.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.post('/echo', async (req) => ({ ok: true, received: req.body }));
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
