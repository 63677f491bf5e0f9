import { AckPolicy, DeliverPolicy, type Consumer, type JsMsg } from "@nats-io/jetstream";
import type { JetStreamClient, JetStreamManager } from "@nats-io/jetstream";
import { SpanKind, context, trace } from "@opentelemetry/api";
import { type DeadLetters, Failures, SPARE_DELIVERIES } from "./dead-letter.js";
import { extractTrace, orNone, unlessMadeMeanwhile, whileBusAway } from "./nats.js";
import { Puller } from "./puller.js";
import type { Logger } from "./logger.js";
import type { Metrics } from "./metrics.js";
import { Periodic } from "./periodic.js";

const tracer = trace.getTracer("mailroom-consumer");

export const DEFAULT_MAX_DELIVER = 10;
export const DEFAULT_ACK_WAIT_MS = 30_000;

export interface ConsumerSpec {
  stream: string;
  durable: string;
  /** One subject filter (nats-server 2.9 has no multi-filter consumers). */
  filterSubject?: string;
  /** Attempts before a failing message is given up (`onGiveUp`, then the dead-letter subject). Default 10. */
  maxDeliver?: number;
  /** The server redelivers a message not acked (nor kept alive) within this. Default 30 s. */
  ackWaitMs?: number;
  /** Parallel handlers; 1 keeps the stream's order. */
  concurrency?: number;
  /** Delay before retry n (1-based), so a failing dependency is not hammered. */
  retryDelayMs?: (attempt: number) => number;
  handle(msg: JsMsg): Promise<void>;
  onGiveUp?(msg: JsMsg, err: unknown): Promise<void>;
}

/** What a consumer needs from the runtime. */
export interface ConsumerDeps {
  js: JetStreamClient;
  jsm: JetStreamManager;
  log: Logger;
  metrics: Metrics;
  deadLetters: DeadLetters;
  /** The ack wait of a consumer whose spec sets none (the service's CONSUMER_ACK_WAIT_MS); 30 s without. */
  ackWaitMs?: number;
}

/** A consumer's ack wait: its own, else its service's, else the default. */
export const ackWaitOf = (spec: Pick<ConsumerSpec, "ackWaitMs">, deps: Pick<ConsumerDeps, "ackWaitMs">): number =>
  spec.ackWaitMs ?? deps.ackWaitMs ?? DEFAULT_ACK_WAIT_MS;

/** The durable's server-side settings. */
export type DurableSettings = Pick<ConsumerSpec, "stream" | "durable" | "filterSubject" | "maxDeliver" | "ackWaitMs">;

/**
 * Creates the durable, or brings an existing one to the settings asked for: a durable created by an
 * older version (e.g. with unlimited deliveries) gets the current bound on its next start. Safe when
 * N processes start at once (a lost creation race is success; updates are idempotent).
 */
export function ensureConsumer(jsm: JetStreamManager, spec: DurableSettings): Promise<void> {
  return whileBusAway(() => ensureConsumerOnce(jsm, spec));
}

async function ensureConsumerOnce(jsm: JetStreamManager, spec: DurableSettings): Promise<void> {
  const want = {
    ack_wait: (spec.ackWaitMs ?? DEFAULT_ACK_WAIT_MS) * 1e6,
    // the handler's attempts plus the spare deliveries that only carry a message to its dead letter
    max_deliver: (spec.maxDeliver ?? DEFAULT_MAX_DELIVER) + SPARE_DELIVERIES,
  };
  const existing = await orNone(jsm.consumers.info(spec.stream, spec.durable));
  if (existing) {
    const c = existing.config;
    if (c.ack_wait !== want.ack_wait || c.max_deliver !== want.max_deliver) await jsm.consumers.update(spec.stream, spec.durable, want);
    return;
  }
  await jsm.consumers
    .add(spec.stream, {
      durable_name: spec.durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      max_ack_pending: 10_000,
      ...want,
      ...(spec.filterSubject ? { filter_subject: spec.filterSubject } : {}),
    })
    .catch(unlessMadeMeanwhile);
}

/** Sets the consumer's pending gauge every 10 s, from now until the loop returned is stopped. */
export function reportPending(consumer: Consumer, metrics: Metrics, durable: string, log: Logger): Periodic {
  const loop = new Periodic({
    name: `consumer ${durable} pending gauge`,
    everyMs: 10_000,
    log,
    run: async () => metrics.consumerPending.set({ consumer: durable }, (await consumer.info(true)).num_pending),
  });
  loop.start();
  return loop;
}

/**
 * Runs a durable pull consumer, one message per handler call: a message is acked only after its
 * handler resolved (its work is durable), retried with a delay when the handler throws, and given up
 * (dead-lettered, then terminated) when it is poison or has used up its attempts. It pulls only as
 * many messages as it has free handlers and keeps each alive while it is handled.
 */
export class ConsumerRunner {
  private puller: Puller | undefined;
  private readonly inflight = new Set<Promise<void>>();
  private loop: Promise<void> | undefined;
  private pendingGauge: Periodic | undefined;
  private readonly failures: Failures;

  constructor(
    private readonly deps: ConsumerDeps,
    private readonly spec: ConsumerSpec,
  ) {
    this.failures = new Failures(deps, { ...spec, maxDeliver: spec.maxDeliver ?? DEFAULT_MAX_DELIVER });
  }

  async start(): Promise<void> {
    const { js, jsm, log, metrics } = this.deps;
    const ackWaitMs = ackWaitOf(this.spec, this.deps);
    await ensureConsumer(jsm, { ...this.spec, ackWaitMs });
    const consumer = await js.consumers.get(this.spec.stream, this.spec.durable);
    const concurrency = this.spec.concurrency ?? 1;
    const puller = new Puller(consumer, { durable: this.spec.durable, capacity: concurrency, ackWaitMs }, log);
    this.puller = puller;
    puller.start();
    // The puller holds no more than `concurrency` messages, so each one taken has a handler at once.
    this.loop = (async () => {
      for (;;) {
        const msgs = await puller.take(concurrency);
        if (msgs.length === 0) return;
        for (const msg of msgs) {
          const p = this.process(msg).finally(() => {
            this.inflight.delete(p);
            puller.release(msg);
          });
          this.inflight.add(p);
        }
      }
    })().catch((err) => log.error({ err: String(err), durable: this.spec.durable }, "consumer loop ended"));
    this.pendingGauge = reportPending(consumer, metrics, this.spec.durable, log);
  }

  private async process(msg: JsMsg): Promise<void> {
    if (msg.redelivered) this.deps.metrics.redeliveries.inc({ consumer: this.spec.durable });
    if (await this.failures.exhausted(msg)) return;
    const ctx = extractTrace(msg.headers);
    const span = tracer.startSpan(`consume ${this.spec.durable}`, { kind: SpanKind.CONSUMER }, ctx);
    try {
      await context.with(trace.setSpan(ctx, span), () => this.spec.handle(msg));
      msg.ack();
    } catch (err) {
      await this.failures.failed(msg, err);
    } finally {
      span.end();
    }
  }

  /** Stops pulling, lets in-flight handlers finish (their messages are acked), then returns. */
  async stop(): Promise<void> {
    await this.pendingGauge?.stop();
    await this.puller?.stop();
    await this.loop;
    await Promise.allSettled([...this.inflight]);
    await this.puller?.dispose();
  }
}
