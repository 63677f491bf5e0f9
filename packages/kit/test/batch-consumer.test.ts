import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JsMsg } from "@nats-io/jetstream";
import { sleep, waitFor } from "@mailroom/testkit";
import { BatchConsumer, createMetrics, PoisonMessage, SPARE_DELIVERIES, type BatchConsumerSpec } from "../src/index.js";
import { JsFixture, metricFor } from "./js-fixture.js";

const f = new JsFixture("batch");

interface Item {
  n: number;
  bad?: boolean;
}

function spec(t: { subject: string; durable: string }, over: Partial<BatchConsumerSpec<Item>> & Pick<BatchConsumerSpec<Item>, "handle">): BatchConsumerSpec<Item> {
  return {
    stream: f.stream,
    durable: t.durable,
    filterSubject: t.subject,
    batch: 10,
    waitMs: 1000,
    retryDelayMs: () => 50,
    decode: (msg: JsMsg) => [msg.json<Item>()],
    ...over,
  };
}

beforeAll(() => f.open());
afterAll(() => f.close());

describe("BatchConsumer", () => {
  it("hands messages over in batches of at most `batch`, each once, and acks them", async () => {
    const t = f.topic();
    await f.publish(t.subject, Array.from({ length: 25 }, (_, i) => ({ n: i })));
    const batches: number[][] = [];
    const c = new BatchConsumer(f.deps(), spec(t, { handle: async (items) => void batches.push(items.map((i) => i.n)) }));
    await c.start();
    await waitFor(() => batches.flat().length >= 25, { what: "25 handled" });
    await f.drained(t.durable);
    await c.stop();
    expect(batches.every((b) => b.length <= 10)).toBe(true);
    expect(batches.flat()).toEqual(Array.from({ length: 25 }, (_, i) => i));
  });

  it("with `waitMs: 0`, hands a lone message over at once", async () => {
    const t = f.topic();
    const handled: number[] = [];
    const c = new BatchConsumer(f.deps(), spec(t, { waitMs: 0, handle: async (items) => void handled.push(...items.map((i) => i.n)) }));
    await c.start();
    await f.pullOpen(t.durable);
    const published = performance.now();
    await f.publish(t.subject, [{ n: 7 }]);
    await waitFor(() => handled.length > 0, { what: "the message handled" });
    const took = performance.now() - published;
    await c.stop();
    expect(handled).toEqual([7]);
    expect(took).toBeLessThan(900); // not the 1 s fill wait of the other tests
  });

  it("a saturated consumer handles each message once: none waits unkept past the ack wait", async () => {
    const t = f.topic();
    const n = 12;
    await f.publish(t.subject, Array.from({ length: n }, (_, i) => ({ n: i })));
    const handled: number[] = [];
    const metrics = createMetrics("b-sat");
    const c = new BatchConsumer(
      f.deps(metrics),
      spec(t, {
        batch: 2,
        waitMs: 0,
        ackWaitMs: 1000,
        handle: async (items) => {
          await sleep(600);
          handled.push(...items.map((i) => i.n));
        },
      }),
    );
    await c.start();
    await waitFor(() => handled.length >= n, { timeoutMs: 20_000, what: "every message handled" });
    await f.drained(t.durable);
    await c.stop();
    expect(handled.sort((a, b) => a - b)).toEqual(Array.from({ length: n }, (_, i) => i));
    expect(await metricFor(metrics, "redeliveries", t.durable)).toBe(0);
  });

  it("runs `concurrency` batches at once, and takes none while `ready` holds it back", async () => {
    const t = f.topic();
    let open = false;
    const waiting: Array<() => void> = [];
    const ready = () => (open ? Promise.resolve() : new Promise<void>((r) => waiting.push(r)));
    let running = 0;
    let most = 0;
    const handled: number[] = [];
    const c = new BatchConsumer(
      f.deps(),
      spec(t, {
        batch: 1,
        waitMs: 0,
        concurrency: 3,
        ready,
        handle: async (items) => {
          running++;
          most = Math.max(most, running);
          await sleep(300);
          handled.push(...items.map((i) => i.n));
          running--;
        },
      }),
    );
    await c.start();
    await f.publish(t.subject, Array.from({ length: 6 }, (_, i) => ({ n: i })));
    // every worker stopped at `ready` (each calls it before taking a batch), with messages there to take
    await waitFor(() => waiting.length === 3, { what: "the three workers waiting for ready" });
    expect(running).toBe(0);
    expect(handled).toEqual([]);
    open = true;
    for (const w of waiting) w();
    await f.drained(t.durable);
    await c.stop();
    expect(handled.sort()).toEqual([0, 1, 2, 3, 4, 5]);
    expect(most).toBe(3);
  });

  it("acks what `decode` skips and dead-letters what it cannot decode, alone", async () => {
    const t = f.topic();
    await f.publish(t.subject, [{ n: 1 }, "not json", { n: -1 }, { n: 2 }]);
    const handled: number[] = [];
    const givenUp: string[] = [];
    const c = new BatchConsumer(
      f.deps(),
      spec(t, {
        decode: (msg) => {
          const item = msg.json<Item>();
          return item.n < 0 ? [] : [item];
        },
        handle: async (items) => void handled.push(...items.map((i) => i.n)),
        onGiveUp: async (msg) => void givenUp.push(msg.string()),
      }),
    );
    await c.start();
    await f.drained(t.durable);
    await c.stop();
    expect(handled).toEqual([1, 2]);
    expect(givenUp).toEqual(["not json"]);
    expect((await f.deadLetters(t.durable)).map((l) => [l.data, l.attempts])).toEqual([["not json", 1]]);
  });

  it("retries a failing batch, then isolates the bad message so the others go through", async () => {
    const t = f.topic();
    await f.publish(t.subject, [{ n: 1 }, { n: 2, bad: true }, { n: 3 }]);
    const committed: number[] = [];
    const calls: number[][] = [];
    const givenUp: string[] = [];
    const metrics = createMetrics("b3");
    const c = new BatchConsumer(
      f.deps(metrics),
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
    );
    await c.start();
    await waitFor(() => givenUp.length > 0, { timeoutMs: 20_000, what: "the bad message given up" });
    await f.drained(t.durable);
    await c.stop();
    expect(committed.sort()).toEqual([1, 3]);
    expect(givenUp).toEqual([JSON.stringify({ n: 2, bad: true })]);
    // The whole batch once, then (redelivered) one by one; the bad one until its third attempt.
    expect(calls[0]).toEqual([1, 2, 3]);
    expect(calls.filter((b) => b.length === 1 && b[0] === 2)).toHaveLength(2);
    expect(await metricFor(metrics, "redeliveries", t.durable)).toBeGreaterThanOrEqual(2);
  });

  it("a message that always fails ends in the dead-letter stream, counted, and a later one is handled", async () => {
    const t = f.topic();
    const metrics = createMetrics("b-poison");
    const committed: number[] = [];
    const c = new BatchConsumer(
      f.deps(metrics),
      spec(t, {
        waitMs: 0,
        handle: async (items) => {
          if (items.some((i) => i.bad)) throw new Error(`item ${items.find((i) => i.bad)!.n} breaks a constraint`);
          committed.push(...items.map((i) => i.n));
        },
      }),
    );
    await c.start();
    await f.publish(t.subject, [{ n: 1, bad: true }]);
    const [letter] = await waitFor(async () => {
      const l = await f.deadLetters(t.durable);
      return l.length > 0 ? l : null;
    }, { timeoutMs: 30_000, what: "the dead letter" });
    await f.publish(t.subject, [{ n: 2 }]);
    await waitFor(() => committed.includes(2), { what: "the next message handled" });
    await f.drained(t.durable);
    await c.stop();
    expect(letter).toMatchObject({ consumer: t.durable, subject: t.subject, reason: "item 1 breaks a constraint", attempts: 10 });
    expect(JSON.parse(letter!.data)).toEqual({ n: 1, bad: true });
    expect(await metricFor(metrics, "deadLetters", t.durable)).toBe(1);
    const { config } = await f.jsm.consumers.info(f.stream, t.durable);
    expect(config.max_deliver).toBe(10 + SPARE_DELIVERIES);
  });

  it("a PoisonMessage from `handle` isolates at once and gives up only the message that throws it", async () => {
    const t = f.topic();
    await f.publish(t.subject, [{ n: 1 }, { n: 2, bad: true }, { n: 3 }]);
    const committed: number[] = [];
    const givenUp: string[] = [];
    const c = new BatchConsumer(
      f.deps(),
      spec(t, {
        handle: async (items) => {
          if (items.some((i) => i.bad)) throw new PoisonMessage("never applicable");
          committed.push(...items.map((i) => i.n));
        },
        onGiveUp: async (msg) => void givenUp.push(msg.string()),
      }),
    );
    await c.start();
    await f.drained(t.durable);
    await c.stop();
    expect(committed).toEqual([1, 3]);
    expect(givenUp).toHaveLength(1);
  });

  it("retries a failing batch until it succeeds within its attempts", async () => {
    const t = f.topic();
    await f.publish(t.subject, [{ n: 1 }, { n: 2 }]);
    let failures = 3;
    const committed: number[] = [];
    const c = new BatchConsumer(
      f.deps(),
      spec(t, {
        handle: async (items) => {
          if (failures-- > 0) throw new Error("database unavailable");
          committed.push(...items.map((i) => i.n));
        },
      }),
    );
    await c.start();
    await f.drained(t.durable);
    await c.stop();
    expect(committed.sort()).toEqual([1, 2]);
    expect(await f.deadLetters(t.durable)).toEqual([]);
  });

  it("stop() lets the batch in hand finish and be acked, then handles nothing more", async () => {
    const t = f.topic();
    await f.publish(t.subject, [{ n: 1 }, { n: 2 }]);
    let release!: () => void;
    const inHandle = new Promise<void>((r) => (release = r));
    const handled: number[] = [];
    let entered = false;
    const c = new BatchConsumer(
      f.deps(),
      spec(t, {
        waitMs: 5000,
        handle: async (items) => {
          entered = true;
          await inHandle;
          handled.push(...items.map((i) => i.n));
        },
      }),
    );
    await c.start();
    await waitFor(() => entered, { what: "a batch in hand" });
    await f.pullOpen(t.durable); // the room left beside the batch in hand
    let stopped = false;
    const stopping = c.stop().then(() => (stopped = true));
    // stop() has closed its pull, and still waits for the batch in hand
    await waitFor(async () => (await f.jsm.consumers.info(f.stream, t.durable)).num_waiting === 0, { what: "the pull closed" });
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(handled).toEqual([1, 2]);
    await f.publish(t.subject, [{ n: 3 }]);
    // the acks settle at the server a moment later; no pull is open there, so nothing hands out the new message
    const state = async () => {
      const i = await f.jsm.consumers.info(f.stream, t.durable);
      return JSON.stringify({ waiting: i.num_waiting, pending: i.num_pending, ackPending: i.num_ack_pending });
    };
    await waitFor(async () => (await state()) === JSON.stringify({ waiting: 0, pending: 1, ackPending: 0 }), { what: "two acked, one left, no pull" });
    expect(handled).toEqual([1, 2]);
  });

  it("stop() cuts a waiting pull short", async () => {
    const t = f.topic();
    const c = new BatchConsumer(f.deps(), spec(t, { waitMs: 10_000, handle: async () => undefined }));
    await c.start();
    await f.pullOpen(t.durable);
    const started = Date.now();
    await c.stop();
    expect(Date.now() - started).toBeLessThan(3000);
  });
});
