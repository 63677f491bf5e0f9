import type { Q } from "./db.js";
import { newId } from "./ids.js";
import type { Logger } from "./logger.js";
import { Periodic } from "./periodic.js";

/**
 * Where a holder's leases are kept: a row per leased thing with the holder's token and an expiry.
 * Its repository provides the statements; each checks the token, so a holder that stalled past its
 * expiry, and whose work another took over, finds out instead of working on beside its successor.
 */
export interface LeaseStore {
  /** Extends the lease by `ms` while `token` holds it; false once it does not (taken over, or its work ended). */
  renew(q: Q, key: string, token: string, ms: number): Promise<boolean>;
  /** Gives the lease back while `token` holds it, so the next claim takes it at once. */
  release(q: Q, key: string, token: string): Promise<void>;
}

/** A store that also picks what to take: one free (or expired) thing, claimed for `token` for `ms`. */
export interface ClaimingLeaseStore<R extends { id: string }> extends LeaseStore {
  claim(q: Q, token: string, ms: number): Promise<R | null>;
}

/**
 * The store of a `LeaseSet`: the same rows and rules as a LeaseStore's, with a renewal that takes
 * every key the holder has in one statement.
 */
export interface LeaseSetStore {
  /** Extends by `ms` the leases of `keys` that `token` still holds, and answers those keys: the others are lost. */
  renew(q: Q, keys: string[], token: string, ms: number): Promise<Iterable<string>>;
  /**
   * Gives the lease back while `token` holds it, clearing the token: a set does not wait for its
   * renewal in flight, and a renewal that runs after the release must find nothing to extend.
   */
  release(q: Q, key: string, token: string): Promise<void>;
}

export interface LeaseOptions {
  /** Names the holder in its warnings ("<name> lease renewal failed; …") and in LeaseLost. */
  name: string;
  /** How long the lease lasts unrenewed; the heartbeat renews it every third of that. */
  ms: number;
  log: Pick<Logger, "warn">;
}

/** Thrown by `check()` (and by holders whose token-checked statement found the lease gone). */
export class LeaseLost extends Error {
  constructor(name: string, key: string) {
    super(`${name} ${key}: the lease was lost; another holder has taken over`);
  }
}

/**
 * One holder's lease on one thing (a campaign's fan-out, an import, an execution, an email being
 * sent), the one way every lease in Mailroom is held. From its claim until `release()` or `end()`, a
 * heartbeat (a kit `Periodic`, its `LeaseSet`'s) renews it every third of its length; a renewal
 * that fails (the database away) is warned of and tried again, and the expiry decides. A renewal
 * answered "lost" aborts `signal` and makes `check()` throw, so the work stops at its next check; the
 * holder's writes check the token too, so nothing it does between losing the lease and noticing it is
 * committed.
 */
export class Lease {
  /** A fresh token: the claiming statement writes it on what it takes. Per claim, never per process. */
  static token(): string {
    return newId();
  }

  /** Takes one thing through `store.claim` under a fresh token, heartbeat started; null when nothing is free. */
  static async claim<R extends { id: string }>(q: Q, store: ClaimingLeaseStore<R>, opts: LeaseOptions): Promise<{ lease: Lease; row: R } | null> {
    const token = Lease.token();
    const row = await store.claim(q, token, opts.ms);
    return row ? { lease: Lease.hold(q, store, row.id, token, opts), row } : null;
  }

  /** Holds a lease claimed elsewhere (a statement that claimed it with others) with a heartbeat of its own. */
  static hold(q: Q, store: LeaseStore, key: string, token: string, opts: LeaseOptions): Lease {
    return LeaseSet.single(q, store, token, opts).hold(key);
  }

  private readonly lostController = new AbortController();
  private over = false;

  /** Made by `LeaseSet.hold`: `until` is when the claim's expiry is known to be past (performance.now()). */
  constructor(
    private readonly set: LeaseSet,
    readonly key: string,
    private until: number,
  ) {}

  get token(): string {
    return this.set.token;
  }

  /** Aborts when the lease is lost. */
  get signal(): AbortSignal {
    return this.lostController.signal;
  }

  get lost(): boolean {
    return this.lostController.signal.aborted;
  }

  /** Renews now: "held", or "lost" (another holder has it, or its work ended). A failed renewal throws. */
  async renew(): Promise<"held" | "lost"> {
    if (this.lost) return "lost";
    if (this.over) return "held";
    await this.set.renewAll();
    return this.lost ? "lost" : "held";
  }

  /**
   * Whether the lease is held for a while yet, asked before doing what only its holder may (an SMTP
   * call). While the last renewal is recent, as the heartbeat keeps it, the answer costs no round
   * trip. When it is not (this process stalled, or the store is away), a renewal is made first: a
   * holder that stalled past its expiry learns here that another took over, before it acts.
   */
  async held(): Promise<boolean> {
    if (this.fresh()) return true;
    await this.set.renewSoon();
    return this.fresh();
  }

  /** Throws LeaseLost once the lease is lost: a holder calls it between steps of its work. */
  check(): void {
    if (this.lost) throw this.lostController.signal.reason as LeaseLost;
  }

