import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager, type JsMsg } from "@nats-io/jetstream";
import { NATS_URL, deleteStreams, runPrefix, sleep, waitFor } from "@mailroom/testkit";
import { BatchConsumer, PoisonMessage, createLogger, createMetrics, type BatchConsumerSpec } from "../src/index.js";

const prefix = runPrefix("batch");
const stream = `${prefix}_T`;
const log = createLogger("test", "silent");
let nc: NatsConnection;
let js: JetStreamClient;
let jsm: JetStreamManager;
let n = 0;

interface Item {
  n: number;
  bad?: boolean;
}

/** A subject of its own and a durable of its own per test, on one stream. */
function topic() {
  n += 1;
  return { subject: `${prefix}.t${n}`, durable: `d${n}` };
}

async function publish(subject: string, bodies: Array<Item | string>): Promise<void> {
  for (const b of bodies) await js.publish(subject, typeof b === "string" ? b : JSON.stringify(b));
}

async function numPending(durable: string): Promise<{ pending: number; ackPending: number }> {
  const i = await jsm.consumers.info(stream, durable);
  return { pending: i.num_pending, ackPending: i.num_ack_pending };
}

/** Waits until the consumer has nothing left to deliver or to be acked. */
async function drained(durable: string): Promise<void> {
  await waitFor(async () => {
    const p = await numPending(durable);
    return p.pending === 0 && p.ackPending === 0;
  }, { timeoutMs: 20_000, what: `${durable} drained` });
}

function spec(t: { subject: string; durable: string }, over: Partial<BatchConsumerSpec<Item>> & Pick<BatchConsumerSpec<Item>, "handle">): BatchConsumerSpec<Item> {
  return {
    stream,
    durable: t.durable,
    filterSubject: t.subject,
    batch: 10,
    waitMs: 1000,
    retryDelayMs: () => 50,
    decode: (msg: JsMsg) => msg.json<Item>(),
    ...over,
  };
}

beforeAll(async () => {
  nc = await connect({ servers: NATS_URL });
  js = jetstream(nc);
  jsm = await jetstreamManager(nc);
  await jsm.streams.add({ name: stream, subjects: [`${prefix}.>`] });
});
afterAll(async () => {
  await nc?.close();
  await deleteStreams(NATS_URL, prefix);
});

