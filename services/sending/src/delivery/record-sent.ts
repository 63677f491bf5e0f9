import { Batcher, eventBatches, isConnectionError, writtenGroups, type OwnedEvent } from "@mailroom/kit";
import { deliveriesRepo, type DeliveryRecord } from "../db/deliveries-repo.js";
import { emailEvent, recordedEventId } from "../domain/events.js";
import type { Ctx } from "../usecases/context.js";

export interface SentRecord {
  email: DeliveryRecord;
  /** The lease token the email was claimed under: only while it holds the lease is SENT written. */
  token: string;
  at: Date;
  /** The relay's 250 also counts as delivery (no DSNs come back). */
  delivered: boolean;
  providerMessageId: string | null;
}

/** How long a worker keeps trying to record a message the relay already took. */
const RECORD_RETRY_MS = 60_000;

/**
 * Records sent emails: SENT (and DELIVERED without DSNs) with their events, through the outbox, and
 * their /stats counters. The deliveries finishing while one batch commits go together in the next
 * statement. The events leave as event batches, which the sending service's own email-events
 * consumer skips: their timeline is the record's sent_at and delivered_at, their counters are here.
 */
export class SentRecorder {
  private readonly batcher: Batcher<SentRecord, boolean>;

  /** `lingerMs`: how long a record waits for others to share its statement (see the delivery worker). */
  constructor(
    private readonly ctx: Ctx,
    lingerMs: number,
  ) {
    this.batcher = new Batcher((items) => this.recordMany(items), { maxBatch: 256, maxInFlight: 1, lingerMs });
  }

  /**
   * The relay has the message: recording it must not fail over a database blip, or the job is retried
   * and the email goes out twice (packages/faults/test/postgres-restart.test.ts saw 12 copies after a
   * 4 s restart). So retry while PostgreSQL is unreachable; the caller's keep-alive keeps the job and
   * the lease meanwhile. markSentMany only moves QUEUED records, so a retry after a commit whose
   * answer was lost changes nothing. Answers whether this call's statement moved the record: false
   * when the lease was lost (the successor records the email) or that earlier commit had.
   */
  async recordOnce(sent: SentRecord): Promise<boolean> {
    const deadline = Date.now() + RECORD_RETRY_MS;
    for (let wait = 100; ; wait = Math.min(wait * 2, 2000)) {
      try {
        return await this.batcher.add(sent);
      } catch (err) {
        if (!isConnectionError(err) || Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, wait));
      }
    }
  }

  private async recordMany(items: SentRecord[]): Promise<boolean[]> {
    const { ctx } = this;
    const events: OwnedEvent[] = [];
    for (const s of items) {
      const id = s.email.id;
      events.push({ owner: id, event: emailEvent(s.email, "email.sent", { sentAt: s.at.toISOString() }, s.at, recordedEventId(id, "email.sent")) });
      if (s.delivered) {
        const delivery = emailEvent(s.email, "email.delivery", { deliveredAt: s.at.toISOString() }, s.at, recordedEventId(id, "email.delivery"));
        events.push({ owner: id, event: delivery });
      }
    }
    // One statement, no transaction around it: the records, their events (a batch message per
    // project) and their /stats counters commit together.
    const { json, groups } = eventBatches(ctx.names, events);
    const moved = await deliveriesRepo.markSentMany(
      ctx.sql,
      items.map((s) => ({ id: s.email.id, token: s.token, at: s.at, delivered: s.delivered, providerMessageId: s.providerMessageId })),
      json,
    );
    ctx.outbox.kick(writtenGroups(groups, moved));
    return items.map((s) => moved.has(s.email.id));
  }
}
