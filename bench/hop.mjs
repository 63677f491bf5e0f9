// The least a gateway can be: a fastify route that forwards over one NATS request to the same
// responder and answers its body, with no key, no limit, no validation. The gateway benchmark runs
// it as a third path, so the ratio splits into what the hop costs and what the gateway adds to it.
import Fastify from "fastify";
import { connect } from "@nats-io/transport-node";
import { wireNames } from "@mailroom/contracts";

const nc = await connect({ servers: process.env.NATS_URL ?? "nats://127.0.0.1:4222", noAsyncTraces: true });
const subject = wireNames(process.env.NATS_PREFIX).rpc("contacts.list");
const projectId = process.env.HOP_PROJECT_ID;
const app = Fastify({ logger: false });
app.get("/contacts", async (req, reply) => {
  const payload = { projectId, params: {}, query: req.query, meta: { requestId: "hop", ip: req.ip } };
  const msg = await nc.request(subject, JSON.stringify(payload), { timeout: 5000 });
  const answer = JSON.parse(msg.string());
  return reply.code(answer.result.status).send(answer.result.body);
});
await app.listen({ port: 0, host: "127.0.0.1" });
process.stdout.write(`${app.server.address().port}\n`);
process.on("SIGTERM", async () => {
  await app.close();
  await nc.close();
  process.exit(0);
});
