// A service that answers at once: the gateway benchmark's far end of the NATS hop.
import { connect } from "@nats-io/transport-node";
import { ROUTES, wireNames } from "@mailroom/contracts";
import { Blobs, RpcServer, createLogger, createMetrics } from "@mailroom/kit";

const nc = await connect({ servers: process.env.NATS_URL ?? "nats://127.0.0.1:4222", noAsyncTraces: true });
const names = wireNames(process.env.NATS_PREFIX);
const server = new RpcServer(nc, names, "contacts", new Blobs(nc, names.buckets.blobs), createLogger("responder", "silent"), createMetrics("responder"));
server.route(ROUTES.find((r) => r.operation === "contacts.list"), async () => ({ status: 200, body: { data: [], cursor: null, hasMore: false, total: 0 } }));
server.start();
await nc.flush();
process.stdout.write("ready\n");
process.on("SIGTERM", async () => {
  await server.stop();
  await nc.close();
  process.exit(0);
});
