import { AppError, type Email, type EmailEvent, type ListEmailsQuery, type StatsQuery, type StatsSeries } from "@mailroom/contracts";
import { isId, type Sql } from "@mailroom/kit";
import { emailEventsRepo } from "../db/email-events-repo.js";
import { deliveriesRepo } from "../db/deliveries-repo.js";
import { emailsRepo } from "../db/emails-repo.js";
import { linkClicksRepo } from "../db/link-clicks-repo.js";
import { withRecordedEvents } from "../domain/email-events.js";
import { fillSeries, statsRange } from "../domain/stats.js";

/** A campaign's emails waiting at a provider's gate, per provider, on every replica (delivery/campaign-waits.ts). */
export interface ProviderWaits {
  of(ref: { projectId: string; campaignId: string }): Promise<Record<string, number>>;
}

/** What is read of the emails sent: their records, their timelines, the counts per hour or day, clicks per link. */
export class Analytics {
  constructor(
    private readonly sql: Sql,
    private readonly waits: ProviderWaits,
  ) {}

  /** Ids are UUIDs: a filter or cursor that is not one matches nothing. */
  async list(projectId: string, query: ListEmailsQuery): Promise<{ data: Email[]; cursor: string | null; hasMore: boolean }> {
    if ([query.contactId, query.campaignId, query.cursor].some((v) => v !== undefined && !isId(v))) return { data: [], cursor: null, hasMore: false };
    return emailsRepo.list(this.sql, projectId, query);
  }

  get(projectId: string, id: string): Promise<Email | null> {
    return isId(id) ? emailsRepo.get(this.sql, projectId, id) : Promise.resolve(null);
  }

  /** /stats: every point of the range from the hourly buckets (a campaign id that is not an id counts nothing). */
  async stats(projectId: string, query: StatsQuery): Promise<StatsSeries> {
    const range = statsRange(new Date(query.from), new Date(query.to), query.interval);
    const campaignId = query.campaignId ?? null;
    const rows = campaignId !== null && !isId(campaignId) ? [] : await emailEventsRepo.series(this.sql, projectId, range, campaignId);
    return { series: fillSeries(range, rows) };
  }

  /** The email's timeline: QUEUED when its record was made, then its events in the order they happened. */
  async timeline(projectId: string, emailId: string): Promise<EmailEvent[]> {
    const email = await this.get(projectId, emailId);
    if (!email) throw AppError.notFound("Email");
    const events = withRecordedEvents(email, await emailEventsRepo.timeline(this.sql, projectId, emailId));
    return [{ id: email.id, emailId: email.id, type: "QUEUED", occurredAt: email.createdAt, details: {} }, ...events];
  }

  /**
   * A campaign's emails held by a provider's limit right now, per provider (sending.campaignThrottled):
   * those a warm-up cap holds to the next day (their rows) and those waiting at a provider's gate on
   * any replica (`CampaignWaits`).
   */
  async campaignThrottled(projectId: string, campaignId: string): Promise<Record<string, number>> {
    const [held, waiting] = await Promise.all([
      deliveriesRepo.heldByProvider(this.sql, projectId, campaignId),
      this.waits.of({ projectId, campaignId }),
    ]);
    const out = { ...held };
    for (const [provider, n] of Object.entries(waiting)) out[provider] = (out[provider] ?? 0) + n;
    return out;
  }

  /** A campaign's clicks per link (the campaigns service has checked the campaign is the project's before asking). */
  campaignLinks(projectId: string, campaignId: string, limit: number) {
    return linkClicksRepo.ofCampaign(this.sql, projectId, campaignId, limit);
  }
}
