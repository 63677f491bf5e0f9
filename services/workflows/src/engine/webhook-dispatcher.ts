import { Batcher, type Logger, newId, Periodic, type Sql } from "@mailroom/kit";
import { type Attempt, type ClaimedDelivery, webhooksRepo } from "../db/webhooks-repo.js";
import {
  ANSWER_KEEP_BYTES,
  DELIVERY_RETENTION_MS,
  delivered,
  GIVE_UP_AFTER_MS,
  GONE,
  retryDelayMs,
  signedHeaders,
} from "../domain/webhooks.js";
import { callWebhook, WebhookError, WebhookInterrupted, type WebhookPolicy } from "../infra/webhook-client.js";

/** How long freed slots wait for others before a claim fills them (see `freed`). */
const REFILL_LINGER_MS = 3;

/**
 * How far before the oldest due time a claim found the endpoint's next claims start looking (its
 * floor): a fan-out transaction that began earlier commits rows due at its own start. What a floor
 * passes over (a slower transaction's rows, a dead replica's claims once their lease runs out) the
 * next sweep finds.
 */
const FLOOR_MARGIN_MS = 10_000;

export interface DispatcherOptions {
  /** How often due deliveries are looked for when nothing said one is due. */
  pollMs: number;
  /** Calls under way at once in this replica. */
  concurrency: number;
  /** Calls under way at once to one endpoint in this replica. */
  perEndpoint: number;
  /** Speeds the retry schedule and the five-day give-up up; tests only. */
  timeScale: number;
  /** How long a replica's claim on a delivery lasts: longer than a call may take. */
  leaseMs: number;
  /** What a stop waits for calls under way before cutting them short. */
  stopGraceMs: number;
}

/**
 * Sends due webhook deliveries. Each endpoint has its own share of the slots (`perEndpoint`), so an
 * endpoint that hangs for the whole timeout on every call holds only its own share, and the rest go
 * on: the claim query never hands a replica more of an endpoint's deliveries than it has room for.
 * A claim is a lease on the row; a replica killed mid-call leaves the delivery due again when the
 * lease runs out, sent again with the same `webhook-id` (at least once).
 */
export class WebhookDispatcher {
  private readonly loop: Periodic;
  private readonly purge: Periodic;
  private readonly busy = new Map<string, number>();
  private readonly calls = new Set<Promise<void>>();
  private readonly interrupt = new AbortController();
  /** Answers recorded together: a statement per answer was most of a delivery's cost. */
  private readonly records: Batcher<Attempt, number>;
  private inFlight = 0;
  private refill: NodeJS.Timeout | undefined;
  /**
   * Per endpoint, claimed deliveries waiting for one of its slots (up to `perEndpoint` of them): a
   * freed slot starts its next call at once, where waiting for the next claim idled it for a linger
   * and a statement, and capped one endpoint at a few hundred calls a second.
   */
  private readonly waiting = new Map<string, Array<{ d: ClaimedDelivery; token: string; at: number }>>();
  /** Per endpoint, where its claims start looking (see `claimDue`). */
  private readonly floors = new Map<string, Date>();
  private lastSweep = -Infinity;

  constructor(
    private readonly sql: Sql,
    private readonly policy: WebhookPolicy,
    private readonly log: Logger,
    private readonly opts: DispatcherOptions,
  ) {
    this.loop = new Periodic({ name: "webhook dispatch", everyMs: opts.pollMs, log, runAtStart: true, run: (signal) => this.tick(signal) });
    this.records = new Batcher(async (attempts) => {
      await webhooksRepo.recordAttempts(this.sql, attempts, GIVE_UP_AFTER_MS / this.opts.timeScale);
      return attempts.map(() => 0);
    }, { maxBatch: 256, maxInFlight: 2 });
    this.purge = new Periodic({ name: "webhook deliveries purge", everyMs: 3600_000, log, runAtStart: true, run: (signal) => this.purgeOld(signal) });
  }

  start(): void {
    this.loop.start();
    this.purge.start();
  }

  /** Something is due now: look at once instead of at the next poll. */
  due(): void {
    void this.loop.kick();
  }

  /**
   * Slots freed: look again shortly. Slots free one by one under load; a claim statement each
   * claimed one delivery each, so the claims of a few milliseconds' frees go together.
   */
  private freed(): void {
    this.refill ??= setTimeout(() => {
      this.refill = undefined;
      this.due();
    }, REFILL_LINGER_MS);
  }

  /** Claims what the free slots can take; at most every `pollMs`, a sweep from each endpoint's oldest entry. */
  private async tick(signal: AbortSignal): Promise<void> {
    const sweep = performance.now() - this.lastSweep >= this.opts.pollMs;
    if (sweep) this.lastSweep = performance.now();
    for (;;) {
      // calls and as many again waiting for a slot
      const held = this.held();
      let room = 2 * this.opts.concurrency;
      for (const n of held.values()) room -= n;
      if (room <= 0 || signal.aborted) return;
      const token = newId();
      const floors = sweep ? new Map<string, Date>() : this.floors;
      const claimed = await webhooksRepo.claimDue(this.sql, { limit: room, perEndpoint: 2 * this.opts.perEndpoint, busy: held, floors, token, leaseMs: this.opts.leaseMs });
      this.moveFloors(claimed);
      for (const d of claimed) this.take(d, token);
      if (claimed.length < room) return;
    }
  }

  /** Per endpoint, its calls under way and its deliveries waiting for a slot. */
  private held(): Map<string, number> {
    const held = new Map(this.busy);
    for (const [endpoint, list] of this.waiting) held.set(endpoint, (held.get(endpoint) ?? 0) + list.length);
    return held;
  }