  /** Records the loss a token-checked statement of the holder's found (renewals stop), and answers it to throw. */
  lose(): LeaseLost {
    if (!this.lost) {
      this.lostController.abort(new LeaseLost(this.set.opts.name, this.key));
      void this.set.drop(this);
    }
    return this.lostController.signal.reason as LeaseLost;
  }

  /** The work stops here: renewals end (after one in flight) and, unless lost, the lease is given back. */
  async release(): Promise<void> {
    await this.end();
    if (!this.lost) await this.set.giveBack(this);
  }

  /** The work is over and its last statement cleared the lease (or left it to expire): renewals end. */
  async end(): Promise<void> {
    this.over = true;
    await this.set.drop(this);
  }

  /** A renewal sent at `sentAt` (performance.now()) found the lease held. */
  renewed(sentAt: number): void {
    this.until = Math.max(this.until, sentAt + this.set.opts.ms);
  }

  /** Held for a third of its length at least: the heartbeat's schedule keeps it at two thirds or more. */
  private fresh(): boolean {
    return !this.lost && !this.over && this.until - performance.now() > this.set.opts.ms / 3;
  }
}

/**
 * Many leases of one holder under one token, renewed by one heartbeat in one statement, however many
 * keys are held: the delivery workers hold dozens of emails at once, and a timer and a statement per
 * email would cost about what the sending does. Each key is held as a `Lease` with its own signal, and
 * a renewal that finds a key gone loses that key's lease only. A lone `Lease` is a set of one.
 *
 * One token for many claims, where a token per claim is the rule: the set sees every claim its holder
 * makes, so a key claimed again while an earlier holding of it is still here (that holding stalled past
 * its expiry, and the key came back to this set) loses the earlier holding at once, as a fresh token
 * would have. Leases held at `stop()` get no more renewals and run out.
 */
export class LeaseSet {
  readonly token: string;
  private readonly leases = new Map<string, Lease>();
  private readonly heartbeat: Periodic;
  /** A lone Lease's set, which ends with it: its renewals end with the lease (after one in flight). */
  private lone = false;

  constructor(
    private readonly q: Q,
    private readonly store: LeaseSetStore,
    readonly opts: LeaseOptions,
    token = Lease.token(),
  ) {
    this.token = token;
    this.heartbeat = new Periodic({ name: `${opts.name} lease renewal`, everyMs: opts.ms / 3, log: opts.log, run: () => this.renewAll() });
    this.heartbeat.start();
  }

  /** The set of a lone Lease, over a store that renews one key at a time. */
  static single(q: Q, store: LeaseStore, token: string, opts: LeaseOptions): LeaseSet {
    const set = new LeaseSet(
      q,
      {
        renew: async (q, [key], token, ms) => ((await store.renew(q, key!, token, ms)) ? [key!] : []),
        release: (q, key, token) => store.release(q, key, token),
      },
      opts,
      token,
    );
    set.lone = true;
    return set;
  }

  /**
   * Holds `key`, which a statement sent at `claimedAt` (performance.now(), taken before the statement
   * went out) claimed under this set's token; an earlier holding of it here is lost.
   */
  hold(key: string, claimedAt = performance.now()): Lease {
    this.leases.get(key)?.lose();
    const lease = new Lease(this, key, claimedAt + this.opts.ms);
    this.leases.set(key, lease);
    return lease;
  }

  get size(): number {
    return this.leases.size;
  }

  /** Renews every lease held, in one statement: those the store no longer answers for are lost. Throws when it fails. */
  async renewAll(): Promise<void> {
    if (this.leases.size === 0) return;
    const leases = [...this.leases.values()];
    const sentAt = performance.now();
    const held = new Set(await this.store.renew(this.q, leases.map((l) => l.key), this.token, this.opts.ms));
    let lost = 0;
    for (const lease of leases) {
      // ended meanwhile (a release then finds nothing to extend), or claimed again: not this answer's
      if (this.leases.get(lease.key) !== lease) continue;
      if (held.has(lease.key)) lease.renewed(sentAt);
      else {
        lease.lose();
        lost++;
      }
    }
    if (lost > 0 && !this.lone) this.opts.log.warn({ lost }, `${this.opts.name} leases lost; another holder has taken them over`);
  }

  /** The heartbeat's renewal now, or right after the one in flight (whose answer may predate the question). */
  renewSoon(): Promise<void> {
    return this.heartbeat.kick();
  }

  /** Renewals end, after the one in flight. */
  stop(): Promise<void> {
    return this.heartbeat.stop();
  }

  /** A lease that ended or was lost leaves the set; a lone lease's set stops with it. */
  async drop(lease: Lease): Promise<void> {
    if (this.leases.get(lease.key) === lease) this.leases.delete(lease.key);
    if (this.lone) await this.heartbeat.stop();
  }

  /** Gives back a lease that has left the set: the store clears its token. */
  giveBack(lease: Lease): Promise<void> {
    return this.store.release(this.q, lease.key, this.token);
  }
}
