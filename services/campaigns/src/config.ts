import { z } from "zod";

const Ms = z.coerce.number().int().min(1);

/** The campaigns service's own settings (the shared ones come from the kit's BaseEnv). */
export const CampaignsEnv = z.object({
  /** How often each replica looks for due SCHEDULED campaigns (and finished SENDING ones). */
  CAMPAIGNS_SCHEDULER_INTERVAL_MS: Ms.max(60_000).default(500),
  /** Contacts per audience page: one page is all of the audience a fan-out holds in memory. */
  CAMPAIGNS_PAGE_SIZE: z.coerce.number().int().min(1).max(1000).default(500),
  /** Recipients per sending.enqueueBatch call: one sender check and one transaction for all of them. */
  CAMPAIGNS_ENQUEUE_BATCH: z.coerce.number().int().min(1).max(1000).default(100),
  /** sending.enqueueBatch calls in flight per running fan-out. */
  CAMPAIGNS_ENQUEUE_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  /**
   * Fan-outs one replica runs at once; more campaigns wait for a free slot or another replica. A
   * fan-out lasts until its last window is handed over (nearly the whole campaign), and one waiting
   * for room costs a query every 200 ms and no memory, so there are enough slots for many projects.
   */
  CAMPAIGNS_MAX_FANOUTS: z.coerce.number().int().min(1).max(64).default(16),
  /**
   * Seconds of bulk delivery, at the lane's measured rate, that the running campaigns may hold queued
   * in all (each project an even share, domain/window.ts): about how long a campaign started while
   * others run waits for its first email. Keep it well above the second or two from enqueue to the
   * stats counting an email, or a campaign alone cannot keep the delivery workers busy.
   */
  CAMPAIGNS_WINDOW_SECONDS: z.coerce.number().min(1).max(600).default(10),
  /** Recipients a campaign may hold queued whatever the rate (its start, a slow lane). */
  CAMPAIGNS_WINDOW_MIN: z.coerce.number().int().min(1).max(1_000_000).default(1000),
  /** Recipients a campaign may hold queued at most. */
  CAMPAIGNS_WINDOW_MAX: z.coerce.number().int().min(1).max(10_000_000).default(50_000),
  /**
   * A fan-out's lease on its campaign. A replica that dies holds it at most this long before another
   * replica (or its own restart) resumes from the checkpoint; the owner renews it every third of it.
   */
  CAMPAIGNS_LEASE_MS: Ms.min(1000).max(300_000).default(10_000),
  /**
   * sending.enqueueBatch calls in a row that move none of a page's recipients on (sending answers an
   * error that is not "not running") before those recipients count as failed; the calls back off
   * from 0.5 s to 30 s, so the default gives up after about two minutes.
   */
  CAMPAIGNS_ENQUEUE_ATTEMPTS: z.coerce.number().int().min(1).max(1000).default(10),
  /**
   * Test only: how long one minute of an A/B test's `waitMinutes` lasts, so tests can wait seconds
   * (the API keeps 5 minutes as its least wait). Never set in production.
   */
  CAMPAIGNS_AB_MINUTE_MS: Ms.max(60_000).default(60_000),
});
export type CampaignsEnv = z.infer<typeof CampaignsEnv>;