  /** A claimed delivery: called now when its endpoint has a free slot, else it waits for one. */
  private take(d: ClaimedDelivery, token: string): void {
    if (this.hasSlot(d.endpoint_id)) {
      this.run(d, token);
      return;
    }
    const list = this.waiting.get(d.endpoint_id) ?? [];
    list.push({ d, token, at: performance.now() });
    this.waiting.set(d.endpoint_id, list);
  }

  private hasSlot(endpoint: string): boolean {
    return this.inFlight < this.opts.concurrency && (this.busy.get(endpoint) ?? 0) < this.opts.perEndpoint;
  }

  /**
   * A slot freed: the endpoint's next waiting delivery goes at once, or another endpoint's (the
   * replica's own limit may be what held that one back). A claim already half run out is dropped:
   * it is due again when it ends.
   */
  private startWaiting(freed: string): void {
    for (const endpoint of new Set([freed, ...this.waiting.keys()])) {
      const list = this.waiting.get(endpoint);
      while (list?.length && this.hasSlot(endpoint)) {
        const next = list.shift()!;
        if (list.length === 0) this.waiting.delete(endpoint);
        if (performance.now() - next.at < this.opts.leaseMs / 2) {
          this.run(next.d, next.token);
          return;
        }
      }
    }
  }

  /** An endpoint's next claims start a margin before the oldest due time this claim found for it. */
  private moveFloors(claimed: ClaimedDelivery[]): void {
    const oldest = new Map<string, number>();
    for (const d of claimed) {
      const at = d.next_attempt_at!.getTime();
      if (at < (oldest.get(d.endpoint_id) ?? Number.POSITIVE_INFINITY)) oldest.set(d.endpoint_id, at);
    }
    for (const [endpoint, at] of oldest) this.floors.set(endpoint, new Date(at - FLOOR_MARGIN_MS));
  }

  /**
   * One call in a slot of its endpoint. The slot frees when the answer comes, not when it is
   * recorded: records wait for a shared statement, and a slot held meanwhile is an endpoint idle.
   */
  private run(d: ClaimedDelivery, token: string): void {
    this.inFlight++;
    this.busy.set(d.endpoint_id, (this.busy.get(d.endpoint_id) ?? 0) + 1);
    const release = () => {
      this.inFlight--;
      const n = (this.busy.get(d.endpoint_id) ?? 1) - 1;
      if (n > 0) this.busy.set(d.endpoint_id, n);
      else this.busy.delete(d.endpoint_id);
      this.startWaiting(d.endpoint_id);
      // and the next claim fills what is waiting again
      this.freed();
    };
    const call: Promise<void> = this.attempt(d, token, release)
      .catch((err) => this.log.warn({ err, deliveryId: d.id }, "webhook attempt not recorded; retried when its claim runs out"))
      .finally(() => this.calls.delete(call));
    this.calls.add(call);
  }

  private async attempt(d: ClaimedDelivery, token: string, release: () => void): Promise<void> {
    const headers = signedHeaders(d.secrets, d.event_id, d.body, new Date());
    let attempt: Attempt;
    try {
      const answer = await callWebhook({ url: d.url, method: "POST", headers, body: d.body }, this.policy, this.interrupt.signal, ANSWER_KEEP_BYTES);
      attempt = delivered(answer.status)
        ? { id: d.id, token, ok: true, code: answer.status, body: answer.body, error: null, retryInMs: null, disable: null }
        : this.failed(d, token, answer.status, answer.body, `answered ${answer.status}`);
    } catch (err) {
      // stopping: the claim runs out and another replica (or this one, restarted) sends it again
      if (err instanceof WebhookInterrupted) return;
      if (!(err instanceof WebhookError)) throw err;
      attempt = this.failed(d, token, null, null, err.message);
    } finally {
      release();
    }
    await this.records.add(attempt);
  }

  /** A 410 ends the delivery and disables its endpoint: the receiver says it is gone for good. */
  private failed(d: ClaimedDelivery, token: string, code: number | null, body: string | null, error: string): Attempt {
    const gone = code === GONE;
    return {
      id: d.id,
      token,
      ok: false,
      code,
      body,
      error,
      retryInMs: gone ? null : retryDelayMs(d.attempts, this.opts.timeScale),
      disable: gone ? "the endpoint answered 410 Gone" : null,
    };
  }

  private async purgeOld(signal: AbortSignal): Promise<void> {
    while (!signal.aborted && (await webhooksRepo.purgeBefore(this.sql, DELIVERY_RETENTION_MS, 1000)) === 1000);
  }

  /**
   * No new claims, and those waiting for a slot handed back; calls under way get the grace, then are
   * cut short (their claims run out).
   */
  async stop(): Promise<void> {
    await this.loop.stop();
    await this.purge.stop();
    clearTimeout(this.refill);
    const unsent = [...this.waiting.values()].flat().map(({ d, token }) => ({ id: d.id, token }));
    this.waiting.clear();
    await webhooksRepo.unclaim(this.sql, unsent).catch((err) => this.log.warn({ err: String(err) }, "waiting webhook claims not handed back; due again when they run out"));
    const grace = new Promise<void>((resolve) => setTimeout(resolve, this.opts.stopGraceMs).unref());
    await Promise.race([Promise.allSettled([...this.calls]), grace]);
    this.interrupt.abort();
    await Promise.allSettled([...this.calls]);
  }
}
