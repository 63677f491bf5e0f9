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
 * One holder's lease on one thing (a campaign's fan-out, an import, an execution), the one way every
 * lease in Mailroom is held. From its claim until `release()` or `end()`, a heartbeat (a kit
 * `Periodic`) renews it every third of its length; a renewal that fails (the database away) is
 * warned of and tried again, and the expiry decides. A renewal answered "lost" aborts `signal` and
 * makes `check()` throw, so the work stops at its next check; the holder's writes check the token
 * too, so nothing it does between losing the lease and noticing it is committed.
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
    return row ? { lease: new Lease(q, store, row.id, token, opts), row } : null;
  }

  private readonly lostController = new AbortController();
  private readonly heartbeat: Periodic;
  private over = false;

  /** Holds a lease claimed elsewhere (a statement that claimed many under one token) and starts its heartbeat. */
  constructor(
    private readonly q: Q,
    private readonly store: LeaseStore,
    readonly key: string,
    readonly token: string,
    private readonly opts: LeaseOptions,
  ) {
    this.heartbeat = new Periodic({ name: `${opts.name} lease renewal`, everyMs: opts.ms / 3, log: opts.log, run: () => this.renew() });
    this.heartbeat.start();
  }

  /** Aborts when the lease is lost. */
  get signal(): AbortSignal {
    return this.lostController.signal;
  }

  get lost(): boolean {
    return this.lostController.signal.aborted;
  }

  /** Renews now: "held", or "lost" (another holder has it, or its work ended). */
  async renew(): Promise<"held" | "lost"> {
    if (this.lost) return "lost";
    if (this.over) return "held";
    if (!(await this.store.renew(this.q, this.key, this.token, this.opts.ms))) this.lose();
    return this.lost ? "lost" : "held";
  }

  /** Throws LeaseLost once the lease is lost: a holder calls it between steps of its work. */
  check(): void {
    if (this.lost) throw this.lostController.signal.reason as LeaseLost;
  }

  /** Records the loss a token-checked statement of the holder's found (renewals stop), and answers it to throw. */
  lose(): LeaseLost {
    if (!this.lost) {
      this.lostController.abort(new LeaseLost(this.opts.name, this.key));
      void this.heartbeat.stop();
    }
    return this.lostController.signal.reason as LeaseLost;
  }

  /** The work stops here: renewals end (after one in flight) and, unless lost, the lease is given back. */
  async release(): Promise<void> {
    await this.end();
    if (!this.lost) await this.store.release(this.q, this.key, this.token);
  }

  /** The work is over and its last statement cleared the lease (or left it to expire): renewals end. */
  async end(): Promise<void> {
    this.over = true;
    await this.heartbeat.stop();
  }
}
