import type { Consumer, ConsumerMessages, JetStreamClient, JetStreamManager, JsMsg } from "@nats-io/jetstream";
import { SpanKind, context, trace, type Link } from "@opentelemetry/api";
import { PoisonMessage, ensureConsumer, reportPending } from "./consumer.js";
import { extractTrace } from "./nats.js";
import type { Logger } from "./logger.js";
import type { Metrics } from "./metrics.js";

const tracer = trace.getTracer("mailroom-consumer");

export interface BatchConsumerSpec<T> {
  stream: string;
  durable: string;
  /** One subject filter (nats-server 2.9 has no multi-filter consumers). */
  filterSubject?: string;
  /** Messages per batch at most; a batch is one call of `handle`. Default 256. */
  batch?: number;
  /** How long a fetch waits for a full batch before handling what it has (≥ 1000). Default 1000. */
  waitMs?: number;
  /** Attempts before a message is given up (then `onGiveUp` runs and it is terminated); -1, the default, never gives up. */
  maxDeliver?: number;
  ackWaitMs?: number;
  /** Delay before retry n (1-based). */
  retryDelayMs?: (attempt: number) => number;
  /**
   * One message to what `handle` takes, or null when it means nothing here (acked, not handled).
   * A throw makes the message poison: it alone is given up, the rest of its batch goes on.
   */
  decode(msg: JsMsg): T | null;
  /** Applies a batch atomically (one transaction): it resolves when all of it is durable, or throws having applied none of it. */
  handle(items: T[]): Promise<void>;
  onGiveUp?(msg: JsMsg, err: unknown): Promise<void>;
}

interface Item<T> {
  msg: JsMsg;
  value: T;
}

/**
 * A durable pull consumer that handles messages a batch at a time, for projections where one
 * transaction per message would be thousands of small transactions a second (email events at
 * campaign rates). Every message of a batch is acked after `handle` resolved. When it throws, the
 * batch is retried later; when it throws again with redelivered messages in it (or throws a
 * PoisonMessage), its messages are handled one by one so that one bad message cannot hold the others
 * back, and only the failing ones are retried or, past `maxDeliver` or when poison, given up.
 * `handle` must therefore be idempotent: a message may be applied again after a lost ack.
 */
export class BatchConsumer<T> {
  private loop: Promise<void> | undefined;
  private fetching: ConsumerMessages | undefined;
  private pendingTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private wake: (() => void) | undefined;

  constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly spec: BatchConsumerSpec<T>,
    private readonly log: Logger,
    private readonly metrics: Metrics,
  ) {}

  async start(): Promise<void> {
    await ensureConsumer(this.jsm, { ...this.spec, maxDeliver: this.spec.maxDeliver ?? -1 });
    const consumer = await this.js.consumers.get(this.spec.stream, this.spec.durable);
    this.loop = (async () => {
      while (!this.stopped) {
        const msgs = await this.fetch(consumer);
        if (msgs.length > 0) await this.process(msgs);
      }
    })().catch((err) => this.log.error({ err: String(err), durable: this.spec.durable }, "batch consumer loop ended"));
    this.pendingTimer = reportPending(consumer, this.metrics, this.spec.durable);
  }

  private async fetch(consumer: Consumer): Promise<JsMsg[]> {
    const msgs: JsMsg[] = [];
    try {
      this.fetching = await consumer.fetch({ max_messages: this.spec.batch ?? 256, expires: this.spec.waitMs ?? 1000 });
      if (this.stopped) await this.fetching.close();
      for await (const m of this.fetching) msgs.push(m);
    } catch (err) {
      if (this.stopped) return msgs;
      this.log.warn({ err: String(err), durable: this.spec.durable }, "fetch failed; retrying");
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, 1000);
        this.wake = () => (clearTimeout(t), resolve());
      });
    } finally {
      this.fetching = undefined;
    }
    return msgs;
  }

  private async process(msgs: JsMsg[]): Promise<void> {
    const items: Item<T>[] = [];
    for (const msg of msgs) {
      if (msg.redelivered) this.metrics.redeliveries.inc({ consumer: this.spec.durable });
      let value: T | null;
      try {
        value = this.spec.decode(msg);
      } catch (err) {
        await this.giveUp(msg, err);
        continue;
      }
      if (value === null) msg.ack();
      else items.push({ msg, value });
    }
    if (items.length === 0) return;
    try {
      await this.run(items);
      for (const i of items) i.msg.ack();
      return;
    } catch (err) {
      const isolate = items.length > 1 && (err instanceof PoisonMessage || items.some((i) => i.msg.info.deliveryCount > 1));
      this.log.warn({ err: String(err), durable: this.spec.durable, count: items.length, isolate }, "batch failed");
      if (!isolate) {
        for (const i of items) await this.retryOrGiveUp(i.msg, err);
        return;
      }
    }
    for (const i of items) {
      try {
        await this.run([i]);
        i.msg.ack();
      } catch (err) {
        await this.retryOrGiveUp(i.msg, err);
      }
    }
  }

  /** One `handle` call in a consumer span: the message's trace when alone, links to each otherwise. */
  private async run(items: Item<T>[]): Promise<void> {
    const only = items.length === 1 ? extractTrace(items[0]!.msg.headers) : context.active();
    const links: Link[] = [];
    if (items.length > 1) {
      for (const { msg } of items) {
        const sc = msg.headers ? trace.getSpanContext(extractTrace(msg.headers)) : undefined;
        if (sc) links.push({ context: sc });
      }
    }
    const span = tracer.startSpan(
      `consume ${this.spec.durable}`,
      { kind: SpanKind.CONSUMER, links, attributes: { "messaging.batch.message_count": items.length } },
      only,
    );
    try {
      await context.with(trace.setSpan(only, span), () => this.spec.handle(items.map((i) => i.value)));
    } finally {
      span.end();
    }
  }

  private async retryOrGiveUp(msg: JsMsg, err: unknown): Promise<void> {
    const attempt = msg.info.deliveryCount;
    const max = this.spec.maxDeliver ?? -1;
    if (err instanceof PoisonMessage || (max > 0 && attempt >= max)) return this.giveUp(msg, err);
    msg.nak(this.spec.retryDelayMs?.(attempt) ?? Math.min(30_000, 250 * 2 ** (attempt - 1)));
  }

  private async giveUp(msg: JsMsg, err: unknown): Promise<void> {
    const attempt = msg.info.deliveryCount;
    this.log.error({ err: String(err), durable: this.spec.durable, attempt, subject: msg.subject }, "message given up");
    await this.spec.onGiveUp?.(msg, err).catch((e) => this.log.error({ err: String(e) }, "onGiveUp failed"));
    msg.term(); // no reason: nats-server 2.9 ignores a "+TERM <reason>" (the reason is logged above)
  }

  /** Stops fetching, lets the batch in hand finish (its messages are acked), then returns. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.pendingTimer);
    this.wake?.();
    await this.fetching?.close().catch(() => undefined);
    await this.loop;
  }
}
