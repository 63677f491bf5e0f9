import { sendingRpc } from "@mailroom/contracts";
import { type Logger, Periodic, type RpcClient, type Sql } from "@mailroom/kit";
import { confirmationsRepo, type ConfirmationRequest } from "../db/confirmations-repo.js";

/** Requests one drain asks at once (the RPC client sends them to sending as one batch message). */
const BATCH = 100;
/** After this many failed calls a request is dropped: the contact stays unsubscribed and may ask again. */
const MAX_ATTEMPTS = 10;

/**
 * Asks the sending service for double opt-in confirmation emails (decisions.md §14), from the
 * `pending_confirmations` rows: nothing is lost between a committed subscription request and its
 * email. An import writes its rows in each batch's transaction and the drain works through them; a
 * single request (/v1/track with a public key) is asked at once, so it never waits behind a large
 * import's backlog, and stays recorded until sending has queued it.
 */
export class ConfirmationMailer {
  private readonly loop: Periodic;

  constructor(
    private readonly sql: Sql,
    private readonly rpc: RpcClient,
    private readonly log: Logger,
    everyMs: number,
    /** CONFIRMATION_RETRY_MS: a claimed request is hidden this long (times its attempts) in case its call fails. */
    private readonly retryMs: number,
  ) {
    this.loop = new Periodic({ name: "double opt-in confirmations", everyMs, runAtStart: true, log, run: (signal) => this.drain(signal) });
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Rows were committed for the drain: take them now rather than at the next tick. */
  kick(): void {
    void this.loop.kick();
  }

  /**
   * One subscription request, after its contact is committed. Recorded first (hidden from the drain
   * for a lease), then asked; a failure is logged and left to the drain.
   */
  async confirmNow(request: ConfirmationRequest): Promise<void> {
    try {
      await confirmationsRepo.add(this.sql, [request], this.retryMs);
      if (await this.ask(request)) await confirmationsRepo.remove(this.sql, [request.key]);
    } catch (err) {
      this.log.warn({ err: String(err), contactId: request.contactId }, "double opt-in: the confirmation email could not be recorded");
    }
  }

  private async drain(signal: AbortSignal): Promise<void> {
    let claimed: Awaited<ReturnType<typeof confirmationsRepo.claim>>;
    do {
      claimed = await confirmationsRepo.claim(this.sql, BATCH, this.retryMs);
      const asked = await Promise.all(
        claimed.map(async (r) => {
          const ok = await this.ask({ key: r.idempotency_key, projectId: r.project_id, contactId: r.contact_id, email: r.email });
          if (!ok && r.attempts >= MAX_ATTEMPTS) this.log.error({ contactId: r.contact_id }, "double opt-in: confirmation email given up after repeated failures");
          return ok || r.attempts >= MAX_ATTEMPTS ? r.idempotency_key : null;
        }),
      );
      await confirmationsRepo.remove(this.sql, asked.filter((k): k is string => k !== null));
    } while (claimed.length === BATCH && !signal.aborted);
  }

  /** True once sending has queued the email (or had it already: the key is its idempotency key). */
  private async ask(r: ConfirmationRequest): Promise<boolean> {
    try {
      await this.rpc.call(sendingRpc.confirmationEmail, { projectId: r.projectId, contactId: r.contactId, to: r.email, idempotencyKey: r.key });
      return true;
    } catch (err) {
      this.log.warn({ err: String(err), contactId: r.contactId }, "double opt-in: the confirmation email could not be queued; retried later");
      return false;
    }
  }
}

/** The key (and sending's idempotency key) of a subscription request: `attempt` names the request. */
export function confirmationKey(contactId: string, attempt: string): string {
  return `confirm:${contactId}:${attempt}`;
}
