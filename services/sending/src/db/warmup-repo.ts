import { traced, type Q } from "@mailroom/kit";
import type { DayOutcome } from "../domain/warmup.js";

/** The warm-up state of sender domains (domains.warmup_cap, warmup_day) and the outcome of a day's mail. */
export const warmupRepo = traced("WarmupRepo", {
  /** The domain's latest cap and its day; null when it has had none yet. */
  async cap(q: Q, projectId: string, domain: string): Promise<{ cap: number; day: string } | null> {
    const [row] = await q<{ warmup_cap: number | null; warmup_day: string | null }[]>`
      select warmup_cap, to_char(warmup_day, 'YYYY-MM-DD') as warmup_day from domains where project_id = ${projectId} and domain = ${domain}`;
    return row?.warmup_cap != null && row.warmup_day != null ? { cap: row.warmup_cap, day: row.warmup_day } : null;
  },

  /** Sets the cap of `day` unless a replica set that day's first; answers the day's cap either way. */
  async setCap(q: Q, projectId: string, domain: string, day: string, cap: number): Promise<number> {
    const [row] = await q<{ warmup_cap: number }[]>`
      update domains set warmup_cap = case when warmup_day is distinct from ${day}::date then ${cap} else warmup_cap end,
        warmup_day = ${day}::date
      where project_id = ${projectId} and domain = ${domain} returning warmup_cap`;
    return row?.warmup_cap ?? cap;
  },

  /**
   * The domain's mail sent in [from, to): how much, how much bounced, how much was complained about.
   * Once a day per warming domain, over that project's emails of the day.
   */
  async outcome(q: Q, projectId: string, domain: string, from: Date, to: Date): Promise<DayOutcome> {
    const [row] = await q<{ sent: number; bounced: number; complained: number }[]>`
      select count(*)::int as sent, count(*) filter (where status = 'BOUNCED')::int as bounced,
        count(*) filter (where status = 'COMPLAINED')::int as complained
      from emails
      where project_id = ${projectId} and sent_at >= ${from} and sent_at < ${to}
        and lower(substring(from_email from '[^@]*$')) = ${domain}`;
    return row ?? { sent: 0, bounced: 0, complained: 0 };
  },
});
