import { z } from "zod";

const HostPortList = z
  .string()
  .default("")
  .transform((v) =>
    v
      .split(",")
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean),
  )
  .pipe(z.array(z.string().regex(/^(\[[0-9a-f:.]+\]|[^:\s]+):\d{1,5}$/, "each entry must be host:port")));

/** The workflows service's own settings (the shared ones come from the kit's BaseEnv). */
export const WorkflowsEnv = z.object({
  /** `host:port` of the DNS server used to resolve webhook hosts; the system's nameserver when unset. */
  DNS_SERVER: z.string().min(1).optional(),
  /** Comma-separated `host:port` list exempt from the webhook address rule. Local testing only. */
  WEBHOOK_ALLOWED_HOSTS: HostPortList,
  /**
   * Speeds up the engine's clock for DELAY and WAIT_FOR_EVENT timers: 60 makes a minute last one
   * second. For tests and benchmarks; production leaves it at 1.
   */
  WORKFLOWS_TIME_SCALE: z.coerce.number().min(1).max(1_000_000).default(1),
  /** How often due timers and abandoned executions are looked for. */
  WORKFLOWS_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(250),
  /** How long a replica's claim on an execution lasts; a crashed replica's work is taken over after it. */
  WORKFLOWS_LEASE_MS: z.coerce.number().int().min(1000).max(600_000).default(30_000),
  /** Executions advanced in parallel per replica. */
  WORKFLOWS_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(32),
  /** Batches of trigger events handled in parallel per replica. */
  WORKFLOWS_TRIGGER_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(4),
  /** Trigger events handled together (one round of statements) at most; batches form only under load. */
  WORKFLOWS_TRIGGER_BATCH: z.coerce.number().int().min(1).max(1000).default(100),
  /**
   * The shared shutdown bound, with a longer default here: a webhook under way when SIGTERM comes may
   * take the spec's 10 s, and its answer must be recorded before the process exits. Steps under way
   * get this minus 3 s (for the writes that follow); a webhook still waiting then is cut short and
   * its step run again by another replica.
   */
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(15_000),
  /** How often due webhook deliveries are looked for when no event said one is due (decisions.md §16). */
  WEBHOOKS_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(500),
  /** Webhook calls under way at once per replica. */
  WEBHOOKS_CONCURRENCY: z.coerce.number().int().min(1).max(4096).default(256),
  /** Webhook calls under way at once to one endpoint per replica: what a hanging endpoint can hold. */
  WEBHOOKS_PER_ENDPOINT: z.coerce.number().int().min(1).max(256).default(8),
  /**
   * How long a replica's claim on a webhook delivery lasts: a replica killed mid-call leaves the
   * delivery to be sent again after it. Longer than a call's 10 s timeout.
   */
  WEBHOOKS_LEASE_MS: z.coerce.number().int().min(11_000).max(600_000).default(30_000),
  /**
   * Speeds the webhook retry schedule (5 s … 10 h) and the five-day give-up: 1000 makes 5 minutes
   * last 0.3 s. For tests; production leaves it at 1.
   */
  WEBHOOKS_TIME_SCALE: z.coerce.number().min(1).max(10_000_000).default(1),
  /** How often SCHEDULE workflows are checked for a due tick. */
  WORKFLOWS_SCHEDULE_POLL_MS: z.coerce.number().int().min(100).max(60_000).default(1000),
});
export type WorkflowsEnv = z.infer<typeof WorkflowsEnv>;
