// Coalesced RPC (src/rpc-batch.ts) against the real NATS server: requests made in one turn share a
// message, each still gets its own answer (errors, slow items, big replies included), and a
// service that does not serve batches, or does not answer, is handled as before.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { jetstreamManager } from "@nats-io/jetstream";
import { AppError, wireNames, type RpcDef } from "@mailroom/contracts";
import { NATS_URL, runPrefix } from "@mailroom/testkit";
import { Blobs, RpcClient, RpcServer, createLogger, createMetrics } from "../src/index.js";

const prefix = runPrefix("rpcb");
const names = wireNames(prefix);
const log = createLogger("rpc-batch-test", "silent");
const metrics = createMetrics("rpc-batch-test");

const echo: RpcDef = {
  service: "contacts",
  operation: "test.echo",
  request: z.object({
    n: z.number().int(),
    delayMs: z.number().int().default(0),
    fail: z.boolean().default(false),
    pad: z.number().int().default(0),
    padChar: z.string().default("x"),
    text: z.string().optional(),
  }),
  reply: z.object({ n: z.number().int(), pad: z.string() }),
};
const optional: RpcDef = { ...echo, operation: "test.optional", request: z.object({ n: z.number().int() }).optional() };
const silent: RpcDef = { service: "contacts", operation: "test.silent", request: z.object({}), reply: z.object({}) };

let serverConn: NatsConnection;
let clientConn: NatsConnection;
let server: RpcServer;
let client: RpcClient;
/** Messages seen on each batch subject and each plain subject. */
const seen = { batches: 0, plain: 0 };

beforeAll(async () => {
  serverConn = await connect({ servers: NATS_URL });
  clientConn = await connect({ servers: NATS_URL });
  server = new RpcServer(serverConn, names, "contacts", new Blobs(serverConn, names.buckets.blobs), log, metrics);
  server.rpc(echo, async (req: { n: number; delayMs: number; fail: boolean; pad: number; padChar: string }) => {
    if (req.delayMs) await new Promise((r) => setTimeout(r, req.delayMs));
    if (req.fail) throw new AppError("NOT_FOUND", `no ${req.n}`);
    return { n: req.n, pad: req.padChar.repeat(req.pad) };
  });
  server.rpc(optional, async (req?: { n: number }) => ({ n: req?.n ?? -1, pad: "" }));
  server.start();
  serverConn.subscribe(names.rpcBatch(echo.operation), { callback: () => seen.batches++ });
  serverConn.subscribe(names.rpc(echo.operation), { callback: () => seen.plain++ });
  await serverConn.flush();
  client = new RpcClient(clientConn, names, new Blobs(clientConn, names.buckets.blobs), 2000);
});

afterAll(async () => {
  await server.stop();
  const jsm = await jetstreamManager(serverConn);
  await jsm.streams.delete(`OBJ_${names.buckets.blobs}`).catch(() => undefined);
  await serverConn.close();
  await clientConn.close();
});

function counted<T>(run: () => Promise<T>): Promise<{ value: T; batches: number; plain: number }> {
  const before = { ...seen };
  return run().then(async (value) => {
    await serverConn.flush();
    return { value, batches: seen.batches - before.batches, plain: seen.plain - before.plain };
  });
}

