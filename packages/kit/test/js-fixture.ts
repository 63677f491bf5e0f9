import { connect, type NatsConnection } from "@nats-io/transport-node";
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from "@nats-io/jetstream";
import { wireNames, type DeadLetter, type WireNames } from "@mailroom/contracts";
import { NATS_URL, deleteStreams, readDeadLetters, runPrefix, waitFor } from "@mailroom/testkit";
import { coreStreams, createLogger, createMetrics, DeadLetters, ensureStreams, type ConsumerDeps, type Metrics } from "../src/index.js";

/**
 * A stream of its own (`<prefix>_T` on `<prefix>.test.>`) and the prefix's dead-letter stream, on the
 * real NATS, for consumer tests. Each test takes a subject and a durable of its own with `topic()`.
 */
export class JsFixture {
  readonly prefix: string;
  readonly names: WireNames;
  readonly stream: string;
  nc!: NatsConnection;
  js!: JetStreamClient;
  jsm!: JetStreamManager;
  private n = 0;

  constructor(tag: string) {
    this.prefix = runPrefix(tag);
    this.names = wireNames(this.prefix);
    this.stream = `${this.prefix}_T`;
  }

  async open(): Promise<void> {
    this.nc = await connect({ servers: NATS_URL });
    this.js = jetstream(this.nc);
    this.jsm = await jetstreamManager(this.nc);
    await this.jsm.streams.add({ name: this.stream, subjects: [`${this.prefix}.test.>`] });
    const dl = this.names.streams.deadLetters.name;
    await ensureStreams(this.jsm, coreStreams(this.names, 1).filter((s) => s.name === dl));
  }

  async close(): Promise<void> {
    await this.nc?.close();
    await deleteStreams(NATS_URL, this.prefix);
  }

  topic(): { subject: string; durable: string } {
    this.n += 1;
    return { subject: `${this.prefix}.test.t${this.n}`, durable: `d${this.n}` };
  }

  deps(metrics: Metrics = createMetrics("test")): ConsumerDeps {
    return { js: this.js, jsm: this.jsm, log: createLogger("test", "silent"), metrics, deadLetters: new DeadLetters(this.js, this.names, metrics) };
  }

  async publish(subject: string, bodies: Array<unknown>): Promise<void> {
    for (const b of bodies) await this.js.publish(subject, typeof b === "string" ? b : JSON.stringify(b));
  }

  async pending(durable: string): Promise<{ pending: number; ackPending: number }> {
    const i = await this.jsm.consumers.info(this.stream, durable);
    return { pending: i.num_pending, ackPending: i.num_ack_pending };
  }

  /** Waits until a pull request of the durable is open at the server (its client waits for messages). */
  async pullOpen(durable: string, timeoutMs = 10_000): Promise<void> {
    await waitFor(async () => (await this.jsm.consumers.info(this.stream, durable)).num_waiting > 0, { timeoutMs, what: `a pull of ${durable} open` });
  }

  /** Waits until the consumer has nothing left to deliver or to be acked. */
  async drained(durable: string, timeoutMs = 20_000): Promise<void> {
    await waitFor(
      async () => {
        const p = await this.pending(durable);
        return p.pending === 0 && p.ackPending === 0;
      },
      { timeoutMs, what: `${durable} drained` },
    );
  }

  /** The dead letters of a durable, in order. */
  deadLetters(durable: string): Promise<DeadLetter[]> {
    return readDeadLetters(NATS_URL, this.prefix, durable);
  }
}

/** The value of a counter (or gauge) of a registry for one consumer label. */
export async function metricFor(metrics: Metrics, name: "deadLetters" | "redeliveries", consumer: string): Promise<number> {
  const v = (await metrics[name].get()).values.find((x) => x.labels.consumer === consumer);
  return v?.value ?? 0;
}
