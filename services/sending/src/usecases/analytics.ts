import { AppError, type EmailEvent, type StatsQuery, type StatsSeries } from "@mailroom/contracts";
import { isId } from "@mailroom/kit";
import { emailEventsRepo } from "../db/email-events-repo.js";
import { emailsRepo } from "../db/emails-repo.js";
import { withRecordedEvents } from "../domain/email-events.js";
import { fillSeries, statsRange } from "../domain/stats.js";
import type { Ctx } from "./context.js";

/** /stats: every point of the range from the hourly buckets (a campaign id that is not an id counts nothing). */
export async function statsSeries(ctx: Ctx, projectId: string, query: StatsQuery): Promise<StatsSeries> {
  const range = statsRange(new Date(query.from), new Date(query.to), query.interval);
  const campaignId = query.campaignId ?? null;
  const rows = campaignId !== null && !isId(campaignId) ? [] : await emailEventsRepo.series(ctx.sql, projectId, range, campaignId);
  return { series: fillSeries(range, rows) };
}

/** The email's timeline: QUEUED when its record was made, then its events in the order they happened. */
export async function emailTimeline(ctx: Ctx, projectId: string, emailId: string): Promise<EmailEvent[]> {
  const email = isId(emailId) ? await emailsRepo.get(ctx.sql, projectId, emailId) : null;
  if (!email) throw AppError.notFound("Email");
  const events = withRecordedEvents(email, await emailEventsRepo.timeline(ctx.sql, projectId, emailId));
  return [{ id: email.id, emailId: email.id, type: "QUEUED", occurredAt: email.createdAt, details: {} }, ...events];
}
