import type { Logger, Sql } from "@mailroom/kit";
import { statsRepo } from "../db/stats-repo.js";
import type { StatHit } from "../domain/stats.js";

/** A campaign's counters, kept from the email events of its recipients (the campaigns-stats consumer). */
export class CampaignStats {
  constructor(
    private readonly sql: Sql,
    private readonly log: Logger,
  ) {}

  /** Counts a batch of events once each, and marks SENT the campaigns whose last recipient has ended. */
  async apply(hits: StatHit[]): Promise<void> {
    const sent = await statsRepo.applyHits(this.sql, hits);
    if (sent.length) this.log.info({ campaignIds: sent }, "campaigns sent");
  }

  /** Forgets the marks of events too old to be redelivered (hourly). */
  purgeCounted(): Promise<void> {
    return statsRepo.purgeCounted(this.sql);
  }
}
