import { setImmediate as nextTurn } from "node:timers/promises";
import type { Consumer, ConsumerMessages, JsMsg } from "@nats-io/jetstream";
import type { Logger } from "./logger.js";
import { Periodic } from "./periodic.js";

/** How long one pull request stays open; the server pushes each message into it as it arrives. */
const FETCH_EXPIRES_MS = 10_000;

/**
 * Messages one pull request may bring. A pull for all the room of a consumer holding a few hundred
 * event batches of up to 256 KB each asked the server for over 100 MB at once, past what nats-server
 * lets one connection have pending (64 MB), and the server cut the service off as a slow consumer
 * mid-delivery. 64 batches are at most 16 MB, and a service's consumers share its connection.
 * (A pull's `max_bytes` would say it directly, but nats-server 2.9 delivers nothing to such a pull.)
 */
const FETCH_MAX_MESSAGES = 64;

export interface PullerOptions {
  durable: string;
  /** Messages held at most: received and not yet settled (waiting for a handler, or being handled). */
  capacity: number;
  /** The durable's ack wait: every held message is told `working()` well within it. */
  ackWaitMs: number;
}

/**
 * Pulls messages for a durable consumer without ever letting one time out in our hands. It asks the
 * server for no more than the room it has (`capacity` minus what it holds), so a busy replica leaves
 * the rest on the server for other replicas, and it keeps every message it holds alive with
 * `working()` until the caller settles it: a saturated or slow replica never causes a redelivery.
 * (nats.js's `consume()` keeps pulling while its iterator is not read, so its buffer is neither
 * bounded by what we can handle nor kept alive.)
 */
export class Puller {
  private readonly held = new Set<JsMsg>();
  /** Received, not yet handed out, with when each arrived (for `take`'s fill wait). */
  private readonly queue: Array<{ msg: JsMsg; at: number }> = [];
  private waiters: Array<() => void> = [];
  private fetching: ConsumerMessages | undefined;
  private loop: Promise<void> | undefined;
  private readonly keepAlive: Periodic;
  private stopped = false;

  constructor(
    private readonly consumer: Consumer,
    private readonly opts: PullerOptions,
    private readonly log: Logger,
  ) {
    this.keepAlive = new Periodic({
      name: `consumer ${opts.durable} keep-alive`,
      everyMs: Math.max(100, Math.floor(opts.ackWaitMs / 3)),
      log,
      run: () => {
        for (const m of this.held) m.working();
      },
    });
  }

  start(): void {
    this.keepAlive.start();
    this.loop = this.pull();
  }

  /**
   * Up to `max` messages, once at least one has arrived; with `fillMs`, waits until `max` have arrived
   * or the oldest has waited `fillMs`. Empty when the puller is stopping.
   */
  async take(max: number, fillMs = 0): Promise<JsMsg[]> {
    while (!this.stopped) {
      const first = this.queue[0];
      if (!first) {
        await this.change();
        continue;
      }
      const waited = performance.now() - first.at;
      if (this.queue.length >= max || waited >= fillMs) {
        // What arrived with it in the same read from the socket joins it: a batch consumer then
        // applies one transaction to them all instead of one to the first and another to the rest.
        if (this.queue.length < max) await nextTurn();
        if (this.stopped) break;
        return this.queue.splice(0, max).map((q) => q.msg);
      }
      await this.change(fillMs - waited);
    }
    return [];
  }

  /** The message was acked, nak'ed or terminated: it is no longer ours to keep alive. */
  release(msg: JsMsg): void {
    if (this.held.delete(msg)) this.notify();
  }

  /**
   * Stops pulling and hands back at once what was received but not handed out (another replica takes
   * it); messages being handled stay alive until released, then `dispose()` ends the keep-alive.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    // not awaited: a closed fetch ends when its loop reads the close, which `this.loop` waits for
    void this.fetching?.close().catch(() => undefined);
    this.notify();
    await this.loop;
    for (const { msg } of this.queue.splice(0)) {
      this.held.delete(msg);
      msg.nak();
    }
  }

  dispose(): Promise<void> {
    return this.keepAlive.stop();
  }

  private async pull(): Promise<void> {
    while (!this.stopped) {
      const room = this.opts.capacity - this.held.size;
      if (room <= 0) {
        await this.change();
        continue;
      }
      try {
        this.fetching = await this.consumer.fetch({ max_messages: Math.min(room, FETCH_MAX_MESSAGES), expires: FETCH_EXPIRES_MS });
        if (this.stopped) void this.fetching.close().catch(() => undefined);
        for await (const msg of this.fetching) {
          if (this.stopped) {
            msg.nak();
            continue;
          }
          this.held.add(msg);
          this.queue.push({ msg, at: performance.now() });
          this.notify();
        }
      } catch (err) {
        if (this.stopped) break;
        this.log.warn({ err: String(err), durable: this.opts.durable }, "fetch failed; retrying");
        await this.change(1000);
      } finally {
        this.fetching = undefined;
      }
    }
  }

  private notify(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Resolves at the next arrival, release or stop (or after `ms`). */
  private change(ms?: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = ms === undefined ? undefined : setTimeout(resolve, ms);
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
