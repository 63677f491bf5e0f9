import type { ConsumerMessages, JetStreamClient, JetStreamManager, JsMsg } from "@nats-io/jetstream";
import { ensureConsumer, type Logger, PoisonMessage } from "@mailroom/kit";

export interface BatchConsumerSpec<T> {
  stream: string;
  durable: string;
  filterSubject: string;
  /** Attempts before a message is given up (terminated). */
  maxDeliver: number;
  /** Messages handed to one `handle` call at most. */
  batch: number;
  /** `handle` calls under way at once. */
  concurrency: number;
  /** Turns a message into an item; throws PoisonMessage for one that can never be handled (terminated). */
  decode(msg: JsMsg): T;
  /** Resolves when the handler can take another batch (backpressure from what it feeds). */
  ready?(): Promise<void>;
  /** Does the durable work for every item; the messages are acked once it resolves. */
  handle(items: T[]): Promise<void>;
}

const retryDelay = (attempt: number) => Math.min(30_000, 250 * 2 ** (attempt - 1));

/**
 * A durable pull consumer that hands its handler whatever has arrived, up to `batch` messages at a
 * time, so one round of database statements serves many messages. It never waits for a batch to
 * fill: a message that arrives alone is handled alone at once, and batches grow only while the
 * handler is busy (the load decides). Messages are acked only after `handle` resolved; when a batch
 * fails, its messages are tried one by one, so one bad message does not hold back the others.
 *
 * The kit's ConsumerRunner takes one message per handler call; campaigns has a fetch-based batch
 * consumer that waits for each fetch to expire. This one is meant to be unified with them in the kit.
 */
export class BatchConsumer<T> {
  private messages: ConsumerMessages | undefined;
  private readonly pending: JsMsg[] = [];
  /** Workers waiting for messages. */
  private readonly idle: Array<() => void> = [];
  private drained: (() => void) | undefined;
  private readonly workers: Promise<void>[] = [];
  private loop: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly spec: BatchConsumerSpec<T>,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    const { stream, durable, filterSubject, maxDeliver } = this.spec;
    await ensureConsumer(this.jsm, { stream, durable, filterSubject, maxDeliver });
    const consumer = await this.js.consumers.get(stream, durable);
    const limit = this.spec.batch * this.spec.concurrency;
    this.messages = await consumer.consume({ max_messages: limit });
    this.loop = (async () => {
      for await (const msg of this.messages!) {
        this.pending.push(msg);
        this.idle.shift()?.();
        // stop pulling while a full round of batches is waiting; the server keeps the rest
        while (this.pending.length >= limit && !this.stopped) await new Promise<void>((r) => (this.drained = r));
      }
    })().catch((err) => this.log.error({ err, durable }, "consumer loop ended"));
    for (let i = 0; i < this.spec.concurrency; i++) this.workers.push(this.work());
  }

  private async work(): Promise<void> {
    while (!this.stopped) {
      if (this.pending.length === 0) {
        await new Promise<void>((r) => this.idle.push(r));
        continue;
      }
      await this.spec.ready?.();
      const msgs = this.pending.splice(0, this.spec.batch);
      this.drained?.();
      if (msgs.length === 0 || this.stopped) {
        for (const m of msgs) m.nak();
        continue;
      }
      // another idle worker takes what is left
      if (this.pending.length > 0) this.idle.shift()?.();
      await this.process(msgs);
    }
  }

  private async process(msgs: JsMsg[]): Promise<void> {
    const decoded: Array<{ msg: JsMsg; item: T }> = [];
    for (const msg of msgs) {
      try {
        decoded.push({ msg, item: this.spec.decode(msg) });
      } catch (err) {
        this.giveUp(msg, err);
      }
    }
    if (decoded.length === 0) return;
    try {
      await this.spec.handle(decoded.map((d) => d.item));
      for (const d of decoded) d.msg.ack();
    } catch (err) {
      if (decoded.length === 1) {
        this.failed(decoded[0]!.msg, err);
        return;
      }
      this.log.warn({ err: String(err), durable: this.spec.durable, count: decoded.length }, "batch failed; trying its messages one by one");
      for (const d of decoded) {
        try {
          await this.spec.handle([d.item]);
          d.msg.ack();
        } catch (one) {
          this.failed(d.msg, one);
        }
      }
    }
  }

  private failed(msg: JsMsg, err: unknown): void {
    const attempt = msg.info.deliveryCount;
    if (err instanceof PoisonMessage || attempt >= this.spec.maxDeliver) {
      this.giveUp(msg, err);
      return;
    }
    const delay = retryDelay(attempt);
    this.log.warn({ err: String(err), durable: this.spec.durable, attempt, delay }, "message failed; retrying");
    msg.nak(delay);
  }

  private giveUp(msg: JsMsg, err: unknown): void {
    this.log.error({ err: String(err), durable: this.spec.durable, attempt: msg.info.deliveryCount }, "message given up");
    msg.term(); // no reason: nats-server 2.9 ignores a "+TERM <reason>" (the reason is logged above)
  }

  /** Stops pulling, lets the batches under way finish (acked), and hands the rest back at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.messages?.close().catch(() => undefined);
    for (const w of this.idle.splice(0)) w();
    this.drained?.();
    await Promise.allSettled(this.workers);
    await this.loop;
    for (const m of this.pending.splice(0)) m.nak();
  }
}
