import type { JetStreamClient, JsMsg } from "@nats-io/jetstream";
import { DEAD_LETTER_DATA_BYTES, type DeadLetter, type WireNames } from "@mailroom/contracts";
import type { Logger } from "./logger.js";
import type { Metrics } from "./metrics.js";

/** Thrown by a handler for a message that can never succeed: it is given up at once, not retried. */
export class PoisonMessage extends Error {}

/** Thrown by a handler that knows when its message is worth trying again: retried after `delayMs`, not the policy's delay. */
export class RetryLater extends Error {
  constructor(
    message: string,
    readonly delayMs: number,
  ) {
    super(message);
  }
}

const REASON_CHARS = 1000;

/**
 * Puts the messages a consumer gives up on into the DEAD_LETTERS stream (decisions.md §12), with
 * why, and counts them in `mailroom_dead_letters_total{consumer}`. The message id is the original's
 * stream and sequence, so publishing one twice (a crash between the publish and the `term`) keeps one.
 */
export class DeadLetters {
  constructor(
    private readonly js: JetStreamClient,
    private readonly names: WireNames,
    private readonly metrics: Metrics,
  ) {}

  /** Resolves once the dead letter is stored; throws when it could not be (the caller keeps the message). */
  async put(msg: JsMsg, consumer: string, reason: string): Promise<void> {
    const body = msg.data;
    const truncated = body.length > DEAD_LETTER_DATA_BYTES;
    const letter: DeadLetter = {
      consumer,
      stream: msg.info.stream,
      streamSequence: msg.info.streamSequence,
      subject: msg.subject,
      data: new TextDecoder().decode(truncated ? body.subarray(0, DEAD_LETTER_DATA_BYTES) : body),
      dataBytes: body.length,
      truncated,
      reason: reason.length > REASON_CHARS ? `${reason.slice(0, REASON_CHARS)}…` : reason,
      attempts: msg.info.deliveryCount,
      at: new Date().toISOString(),
    };
    await this.js.publish(this.names.subjects.deadLetter(consumer), JSON.stringify(letter), {
      msgID: `${consumer}:${msg.info.stream}:${msg.info.streamSequence}`,
    });
    this.metrics.deadLetters.inc({ consumer });
  }
}

/**
 * Deliveries the server allows past a consumer's attempts. They are used only to get a message into
 * the dead-letter stream: one whose last attempt never finished (its process died) comes back once
 * more and is given up without being handled, and so is one whose dead letter could not be published.
 */
export const SPARE_DELIVERIES = 3;

export interface FailurePolicy {
  durable: string;
  /** Attempts (deliveries handled) before a failing message is given up. */
  maxDeliver: number;
  /** Delay before retry n (1-based), so a failing dependency is not hammered. */
  retryDelayMs?: (attempt: number) => number;
  /** Runs before a message is given up (e.g. to record the failure where a user sees it). */
  onGiveUp?(msg: JsMsg, err: unknown): Promise<void>;
}

export interface SettleDeps {
  deadLetters: DeadLetters;
  log: Logger;
}

const defaultDelay = (attempt: number) => Math.min(30_000, 250 * 2 ** (attempt - 1));

/** What a consumer does with a message its handler could not process: retry it later, or give it up. */
export class Failures {
  constructor(
    private readonly deps: SettleDeps,
    private readonly policy: FailurePolicy,
  ) {
    if (!Number.isInteger(policy.maxDeliver) || policy.maxDeliver < 1) {
      throw new Error(`${policy.durable}: maxDeliver must be a positive integer (every consumer gives up eventually)`);
    }
  }

  /**
   * True when the message has had all its attempts already (the last one did not finish): it is then
   * given up without being handled again.
   */
  async exhausted(msg: JsMsg): Promise<boolean> {
    if (msg.info.deliveryCount <= this.policy.maxDeliver) return false;
    await this.giveUp(msg, new Error(`all ${this.policy.maxDeliver} attempts used; the last one did not finish`));
    return true;
  }

  /** The handler threw: retried after a delay, or given up when poison or out of attempts. */
  async failed(msg: JsMsg, err: unknown): Promise<void> {
    const attempt = msg.info.deliveryCount;
    if (err instanceof PoisonMessage || attempt >= this.policy.maxDeliver) return this.giveUp(msg, err);
    const delay = err instanceof RetryLater ? err.delayMs : (this.policy.retryDelayMs ?? defaultDelay)(attempt);
    this.deps.log.warn({ err: String(err), durable: this.policy.durable, attempt, delay }, "message failed; retrying");
    msg.nak(delay);
  }

  /** Runs `onGiveUp`, stores the dead letter, then terminates the message. */
  async giveUp(msg: JsMsg, err: unknown): Promise<void> {
    const { durable } = this.policy;
    const attempt = msg.info.deliveryCount;
    const reason = err instanceof Error ? err.message || err.name : String(err);
    this.deps.log.error({ err: reason, durable, attempt, subject: msg.subject }, "message given up");
    await this.policy.onGiveUp?.(msg, err).catch((e) => this.deps.log.error({ err: String(e), durable }, "onGiveUp failed"));
    try {
      await this.deps.deadLetters.put(msg, durable, reason);
    } catch (e) {
      // Kept: it comes back (a spare delivery) and is given up again.
      this.deps.log.error({ err: String(e), durable, attempt }, "dead letter not stored; the message will come back");
      msg.nak(5000);
      return;
    }
    msg.term(); // no reason: nats-server 2.9 ignores a "+TERM <reason>" (the dead letter has it)
  }
}
