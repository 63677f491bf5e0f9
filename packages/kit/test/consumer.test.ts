import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AckPolicy } from "@nats-io/jetstream";
import { sleep, waitFor } from "@mailroom/testkit";
import { ConsumerRunner, createMetrics, PoisonMessage, SPARE_DELIVERIES, type ConsumerSpec } from "../src/index.js";
import { JsFixture, metricFor } from "./js-fixture.js";

const f = new JsFixture("consumer");

function spec(t: { subject: string; durable: string }, over: Partial<ConsumerSpec> & Pick<ConsumerSpec, "handle">): ConsumerSpec {
  return { stream: f.stream, durable: t.durable, filterSubject: t.subject, retryDelayMs: () => 50, ...over };
}

beforeAll(() => f.open());
afterAll(() => f.close());

describe("ConsumerRunner", () => {
  it("a saturated replica handles each message once: nothing waits unkept past the ack wait", async () => {
    const t = f.topic();
    const n = 8;
    await f.publish(t.subject, Array.from({ length: n }, (_, i) => ({ n: i })));
    const handled: number[] = [];
    const metrics = createMetrics("c1");
    // One handler, 400 ms a message, a 1 s ack wait: the last message waits ~3 s for its turn.
    const runner = new ConsumerRunner(
      f.deps(metrics),
      spec(t, {
        concurrency: 1,
        ackWaitMs: 1000,
        handle: async (msg) => {
          await sleep(400);
          handled.push(msg.json<{ n: number }>().n);
        },
      }),
    );
    await runner.start();
    await waitFor(() => handled.length >= n, { timeoutMs: 20_000, what: "every message handled" });
    await f.drained(t.durable);
    await runner.stop();
    expect(handled).toEqual(Array.from({ length: n }, (_, i) => i));
    expect(await metricFor(metrics, "redeliveries", t.durable)).toBe(0);
  });

  it("keeps a message alive while a handler slower than the ack wait works on it", async () => {
    const t = f.topic();
    await f.publish(t.subject, [{ n: 1 }, { n: 2 }]);
    const handled: number[] = [];
    const runner = new ConsumerRunner(
      f.deps(),
      spec(t, {
        concurrency: 2,
        ackWaitMs: 1000,
        handle: async (msg) => {
          await sleep(2500);
          handled.push(msg.json<{ n: number }>().n);
        },
      }),
    );
    await runner.start();
    await f.drained(t.durable);
    await runner.stop();
    expect(handled.sort()).toEqual([1, 2]);
  });

  it("dead-letters a message that always fails, counts it, and goes on with the next one", async () => {
    const t = f.topic();
    const metrics = createMetrics("c3");
    const attempts: number[] = [];
    const good: number[] = [];
    const givenUp: string[] = [];
    const runner = new ConsumerRunner(
      f.deps(metrics),
      spec(t, {
        maxDeliver: 3,
        handle: async (msg) => {
          const body = msg.json<{ n: number; bad?: boolean }>();
          if (body.bad) {
            attempts.push(msg.info.deliveryCount);
            throw new Error("the database refused it");
          }
          good.push(body.n);
        },
        onGiveUp: async (msg) => void givenUp.push(msg.string()),
      }),
    );
    await runner.start();
    await f.publish(t.subject, [{ n: 1, bad: true }]);
    await waitFor(() => attempts.length > 0, { what: "the bad message tried" });
    await f.publish(t.subject, [{ n: 2 }]);
    await waitFor(() => good.includes(2), { what: "the message after the bad one handled" });
    const [letter] = await waitFor(async () => {
      const l = await f.deadLetters(t.durable);
      return l.length > 0 ? l : null;
    }, { what: "a dead letter" });
    await f.drained(t.durable);
    await runner.stop();
    expect(attempts).toEqual([1, 2, 3]);
    expect(givenUp).toEqual([JSON.stringify({ n: 1, bad: true })]);
    expect(letter).toMatchObject({
      consumer: t.durable,
      stream: f.stream,
      subject: t.subject,
      data: JSON.stringify({ n: 1, bad: true }),
      truncated: false,
      reason: "the database refused it",
      attempts: 3,
    });
    expect(await metricFor(metrics, "deadLetters", t.durable)).toBe(1);
    expect(await f.deadLetters(t.durable)).toHaveLength(1);
  });

  it("dead-letters a PoisonMessage at once, its body cut to the bound", async () => {
    const t = f.topic();
    const big = "x".repeat(100 * 1024);
    await f.publish(t.subject, [big]);
    const calls: number[] = [];
    const runner = new ConsumerRunner(
      f.deps(),
      spec(t, {
        handle: async (msg) => {
          calls.push(msg.info.deliveryCount);
          throw new PoisonMessage("never applicable");
        },
      }),
    );
    await runner.start();
    await f.drained(t.durable);
    await runner.stop();
    const [letter] = await f.deadLetters(t.durable);
    expect(calls).toEqual([1]);
    expect(letter).toMatchObject({ reason: "never applicable", attempts: 1, truncated: true, dataBytes: 100 * 1024 });
    expect(letter!.data).toHaveLength(64 * 1024);
  });

  it("gives up without handling a message whose last attempt never finished", async () => {
    const t = f.topic();
    const calls: number[] = [];
    const s = spec(t, { maxDeliver: 2, ackWaitMs: 1000, handle: async () => void calls.push(1) });
    // Both attempts are received by processes that die during them: never settled, redelivered.
    await f.jsm.consumers.add(f.stream, {
      durable_name: t.durable,
      ack_policy: AckPolicy.Explicit,
      ack_wait: 1e9,
      max_deliver: 2 + SPARE_DELIVERIES,
      filter_subject: t.subject,
    });
    await f.publish(t.subject, [{ n: 1 }]);
    const raw = await f.js.consumers.get(f.stream, t.durable);
    for (let i = 1; i <= 2; i++) {
      const m = await raw.next({ expires: 5000 });
      expect(m?.info.deliveryCount).toBe(i);
    }
    const runner = new ConsumerRunner(f.deps(), s);
    await runner.start();
    const [letter] = await waitFor(async () => {
      const l = await f.deadLetters(t.durable);
      return l.length > 0 ? l : null;
    }, { what: "a dead letter" });
    await f.drained(t.durable);
    await runner.stop();
    expect(calls).toEqual([]);
    expect(letter).toMatchObject({ attempts: 3, reason: expect.stringMatching(/attempts used/) });
  });

  it("brings a durable created without a delivery bound to the current one on start", async () => {
    const t = f.topic();
    await f.jsm.consumers.add(f.stream, { durable_name: t.durable, ack_policy: AckPolicy.Explicit, max_deliver: -1, filter_subject: t.subject });
    const runner = new ConsumerRunner(f.deps(), spec(t, { maxDeliver: 4, ackWaitMs: 7000, handle: async () => undefined }));
    await runner.start();
    await runner.stop();
    const { config } = await f.jsm.consumers.info(f.stream, t.durable);
    expect(config.max_deliver).toBe(4 + SPARE_DELIVERIES);
    expect(config.ack_wait).toBe(7000 * 1e6);
  });

  it("stop() lets the handler in hand finish and be acked, and hands nothing else out", async () => {
    const t = f.topic();
    await f.publish(t.subject, [{ n: 1 }, { n: 2 }]);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const handled: number[] = [];
    let entered = false;
    const runner = new ConsumerRunner(
      f.deps(),
      spec(t, {
        handle: async (msg) => {
          entered = true;
          await gate;
          handled.push(msg.json<{ n: number }>().n);
        },
      }),
    );
    await runner.start();
    await waitFor(() => entered, { what: "a message in hand" });
    const stopping = runner.stop();
    release();
    await stopping;
    expect(handled).toEqual([1]);
    // the server settles the ack a moment later; the second message was never pulled
    await waitFor(async () => JSON.stringify(await f.pending(t.durable)) === JSON.stringify({ pending: 1, ackPending: 0 }), { what: "one acked, one left" });
    expect(handled).toEqual([1]);
  });
});
