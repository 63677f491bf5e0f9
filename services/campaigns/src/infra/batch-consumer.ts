import type { JetStreamClient, JetStreamManager, JsMsg } from "@nats-io/jetstream";
import { ensureConsumer, type Logger } from "@mailroom/kit";

export interface BatchConsumerSpec {
  stream: string;
  durable: string;
  filterSubject: string;
  /** Messages per batch at most; a batch is one call of `handle`. */
  batch: number;
  /** How long a fetch waits for a full batch before handling what it has. */
  waitMs: number;
  handle(msgs: JsMsg[]): Promise<void>;
}

/**
 * A durable pull consumer that handles messages a batch at a time: the whole batch is applied in one
 * database transaction, then every message is acked; if the handler throws, they are all redelivered.
 * The kit's ConsumerRunner takes one message per handler call, which at campaign rates (two or more
 * email events per recipient) would mean thousands of small transactions a second on one row.
 *
 * Messages are redelivered without limit: a stat that is dropped could leave a campaign in SENDING.
 * The handler must therefore skip (not throw on) messages it can never apply.
 */
export class BatchConsumer {
  private loop: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly spec: BatchConsumerSpec,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    await ensureConsumer(this.jsm, {
      stream: this.spec.stream,
      durable: this.spec.durable,
      filterSubject: this.spec.filterSubject,
      maxDeliver: -1,
      handle: async () => undefined,
    });
    const consumer = await this.js.consumers.get(this.spec.stream, this.spec.durable);
    this.loop = (async () => {
      while (!this.stopped) {
        const msgs: JsMsg[] = [];
        try {
          const fetched = await consumer.fetch({ max_messages: this.spec.batch, expires: this.spec.waitMs });
          for await (const m of fetched) msgs.push(m);
        } catch (err) {
          this.log.warn({ err: String(err), durable: this.spec.durable }, "fetch failed; retrying");
          await new Promise((r) => setTimeout(r, 1000));
        }
        if (msgs.length === 0) continue;
        try {
          await this.spec.handle(msgs);
          for (const m of msgs) m.ack();
        } catch (err) {
          this.log.warn({ err: String(err), durable: this.spec.durable, count: msgs.length }, "batch failed; redelivering");
          for (const m of msgs) m.nak(2000);
        }
      }
    })();
  }

  /** Lets the current batch finish (a fetch ends within `waitMs`), then returns. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }
}
