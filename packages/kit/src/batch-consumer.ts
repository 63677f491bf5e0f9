import type { JsMsg } from "@nats-io/jetstream";
import { SpanKind, context, trace, type Link } from "@opentelemetry/api";
import { ackWaitOf, DEFAULT_MAX_DELIVER, ensureConsumer, reportPending, type ConsumerDeps } from "./consumer.js";
import { Failures, PoisonMessage } from "./dead-letter.js";
import type { Periodic } from "./periodic.js";
import { extractTrace } from "./nats.js";
import { Puller } from "./puller.js";

const tracer = trace.getTracer("mailroom-consumer");

export interface BatchConsumerSpec<T> {
  stream: string;
  durable: string;
  /** One subject filter (nats-server 2.9 has no multi-filter consumers). */
  filterSubject?: string;
  /** Messages per batch at most; a batch is one call of `handle`. Default 256. */
  batch?: number;
  /**
   * How long the first message of a batch waits for the batch to fill (bigger batches, fewer
   * transactions). 0, the default, hands over whatever has arrived at once: batches then grow only
   * while every handler is busy.
   */
  waitMs?: number;
  /** `handle` calls under way at once. Default 1. */
  concurrency?: number;
  /** Attempts before a failing message is given up (`onGiveUp`, then the dead-letter subject). Default 10. */
  maxDeliver?: number;
  ackWaitMs?: number;
  /** Delay before retry n (1-based). */
  retryDelayMs?: (attempt: number) => number;
  /**
   * The items one message carries for `handle` (an event batch carries many), none when it means
   * nothing here (acked, not handled). A throw makes the message poison: it alone is given up, the
   * rest of its batch goes on.
   */
  decode(msg: JsMsg): readonly T[];
  /** Resolves when the handler can take another batch (backpressure from what it feeds). */
  ready?(): Promise<void>;
  /** Applies a batch atomically (one transaction): it resolves when all of it is durable, or throws having applied none of it. */
  handle(items: T[]): Promise<void>;
  onGiveUp?(msg: JsMsg, err: unknown): Promise<void>;
}

interface Item<T> {
  msg: JsMsg;
  values: readonly T[];
}

/**
 * A durable pull consumer that handles messages a batch at a time, for projections where one
 * transaction per message would be thousands of small transactions a second (email events at
 * campaign rates, workflow triggers). Every message of a batch is acked after `handle` resolved. When
 * it throws, the batch is retried later; when it throws again with redelivered messages in it (or
 * throws a PoisonMessage), its messages are handled one by one so that one bad message cannot hold
 * the others back, and only the failing ones are retried or, past `maxDeliver` or when poison, given
 * up to the dead-letter subject. `handle` must therefore be idempotent: a message may be applied
 * again after a lost ack. It holds at most `batch × concurrency` messages and keeps them all alive.
 */
export class BatchConsumer<T> {
  private puller: Puller | undefined;
  private readonly workers: Promise<void>[] = [];
  private pendingGauge: Periodic | undefined;
  private stopped = false;
  private readonly stopping: Promise<void>;
  private signalStop: () => void = () => undefined;
  private readonly failures: Failures;

  constructor(
    private readonly deps: ConsumerDeps,
    private readonly spec: BatchConsumerSpec<T>,
  ) {
    this.failures = new Failures(deps, { ...spec, maxDeliver: spec.maxDeliver ?? DEFAULT_MAX_DELIVER });
    this.stopping = new Promise((r) => (this.signalStop = r));
  }

  private get batch(): number {
    return this.spec.batch ?? 256;
  }

  async start(): Promise<void> {
    const { js, jsm, log, metrics } = this.deps;
    const ackWaitMs = ackWaitOf(this.spec, this.deps);
    await ensureConsumer(jsm, { ...this.spec, ackWaitMs });
    const consumer = await js.consumers.get(this.spec.stream, this.spec.durable);
    const concurrency = this.spec.concurrency ?? 1;
    const puller = new Puller(consumer, { durable: this.spec.durable, capacity: this.batch * concurrency, ackWaitMs }, log);
    this.puller = puller;
    puller.start();
    for (let i = 0; i < concurrency; i++) {
      this.workers.push(this.work(puller).catch((err) => log.error({ err: String(err), durable: this.spec.durable }, "batch consumer worker ended")));
    }
    this.pendingGauge = reportPending(consumer, metrics, this.spec.durable, log);
  }

  private async work(puller: Puller): Promise<void> {
    while (!this.stopped) {
      if (this.spec.ready) await Promise.race([this.spec.ready(), this.stopping]);
      const msgs = await puller.take(this.batch, this.spec.waitMs ?? 0);
      if (msgs.length === 0) return;
      try {
        await this.process(msgs);
      } finally {
        for (const m of msgs) puller.release(m);
      }
    }
  }

  private async process(msgs: JsMsg[]): Promise<void> {
    const items: Item<T>[] = [];
    for (const msg of msgs) {
      if (msg.redelivered) this.deps.metrics.redeliveries.inc({ consumer: this.spec.durable });
      if (await this.failures.exhausted(msg)) continue;
      let values: readonly T[];
      try {
        values = this.spec.decode(msg);
      } catch (err) {
        await this.failures.giveUp(msg, err);
        continue;
      }
      if (values.length === 0) msg.ack();
      else items.push({ msg, values });
    }
    if (items.length === 0) return;
    try {
      await this.run(items);
      for (const i of items) i.msg.ack();
      return;
    } catch (err) {
      const isolate = items.length > 1 && (err instanceof PoisonMessage || items.some((i) => i.msg.info.deliveryCount > 1));
      this.deps.log.warn({ err: String(err), durable: this.spec.durable, count: items.length, isolate }, "batch failed");
      if (!isolate) {
        for (const i of items) await this.failures.failed(i.msg, err);
        return;
      }
    }
    for (const i of items) {
      try {
        await this.run([i]);
        i.msg.ack();
      } catch (err) {
        await this.failures.failed(i.msg, err);
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
      await context.with(trace.setSpan(only, span), () => this.spec.handle(items.length === 1 ? [...items[0]!.values] : items.flatMap((i) => i.values)));
    } finally {
      span.end();
    }
  }

  /** Stops pulling, lets the batches in hand finish (acked), and hands the rest back at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.signalStop();
    await this.pendingGauge?.stop();
    await this.puller?.stop();
    await Promise.allSettled(this.workers);
    await this.puller?.dispose();
  }
}
