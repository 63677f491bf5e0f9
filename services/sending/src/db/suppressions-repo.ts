import type { Sql } from "@mailroom/kit";

export type SuppressionReason = "bounce" | "complaint";

/** How long a permanent bounce keeps transactional mail from the address (README: Suppression). */
export const TRANSACTIONAL_BOUNCE_DAYS = 30;

export interface Suppression {
  reason: SuppressionReason;
  createdAt: string;
}

/** Addresses per project that bounced permanently or complained, until the contact resubscribes. */
export class SuppressionsRepo {
  constructor(private readonly sql: Sql) {}

  async add(tx: Sql, projectId: string, email: string, reason: SuppressionReason, emailId: string, at: Date): Promise<void> {
    await tx`
      insert into suppressions (project_id, email, reason, email_id, created_at)
      values (${projectId}, ${email.toLowerCase()}, ${reason}, ${emailId}, ${at.toISOString()}::timestamptz)
      on conflict (project_id, email, reason) do update
        set created_at = greatest(suppressions.created_at, excluded.created_at), email_id = excluded.email_id`;
  }

  /** A resubscription at `at` lifts what happened before it (a later bounce suppresses again). */
  async lift(projectId: string, emails: string[], at: Date): Promise<void> {
    await this.sql`
      delete from suppressions where project_id = ${projectId} and email = any(${emails.map((e) => e.toLowerCase())}::text[])
        and created_at <= ${at.toISOString()}::timestamptz`;
  }

  /**
   * What keeps mail to these addresses from being sent, in one query (lower-cased address → its
   * newest blocking entry): for transactional mail a permanent bounce of the last 30 days; for
   * marketing mail any bounce or complaint not lifted since.
   */
  async blockingMany(projectId: string, emails: string[], marketing: boolean): Promise<Map<string, Suppression>> {
    if (emails.length === 0) return new Map();
    const rows = await this.sql<{ email: string; reason: SuppressionReason; createdAt: string | Date }[]>`
      select distinct on (email) email, reason, created_at as "createdAt" from suppressions
      where project_id = ${projectId} and email = any(${emails.map((e) => e.toLowerCase())}::text[])
        ${marketing ? this.sql`` : this.sql`and reason = 'bounce' and created_at > now() - ${TRANSACTIONAL_BOUNCE_DAYS} * interval '1 day'`}
      order by email, created_at desc`;
    return new Map(rows.map((r) => [r.email, { reason: r.reason, createdAt: new Date(r.createdAt).toISOString() }]));
  }
}
