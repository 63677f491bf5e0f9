import { AckPolicy, DeliverPolicy, type Consumer, type ConsumerMessages, type JsMsg } from "@nats-io/jetstream";
import type { JetStreamClient, JetStreamManager } from "@nats-io/jetstream";
import { SpanKind, context, trace } from "@opentelemetry/api";
import { extractTrace } from "./nats.js";
import type { Logger } from "./logger.js";
import type { Metrics } from "./metrics.js";

const tracer = trace.getTracer("mailroom-consumer");

/** Thrown by a handler for a message that can never succeed: it is terminated, not retried. */
export class PoisonMessage extends Error {}

export interface ConsumerSpec {
  stream: string;
  durable: string;
  /** One subject filter (nats-server 2.9 has no multi-filter consumers). */
  filterSubject?: string;
  /** Attempts before a message is given up (then `onGiveUp` runs and it is terminated). */
  maxDeliver?: number;
  ackWaitMs?: number;
  /** Parallel handlers; 1 keeps the stream's order. */
  concurrency?: number;
  /** Delay before retry n (1-based), so a failing dependency is not hammered. */
  retryDelayMs?: (attempt: number) => number;
  handle(msg: JsMsg): Promise<void>;
  onGiveUp?(msg: JsMsg, err: unknown): Promise<void>;
}

/** The durable's server-side settings; an existing durable keeps the ones it was created with. */
export type DurableSettings = Pick<ConsumerSpec, "stream" | "durable" | "filterSubject" | "maxDeliver" | "ackWaitMs">;

export async function ensureConsumer(jsm: JetStreamManager, spec: DurableSettings): Promise<void> {
  try {
    await jsm.consumers.info(spec.stream, spec.durable);
  } catch {
    await jsm.consumers
      .add(spec.stream, {
        durable_name: spec.durable,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        ack_wait: (spec.ackWaitMs ?? 30_000) * 1e6,
        max_deliver: spec.maxDeliver ?? 10,
        max_ack_pending: 10_000,
        ...(spec.filterSubject ? { filter_subject: spec.filterSubject } : {}),
      })
      .catch((err: Error) => {
        if (!/already in use|exists/i.test(err.message)) throw err;
      });
  }
}

/** Sets the consumer's pending gauge every 10 s (unref'd: it never keeps a process alive). */
export function reportPending(consumer: Consumer, metrics: Metrics, durable: string): NodeJS.Timeout {
  const timer = setInterval(() => {
    consumer
      .info(true)
      .then((i) => metrics.consumerPending.set({ consumer: durable }, i.num_pending))
      .catch(() => undefined);
  }, 10_000);
  timer.unref();
  return timer;
}

/**
 * Runs a durable pull consumer: a message is acked only after its handler resolved (its work is
 * durable), retried with a delay when the handler throws, and terminated when it is poison or has
 * used up its attempts.
 */
export class ConsumerRunner {
  private messages: ConsumerMessages | undefined;
  private readonly inflight = new Set<Promise<void>>();
  private loop: Promise<void> | undefined;
  private pendingTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly js: JetStreamClient,
    private readonly spec: ConsumerSpec,
    private readonly log: Logger,
    private readonly metrics: Metrics,
  ) {}

  async start(): Promise<void> {
    const consumer = await this.js.consumers.get(this.spec.stream, this.spec.durable);
    const concurrency = this.spec.concurrency ?? 1;
    this.messages = await consumer.consume({ max_messages: Math.max(concurrency * 2, 16) });
    this.loop = (async () => {
      for await (const msg of this.messages!) {
        while (this.inflight.size >= concurrency) await Promise.race(this.inflight);
        const p = this.process(msg).finally(() => this.inflight.delete(p));
        this.inflight.add(p);
      }
    })().catch((err) => this.log.error({ err, durable: this.spec.durable }, "consumer loop ended"));
    this.pendingTimer = reportPending(consumer, this.metrics, this.spec.durable);
  }

  private async process(msg: JsMsg): Promise<void> {
    const attempt = msg.info.deliveryCount;
    if (msg.redelivered) this.metrics.redeliveries.inc({ consumer: this.spec.durable });
    const ctx = extractTrace(msg.headers);
    const span = tracer.startSpan(`consume ${this.spec.durable}`, { kind: SpanKind.CONSUMER }, ctx);
    try {
      await context.with(trace.setSpan(ctx, span), () => this.spec.handle(msg));
      msg.ack();
    } catch (err) {
      const max = this.spec.maxDeliver ?? 10;
      if (err instanceof PoisonMessage || attempt >= max) {
        this.log.error({ err: String(err), durable: this.spec.durable, attempt }, "message given up");
        await this.spec.onGiveUp?.(msg, err).catch((e) => this.log.error({ err: String(e) }, "onGiveUp failed"));
        // No reason: nats-server 2.9 ignores a "+TERM <reason>", leaving the message to be redelivered.
        msg.term();
      } else {
        const delay = this.spec.retryDelayMs?.(attempt) ?? Math.min(30_000, 250 * 2 ** (attempt - 1));
        this.log.warn({ err: String(err), durable: this.spec.durable, attempt, delay }, "message failed; retrying");
        msg.nak(delay);
      }
    } finally {
      span.end();
    }
  }

  /** Stops pulling, lets in-flight handlers finish (their messages are acked), then returns. */
  async stop(): Promise<void> {
    clearInterval(this.pendingTimer);
    await this.messages?.close().catch(() => undefined);
    await Promise.allSettled([...this.inflight]);
    await this.loop;
  }
}
