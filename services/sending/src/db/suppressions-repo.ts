import { iso, traced, type Q, type Row } from "@mailroom/kit";
import type { suppressions } from "./schema.js";

type SuppressionRow = Row<typeof suppressions>;
export type SuppressionReason = SuppressionRow["reason"];

/** How long a permanent bounce keeps transactional mail from the address (README: Suppression). */
export const TRANSACTIONAL_BOUNCE_DAYS = 30;

export interface Suppression {
  reason: SuppressionReason;
  createdAt: string;
}

/** One check: these addresses of this project, for this kind of mail. */
export interface BlockingQuery {
  projectId: string;
  emails: string[];
  marketing: boolean;
}

/** Addresses per project that bounced permanently or complained, until lifted (see `lift`). */
export const suppressionsRepo = traced("SuppressionsRepo", {
  async add(q: Q, projectId: string, email: string, reason: SuppressionReason, emailId: string, at: Date): Promise<void> {
    await q`
      insert into suppressions (project_id, email, reason, email_id, created_at)
      values (${projectId}, ${email.toLowerCase()}, ${reason}, ${emailId}, ${at.toISOString()}::timestamptz)
      on conflict (project_id, email, reason) do update
        set created_at = greatest(suppressions.created_at, excluded.created_at), email_id = excluded.email_id`;
  },

  /**
   * A resubscription at `at` lifts what happened before it (a later bounce suppresses again): the
   * entries of the `reasons` given. A complaint is the recipient's own word, and every link and key
   * is within a tenant's reach, so nothing but the operator's `liftAll` lifts one (decisions.md §15).
   */
  async lift(q: Q, projectId: string, emails: string[], at: Date, reasons: readonly SuppressionReason[]): Promise<void> {
    await q`
      delete from suppressions where project_id = ${projectId} and email = any(${emails.map((e) => e.toLowerCase())}::text[])
        and created_at <= ${at.toISOString()}::timestamptz and reason = any(${reasons as SuppressionReason[]}::text[])`;
  },

  /** `mailroom suppressions lift`: every suppression of the address in the project, a complaint's included. */
  async liftAll(q: Q, projectId: string, email: string): Promise<SuppressionReason[]> {
    const rows = await q<Pick<SuppressionRow, "reason">[]>`
      delete from suppressions where project_id = ${projectId} and email = ${email.toLowerCase()} returning reason`;
    return rows.map((r) => r.reason).sort();
  },

  /**
   * What keeps mail to these addresses from being sent, for each check (lower-cased address → its
   * newest blocking entry): for transactional mail a permanent bounce of the last 30 days; for
   * marketing mail any bounce or complaint not lifted since. One query per kind of mail asked about.
   */
  async blockingAll(q: Q, asked: BlockingQuery[]): Promise<Array<Map<string, Suppression>>> {
    const found = new Map<string, Suppression>();
    for (const marketing of [false, true]) {
      const pairs = asked.filter((a) => a.marketing === marketing).flatMap((a) => a.emails.map((e) => [a.projectId, e.toLowerCase()] as const));
      if (pairs.length === 0) continue;
      const rows = await q<Pick<SuppressionRow, "project_id" | "email" | "reason" | "created_at">[]>`
        select distinct on (s.project_id, s.email) s.project_id, s.email, s.reason, s.created_at
        from suppressions s
        join unnest(${pairs.map((p) => p[0])}::uuid[], ${pairs.map((p) => p[1])}::text[]) as a(project_id, email)
          on s.project_id = a.project_id and s.email = a.email
        ${marketing ? q`` : q`where s.reason = 'bounce' and s.created_at > now() - ${TRANSACTIONAL_BOUNCE_DAYS} * interval '1 day'`}
        order by s.project_id, s.email, s.created_at desc`;
      for (const r of rows) found.set(`${marketing} ${r.project_id} ${r.email}`, { reason: r.reason, createdAt: iso(r.created_at) });
    }
    return asked.map((a) => {
      const mine = new Map<string, Suppression>();
      for (const e of a.emails) {
        const hit = found.get(`${a.marketing} ${a.projectId} ${e.toLowerCase()}`);
        if (hit) mine.set(e.toLowerCase(), hit);
      }
      return mine;
    });
  },
});
