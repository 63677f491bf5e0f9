import { connect } from "@nats-io/transport-node";
import { ROUTES, wireNames, type HttpReply, type ServiceName } from "@mailroom/contracts";
import { Blobs, RpcServer, createLogger, createMetrics, type RouteInput } from "@mailroom/kit";
import { NATS_URL } from "@mailroom/testkit";

type Handler = (input: RouteInput<any>) => Promise<HttpReply>;

/**
 * A stand-in service over the real NATS: the gateway cannot tell it from a real one. It lets the
 * gateway's own behaviour (auth, limits, idempotency, timeouts) be tested without any service logic.
 */
export async function fakeService(prefix: string, service: ServiceName, handlers: Record<string, Handler>) {
  const nc = await connect({ servers: NATS_URL });
  const names = wireNames(prefix);
  const server = new RpcServer(nc, names, service, new Blobs(nc, names.buckets.blobs), createLogger("fake", "silent"), createMetrics("fake"));
  for (const [operation, handler] of Object.entries(handlers)) {
    const route = ROUTES.find((r) => r.operation === operation);
    if (!route) throw new Error(`no route ${operation}`);
    server.route(route, handler);
  }
  server.start();
  await nc.flush();
  return {
    async stop() {
      await server.stop();
      await nc.close();
    },
  };
}