describe("BatchConsumer", () => {
  it("hands messages over in batches of at most `batch`, each once, and acks them", async () => {
    const t = topic();
    await publish(t.subject, Array.from({ length: 25 }, (_, i) => ({ n: i })));
    const batches: number[][] = [];
    const c = new BatchConsumer(js, jsm, spec(t, { handle: async (items) => void batches.push(items.map((i) => i.n)) }), log, createMetrics("b1"));
    await c.start();
    await waitFor(() => batches.flat().length >= 25, { what: "25 handled" });
    await drained(t.durable);
    await c.stop();
    expect(batches.every((b) => b.length <= 10)).toBe(true);
    expect(batches.flat()).toEqual(Array.from({ length: 25 }, (_, i) => i));
  });

  it("acks what `decode` skips and terminates what it cannot decode, alone", async () => {
    const t = topic();
    await publish(t.subject, [{ n: 1 }, "not json", { n: -1 }, { n: 2 }]);
    const handled: number[] = [];
    const givenUp: string[] = [];
    const c = new BatchConsumer(
      js,
      jsm,
      spec(t, {
        decode: (msg) => {
          const item = msg.json<Item>();
          return item.n < 0 ? null : item;
        },
        handle: async (items) => void handled.push(...items.map((i) => i.n)),
        onGiveUp: async (msg) => void givenUp.push(msg.string()),
      }),
      log,
      createMetrics("b2"),
    );
    await c.start();
    await drained(t.durable);
    await c.stop();
    expect(handled).toEqual([1, 2]);
    expect(givenUp).toEqual(["not json"]);
  });

  it("retries a failing batch, then isolates the bad message so the others go through", async () => {
    const t = topic();
    await publish(t.subject, [{ n: 1 }, { n: 2, bad: true }, { n: 3 }]);
    const committed: number[] = [];
    const calls: number[][] = [];
    const givenUp: string[] = [];
    const metrics = createMetrics("b3");
    const c = new BatchConsumer(
      js,
      jsm,
      spec(t, {
        maxDeliver: 3,
        // All or nothing, as one transaction would be.
        handle: async (items) => {
          calls.push(items.map((i) => i.n));
          if (items.some((i) => i.bad)) throw new Error("constraint violated");
          committed.push(...items.map((i) => i.n));
        },
        onGiveUp: async (msg) => void givenUp.push(msg.string()),
      }),
      log,
      metrics,
    );
    await c.start();
    await waitFor(() => givenUp.length > 0, { timeoutMs: 20_000, what: "the bad message given up" });
    await drained(t.durable);
    await c.stop();
    expect(committed.sort()).toEqual([1, 3]);
    expect(givenUp).toEqual([JSON.stringify({ n: 2, bad: true })]);
    // The whole batch once, then (redelivered) one by one; the bad one until its third attempt.
    expect(calls[0]).toEqual([1, 2, 3]);
    expect(calls.filter((b) => b.length === 1 && b[0] === 2)).toHaveLength(2);
    expect((await metrics.redeliveries.get()).values.reduce((s, v) => s + v.value, 0)).toBeGreaterThanOrEqual(2);
  });

  it("a PoisonMessage from `handle` isolates at once and terminates only the message that throws it", async () => {
    const t = topic();
    await publish(t.subject, [{ n: 1 }, { n: 2, bad: true }, { n: 3 }]);
    const committed: number[] = [];
    const givenUp: string[] = [];
    const c = new BatchConsumer(
      js,
      jsm,
      spec(t, {
        handle: async (items) => {
          if (items.some((i) => i.bad)) throw new PoisonMessage("never applicable");
          committed.push(...items.map((i) => i.n));
        },
        onGiveUp: async (msg) => void givenUp.push(msg.string()),
      }),
      log,
      createMetrics("b4"),
    );
    await c.start();
    await drained(t.durable);
    await c.stop();
    expect(committed).toEqual([1, 3]);
    expect(givenUp).toHaveLength(1);
  });

  it("with unlimited deliveries, retries a failing batch until it succeeds", async () => {
    const t = topic();
    await publish(t.subject, [{ n: 1 }, { n: 2 }]);
    let failures = 3;
    const committed: number[] = [];
    const c = new BatchConsumer(
      js,
      jsm,
      spec(t, {
        handle: async (items) => {
          if (failures-- > 0) throw new Error("database unavailable");
          committed.push(...items.map((i) => i.n));
        },
      }),
      log,
      createMetrics("b5"),
    );
    await c.start();
    await drained(t.durable);
    await c.stop();
    expect(committed.sort()).toEqual([1, 2]);
    expect((await jsm.consumers.info(stream, t.durable)).config.max_deliver).toBe(-1);
  });

  it("stop() lets the batch in hand finish and be acked, then handles nothing more", async () => {
    const t = topic();
    await publish(t.subject, [{ n: 1 }, { n: 2 }]);
    let release!: () => void;
    const inHandle = new Promise<void>((r) => (release = r));
    const handled: number[] = [];
    let entered = false;
    const c = new BatchConsumer(
      js,
      jsm,
      spec(t, {
        waitMs: 5000,
        handle: async (items) => {
          entered = true;
          await inHandle;
          handled.push(...items.map((i) => i.n));
        },
      }),
      log,
      createMetrics("b6"),
    );
    await c.start();
    await waitFor(() => entered, { what: "a batch in hand" });
    const stopping = c.stop();
    await sleep(100);
    release();
    await stopping;
    expect(handled).toEqual([1, 2]);
    await publish(t.subject, [{ n: 3 }]);
    await sleep(300);
    expect(handled).toEqual([1, 2]);
    const p = await numPending(t.durable);
    expect(p).toEqual({ pending: 1, ackPending: 0 });
  });

  it("stop() cuts a waiting fetch short instead of waiting out `waitMs`", async () => {
    const t = topic();
    const c = new BatchConsumer(js, jsm, spec(t, { waitMs: 10_000, handle: async () => undefined }), log, createMetrics("b7"));
    await c.start();
    await sleep(300);
    const started = Date.now();
    await c.stop();
    expect(Date.now() - started).toBeLessThan(3000);
  });
});
