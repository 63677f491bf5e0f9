import { z } from "zod";
import { parseDuration } from "./domain/deferrals.js";
import { DeliveryLimitsText } from "./domain/delivery-limits.js";
import { isTopicArn } from "./domain/sns.js";

const Bool = z.enum(["true", "false", "1", "0", "on", "off", ""]).transform((v) => v === "true" || v === "1" || v === "on");
const Ms = z.coerce.number().int().min(0);

/** The sending service's own settings (the shared ones come from the kit's BaseEnv). */
export const SendingEnv = z.object({
  /** The outgoing relay. Required here: `npm start` points it at the development mailbox. */
  SMTP_URL: z.string().regex(/^smtps?:\/\/[^\s]+$/, "must be smtp://… or smtps://…"),
  /** Connections the pooled transport keeps open to the relay. */
  SMTP_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(5),
  /** Emails per second per project across all sending replicas (Redis); 0: no limit. */
  SEND_RATE_PER_PROJECT: z.coerce.number().int().min(0).max(100_000).default(0),
  /**
   * On: the relay returns DSNs to our inbound server, which turns them into email.delivery.
   * Off (default): the relay's 250 is the best delivery signal there is, so it also emits email.delivery.
   */
  SMTP_DSN: Bool.default(false),
  PUBLIC_URL: z.url().default("http://localhost:8080"),
  /** Domain of the VERP envelope sender and of Message-IDs; the host of PUBLIC_URL when unset. */
  RETURN_PATH_DOMAIN: z.string().min(1).optional(),
  /**
   * Sender of Mailroom's own mail (invitations); no-reply@ the return-path domain when unset or
   * empty (compose passes `SYSTEM_FROM=` when the operator sets nothing).
   */
  SYSTEM_FROM: z.preprocess((v) => (v === "" ? undefined : v), z.email().optional()),
  /** `host:port` of the DNS server for domain checks; the system resolver when unset. */
  DNS_SERVER: z.string().min(1).optional(),
  DNS_TIMEOUT_MS: Ms.min(100).max(30_000).default(2000),
  /**
   * rspamd's HTTP address (its normal worker, e.g. http://rspamd:11333) for the spam score of the
   * pre-send checks (decisions.md §18); unset: the checks have no spam score.
   */
  RSPAMD_URL: z.preprocess((v) => (v === "" ? undefined : v), z.url().optional()),
  /** rspamd's controller password, when its worker asks for one. */
  RSPAMD_PASSWORD: z.string().min(1).optional(),
  /**
   * Bound on one rspamd answer: past it the spam score is a warning that rspamd did not answer. At
   * most 5 s, so the checks answer within contracts MESSAGE_CHECKS_TIMEOUT_MS.
   */
  RSPAMD_TIMEOUT_MS: Ms.min(100).max(5000).default(3000),
  /** Parallel deliveries of campaign mail (SEND_JOBS) per replica. */
  DELIVERY_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16),
  /** Parallel deliveries of transactional mail (TRANSACTIONAL_JOBS) per replica: slots of its own. */
  TRANSACTIONAL_DELIVERY_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16),
  /**
   * How long a replica's lease on an email it is delivering lasts unrenewed (renewed every third of
   * it), and the ack wait of delivery jobs: a replica that stalled this long has its emails taken over
   * by another. Tests shorten it to stall one; shorter in production means more renewal statements.
   */
  DELIVERY_LEASE_MS: Ms.min(1000).default(15_000),
  /**
   * How long an email the relay keeps answering 4xx is tried (decisions.md §18): `72h`, `30m`, `45s`
   * or milliseconds. Past it the email expires: a transient bounce, then `email.failed`.
   */
  DELIVERY_MAX_AGE: z
    .string()
    .default("72h")
    .transform((v, ctx) => parseDuration(v) ?? (ctx.addIssue({ code: "custom", message: "must be a duration such as 72h, 30m or 45s" }), z.NEVER))
    .pipe(z.number().int().min(1000)),
  /**
   * Per mailbox provider (decisions.md §18): `connections` in flight per replica and `perMinute` across
   * all replicas, as JSON: `{"google":{"connections":10,"perMinute":3000},"default":{"perMinute":600}}`.
   * Keys: google, microsoft, yahoo, apple, default, or an MX domain (mimecast.com). What is not given
   * keeps its default (the README's table). A bad value stops the service at start with the reason.
   */
  DELIVERY_LIMITS: DeliveryLimitsText,
  /** Tests only: divides the 4xx retry schedule (1, 5, 15, 60 minutes, then every 2 hours). */
  DELIVERY_TIME_SCALE: z.coerce.number().min(1).default(1),
  /** How often pending domains are looked up again in the background. */
  DOMAIN_RECHECK_INTERVAL_MS: Ms.min(1000).default(5 * 60_000),
  /** Decoded attachment bytes per message (api-spec: 10 MB by default). */
  SEND_MAX_ATTACHMENT_BYTES: z.coerce.number().int().min(1).default(10 * 1024 * 1024),
  /** Inbound SMTP (DSNs, complaints, received mail). 0 picks a free port (tests); the bound port is logged. */
  INBOUND_SMTP_PORT: z.coerce.number().int().min(0).max(65535).default(2525),
  INBOUND_SMTP_HOST: z.string().min(1).default("0.0.0.0"),
  /** Largest inbound message taken at all (advertised SIZE); bigger ones get 552. */
  INBOUND_MAX_BYTES: z.coerce.number().int().min(1024).default(25 * 1024 * 1024),
  /**
   * Bytes of one inbound message kept and parsed: the rest is read and dropped, and the message still
   * becomes its event, marked `truncated`. Reports and the text of received mail come first in a message.
   */
  INBOUND_KEEP_BYTES: z.coerce.number().int().min(16 * 1024).default(1024 * 1024),
  /** Bytes kept for all inbound messages at once (the memory bound); beyond, senders get 452 and retry. */
  INBOUND_BUFFER_BYTES: z.coerce.number().int().min(16 * 1024).default(32 * 1024 * 1024),
  /** Idle time after which an inbound SMTP connection is closed. */
  INBOUND_SOCKET_TIMEOUT_MS: Ms.min(1000).default(60_000),
  INBOUND_MAX_CLIENTS: z.coerce.number().int().min(1).default(200),
  /**
   * The SNS topics whose messages POST /webhooks/ses accepts (comma-separated ARNs). Empty: the route
   * answers 404, so a deployment that does not use SES offers nothing to forge.
   */
  SES_SNS_TOPIC_ARNS: z
    .string()
    .default("")
    .transform((v) => v.split(",").map((a) => a.trim()).filter(Boolean))
    .pipe(z.array(z.string().refine(isTopicArn, "must be SNS topic ARNs (arn:aws:sns:<region>:<account>:<name>)"))),
  /**
   * Tests only: a JSON file mapping SNS SigningCertURL → PEM, read instead of fetching the certificate
   * (there is no AWS in a test sandbox). Never set in production.
   */
  SNS_CERTIFICATES_FILE: z.string().min(1).optional(),
});
export type SendingEnv = z.infer<typeof SendingEnv>;

export function returnPathDomain(env: Pick<SendingEnv, "RETURN_PATH_DOMAIN" | "PUBLIC_URL">): string {
  return env.RETURN_PATH_DOMAIN ?? new URL(env.PUBLIC_URL).hostname;
}
