import type { Sql } from "@mailroom/kit";
import { emailEventsRepo } from "../db/email-events-repo.js";
import type { TimelineEvent } from "../domain/email-events.js";

/**
 * Email events into their email's timeline and the hourly counters of /stats (the
 * `sending-email-events` consumer's batches). On a campaign's hot path: a batch is the repository's
 * one statement, nothing more (its exactly-once rule: `emailEventsRepo.record`).
 */
export class Timelines {
  constructor(private readonly sql: Sql) {}

  /** Stores a batch of events; a redelivered event is stored and counted once. */
  async record(events: TimelineEvent[]): Promise<void> {
    await emailEventsRepo.record(this.sql, events);
  }
}
