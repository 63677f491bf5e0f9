// The patched nats-core (patches/@nats-io+nats-core+3.4.0.patch): writes are flushed once per
// event-loop turn, a close still writes what is pending, and an answered request builds no error.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { connect, errors, type NatsConnection } from "@nats-io/transport-node";
import { NATS_URL, runPrefix, waitFor } from "@mailroom/testkit";

const prefix = runPrefix("flush");
let listener: NatsConnection;

beforeAll(async () => {
  listener = await connect({ servers: NATS_URL });
});
afterAll(async () => {
  await listener.close();
});

describe("patched nats-core", () => {
  it("is the patched copy (a fresh install ran patch-package)", () => {
    const main = createRequire(import.meta.url).resolve("@nats-io/nats-core");
    const file = join(dirname(main), "protocol.js");
    expect(readFileSync(file, "utf8")).toContain("flush once per event-loop turn");
  });

  it("delivers publishes made just before close()", async () => {
    const subject = `${prefix}.close`;
    const got: string[] = [];
    const sub = listener.subscribe(subject, { callback: (_e, m) => got.push(m.string()) });
    await listener.flush();
    const nc = await connect({ servers: NATS_URL });
    for (let i = 0; i < 100; i += 1) nc.publish(subject, String(i));
    await nc.close();
    // a lost publish never arrives: the wait then ends at its bound and the comparison shows which
    await waitFor(() => got.length >= 100, { timeoutMs: 5000, what: "100 messages" }).catch(() => undefined);
    sub.unsubscribe();
    expect(got).toEqual(Array.from({ length: 100 }, (_, i) => String(i)));
  });

  it("coalesces publishes from separate I/O callbacks of one turn into one write", async () => {
    const nc = await connect({ servers: NATS_URL });
    const transport = (nc as unknown as { protocol: { transport: { send(d: Uint8Array): void } } }).protocol.transport;
    const send = transport.send.bind(transport);
    // Only frames carrying this test's publishes count: a protocol write of the connection's own
    // (a PONG to the server's PING) may go out in the same window on a busy machine.
    const frames: number[] = [];
    const pub = `PUB ${prefix}.many `;
    transport.send = (d) => {
      const n = Buffer.from(d).toString("latin1").split(pub).length - 1;
      if (n) frames.push(n);
      send(d);
    };
    // Ten timers due at once fire in one timers phase, each followed by a microtask checkpoint:
    // the old microtask flush wrote ten frames.
    await new Promise<void>((resolve) => {
      let left = 10;
      for (let i = 0; i < 10; i += 1) {
        setTimeout(() => {
          nc.publish(`${prefix}.many`, String(i));
          if (--left === 0) setImmediate(resolve);
        }, 1);
      }
    });
    await new Promise((r) => setImmediate(r));
    expect(frames).toEqual([10]);
    await nc.close();
  });

  it("answers requests, and a request nobody answers still fails", async () => {
    const subject = `${prefix}.echo`;
    const sub = listener.subscribe(subject, { callback: (_e, m) => m.respond(m.data) });
    await listener.flush();
    const nc = await connect({ servers: NATS_URL });
    const replies = await Promise.all(Array.from({ length: 50 }, (_, i) => nc.request(subject, String(i), { timeout: 2000 })));
    expect(replies.map((m) => m.string())).toEqual(Array.from({ length: 50 }, (_, i) => String(i)));
    await expect(nc.request(`${prefix}.nobody`, "x", { timeout: 500 })).rejects.toBeInstanceOf(errors.RequestError);
    sub.unsubscribe();
    await nc.close();
  });
});