describe("coalesced RPC", () => {
  it("sends the requests of one turn as one message and answers each with its own reply", async () => {
    const { value, batches, plain } = await counted(() => Promise.all(Array.from({ length: 40 }, (_, n) => client.call(echo, { n }))));
    expect(value.map((r) => (r as { n: number }).n)).toEqual(Array.from({ length: 40 }, (_, n) => n));
    expect(batches).toBe(1);
    expect(plain).toBe(0);
  });

  it("sends a lone request on the operation's own subject, as before batching", async () => {
    const { value, batches, plain } = await counted(() => client.call(echo, { n: 7 }));
    expect(value).toEqual({ n: 7, pad: "" });
    expect(batches).toBe(0);
    expect(plain).toBe(1);
  });

  it("keeps each item's error to itself", async () => {
    const results = await Promise.allSettled(Array.from({ length: 6 }, (_, n) => client.call(echo, { n, fail: n % 2 === 1 })));
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled", "rejected", "fulfilled", "rejected"]);
    const err = (results[1] as PromiseRejectedResult).reason as AppError;
    expect(err).toBeInstanceOf(AppError);
    expect(err.toWire()).toMatchObject({ error: "NOT_FOUND", message: "no 1" });
  });

  it("answers a fast item without waiting for a slow one in the same batch", async () => {
    const started = Date.now();
    let fastAt = 0;
    const fast = client.call(echo, { n: 1 }).then(() => (fastAt = Date.now() - started));
    const slow = client.call(echo, { n: 2, delayMs: 600 });
    await Promise.all([fast, slow]);
    expect(fastAt).toBeLessThan(400);
    expect(Date.now() - started).toBeGreaterThanOrEqual(600);
  });

  it("splits replies that together exceed a message into several messages", async () => {
    // 24 replies of 100 KB: 2.4 MB, past the server's 1 MB message bound.
    const replies = await Promise.all(Array.from({ length: 24 }, (_, n) => client.call(echo, { n, pad: 100_000 })));
    expect(replies.map((r) => (r as { pad: string }).pad.length)).toEqual(Array(24).fill(100_000));
  });

  it("counts bytes, not characters, against the message bound (a CJK character is three)", async () => {
    // 20 requests of 40,000 three-byte characters: 2.4 MB sent in what is 0.8 M characters; 20
    // replies of 120,000 of them: 7.2 MB back, and one reply alone is 360 KB.
    const text = "語".repeat(40_000);
    const replies = await Promise.all(Array.from({ length: 20 }, (_, n) => client.call(echo, { n, text, pad: 120_000, padChar: "語" })));
    expect(replies.map((r) => (r as { n: number }).n)).toEqual(Array.from({ length: 20 }, (_, n) => n));
    expect(replies.every((r) => (r as { pad: string }).pad.length === 120_000)).toBe(true);
  });

  it("carries a reply too big for any message through the blob store", async () => {
    const [big, small] = await Promise.all([client.call(echo, { n: 1, pad: 1_200_000 }), client.call(echo, { n: 2 })]);
    expect((big as { pad: string }).pad.length).toBe(1_200_000);
    expect(small).toEqual({ n: 2, pad: "" });
  });

  it("falls back to one request each when nothing serves the batch subject (a service from before batching)", async () => {
    const op = { ...echo, operation: "test.legacy" };
    const sub = serverConn.subscribe(names.rpc(op.operation), {
      queue: names.queueGroup("contacts"),
      callback: (_e, m) => m.respond(JSON.stringify({ ok: true, result: { n: JSON.parse(m.string()).n, pad: "" } })),
    });
    await serverConn.flush();
    const replies = await Promise.all(Array.from({ length: 5 }, (_, n) => client.call(op, { n })));
    expect(replies.map((r) => (r as { n: number }).n)).toEqual([0, 1, 2, 3, 4]);
    sub.unsubscribe();
  });

  it("answers every item 503 when the service does not answer in time", async () => {
    const sub = serverConn.subscribe(names.rpcBatch(silent.operation), { callback: () => undefined });
    await serverConn.flush();
    const started = Date.now();
    const results = await Promise.allSettled(Array.from({ length: 3 }, () => client.call(silent, {}, { timeoutMs: 300 })));
    expect(Date.now() - started).toBeLessThan(1500);
    for (const r of results) {
      expect(r.status).toBe("rejected");
      expect(((r as PromiseRejectedResult).reason as AppError).toWire()).toMatchObject({ error: "SERVICE_UNAVAILABLE" });
    }
    sub.unsubscribe();
  });

  it("sends a request without a payload as an empty message, batched or not", async () => {
    const replies = await Promise.all([client.call(optional, undefined), client.call(optional, { n: 3 }), client.call(optional, { n: 4 })]);
    expect(replies).toEqual([{ n: -1, pad: "" }, { n: 3, pad: "" }, { n: 4, pad: "" }]);
  });

  it("leaves each request alone when coalescing is off", async () => {
    const plainClient = new RpcClient(clientConn, names, new Blobs(clientConn, names.buckets.blobs), 2000, { coalesce: false });
    const { batches, plain } = await counted(() => Promise.all(Array.from({ length: 10 }, (_, n) => plainClient.call(echo, { n }))));
    expect(batches).toBe(0);
    expect(plain).toBe(10);
  });
});
