import ipaddr from "ipaddr.js";
import { z } from "zod";
import { FORM_SUBMISSIONS_PER_MINUTE, UPLOAD_MAX_BYTES } from "@mailroom/contracts";

/** The names fastify's trustProxy (@fastify/proxy-addr) accepts beside addresses and CIDRs. */
const PROXY_RANGES = new Set(["loopback", "linklocal", "uniquelocal"]);

export type TrustProxy = boolean | string[] | ((address: string, hop: number) => boolean);

/** `TRUST_PROXY` as fastify's `trustProxy` takes it, or the error naming the entry it cannot use. */
export function parseTrustProxy(value: string): TrustProxy | Error {
  const v = value.trim();
  if (v === "" || v === "false") return false;
  if (v === "true") return true;
  if (/^\d+$/.test(v)) {
    // fastify 5 takes a bare number as "trust nothing"; a hop count means the nearest N proxies
    // (hop 0 is the socket's peer), as in Express and proxy-addr
    const hops = Number(v);
    return (_address, hop) => hop < hops;
  }
  const entries = v.split(",").map((e) => e.trim());
  const bad = entries.find((e) => !(PROXY_RANGES.has(e) || ipaddr.isValid(e) || ipaddr.isValidCIDR(e)));
  if (bad !== undefined) return new Error(`"${bad}" is not an address, a CIDR, loopback, linklocal or uniquelocal`);
  return entries;
}

const PerSecond = z.coerce.number().int().min(1);
const Bool = z.enum(["true", "false", "1", "0", "on", "off", ""]).transform((v) => v === "true" || v === "1" || v === "on");
/** A listener's port; `off` (or empty) turns that listener off. */
const ListenerPort = (port: number) =>
  z
    .string()
    .default(String(port))
    .transform((v, ctx) => {
      const t = v.trim();
      if (t === "" || t === "off") return null;
      const n = Number(t);
      if (!Number.isInteger(n) || n < 0 || n > 65535) {
        ctx.addIssue({ code: "custom", message: "a port (0 to 65535) or off" });
        return z.NEVER;
      }
      return n;
    });
const DAY_MS = 24 * 60 * 60 * 1000;
/** Unset and empty are the same: compose files pass `OIDC_ISSUER=` when the operator sets nothing. */
const Optional = z
  .string()
  .optional()
  .transform((v) => (v?.trim() ? v.trim() : undefined));

/** Gateway-only settings (the shared ones come from @mailroom/kit's BaseEnv). */
export const GatewayEnv = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().default("0.0.0.0"),
  PUBLIC_URL: z.url().default("http://localhost:8080"),
  /** The dashboard's build (index.html, assets/); default: packages/dashboard/dist of the workspace. */
  DASHBOARD_DIR: z.string().optional(),
  /** Default per-key token bucket: sustained requests per second and burst size. */
  RATE_LIMIT_PER_SECOND: PerSecond.default(100),
  RATE_LIMIT_BURST: PerSecond.default(200),
  /**
   * Per client address on the routes without a key (links, pixels, the SES webhook). Generous, since
   * mail providers' image proxies fetch many recipients' pixels from a few addresses.
   */
  IP_RATE_LIMIT_PER_SECOND: PerSecond.default(50),
  IP_RATE_LIMIT_BURST: PerSecond.default(500),
  /**
   * Signup form submissions (POST /f/{id}) per client address a minute, across every form
   * (decisions.md §17: 10). Only test platforms, whose clients all share 127.0.0.1, raise it.
   */
  FORM_SUBMISSIONS_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(FORM_SUBMISSIONS_PER_MINUTE),
  /**
   * Key lookups that find no key, per client address. Past it the address gets 429 instead of a
   * database query for every new random key; a valid (cached) key keeps working.
   */
  AUTH_FAILURES_PER_SECOND: PerSecond.default(2),
  AUTH_FAILURES_BURST: PerSecond.default(30),
  /**
   * Bound on receiving a whole request, headers and body, from a client: past it 400 and the
   * connection closes, so a client that sends slowly or stops cannot hold connections open.
   */
  /**
   * Largest CSV import body (decisions.md §14: 1 GB); bodies past it get 413 before they are stored.
   * An upload must also arrive within HTTP_REQUEST_TIMEOUT_MS.
   */
  CONTACT_IMPORT_MAX_BYTES: z.coerce.number().int().min(1).max(UPLOAD_MAX_BYTES).default(UPLOAD_MAX_BYTES),
  HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(500).max(600_000).default(60_000),
  /** How long a key lookup is trusted before the database is asked again (revocation bound). */
  KEY_CACHE_MS: z.coerce.number().int().min(0).max(1000).default(500),
  /**
   * Which proxies' X-Forwarded-For to believe (fastify's trustProxy): unset or `false` none, so a
   * client cannot choose the address it is limited by; `true` every hop; a hop count (only where no
   * client reaches the gateway but through that many proxies); or a comma list of addresses and
   * CIDRs (`10.0.0.0/8,127.0.0.1`, or `loopback`, `linklocal`, `uniquelocal`).
   */
  TRUST_PROXY: z
    .string()
    .default("false")
    .transform((v, ctx) => {
      const parsed = parseTrustProxy(v);
      if (parsed instanceof Error) {
        ctx.addIssue({ code: "custom", message: parsed.message });
        return z.NEVER;
      }
      return parsed;
    }),
  /**
   * Caps every route's bound on its service's answer, the longer ones of their own too (/v1/send:
   * 30 s), e.g. to answer before a load balancer's idle timeout. 0: no cap.
   */
  ROUTE_TIMEOUT_MAX_MS: z.coerce.number().int().min(0).max(120_000).default(0),
  /**
   * After an answer that leaves the outcome unknown (the service timed out or failed), how long an
   * Idempotency-Key stays claimed before a retry may run the request again.
   */
  IDEMPOTENCY_RETRY_AFTER_MS: z.coerce.number().int().min(0).max(600_000).default(2000),
  /** A dashboard session ends after this long without a request… */
  SESSION_IDLE_MS: z.coerce.number().int().min(1000).default(7 * DAY_MS),
  /** …and this long after sign-in, however active (decisions.md §13). */
  SESSION_MAX_MS: z.coerce.number().int().min(1000).default(30 * DAY_MS),
  /** How long a session lookup (and the member's role) is trusted before the database is asked again. */
  SESSION_CACHE_MS: z.coerce.number().int().min(0).max(1000).default(1000),
  /** Failed sign-ins per email address, and per client address, before 429 for the rest of the window. */
  LOGIN_MAX_FAILURES: PerSecond.default(10),
  LOGIN_MAX_FAILURES_PER_CLIENT: PerSecond.default(50),
  LOGIN_FAILURE_WINDOW_MS: z.coerce.number().int().min(1000).default(15 * 60 * 1000),
  /** How long an invitation link works. */
  INVITATION_TTL_MS: z.coerce.number().int().min(1000).default(7 * DAY_MS),
  /**
   * SMTP relay (decisions.md §17): submission with STARTTLS and implicit TLS. On when a certificate
   * is given (CERT and KEY: PEM text or a file's path), or on the submission port alone without TLS
   * when SMTP_RELAY_INSECURE is set (development only: keys would cross the network in clear).
   */
  SMTP_RELAY_PORT: ListenerPort(587),
  SMTP_RELAY_TLS_PORT: ListenerPort(465),
  SMTP_RELAY_HOST: z.string().optional(),
  SMTP_RELAY_TLS_CERT: Optional,
  SMTP_RELAY_TLS_KEY: Optional,
  SMTP_RELAY_INSECURE: Bool.default(false),
  /** Largest message, advertised as SIZE (decisions.md §17: 25 MB). */
  SMTP_RELAY_MAX_BYTES: z.coerce.number().int().min(1024).max(40 * 1024 * 1024).default(25 * 1024 * 1024),
  /** Connections at once. */
  SMTP_RELAY_MAX_CLIENTS: PerSecond.default(50),
  /**
   * Bytes of messages the relay holds at once (each is parsed and forwarded whole, as base64 in
   * JSON: about three times its size on the heap); past it a message is 452, try later. At least
   * one message of SMTP_RELAY_MAX_BYTES always fits.
   */
  SMTP_RELAY_BUFFER_BYTES: z.coerce.number().int().min(1024).default(50 * 1024 * 1024),
  SMTP_RELAY_SOCKET_TIMEOUT_MS: z.coerce.number().int().min(1000).default(60_000),
  /** The name in the relay's greeting; the host of PUBLIC_URL when unset. */
  SMTP_RELAY_NAME: Optional,
  /** OpenID Connect sign-in, on when all three are set (decisions.md §13). */
  OIDC_ISSUER: Optional.pipe(z.url().optional()),
  OIDC_CLIENT_ID: Optional,
  OIDC_CLIENT_SECRET: Optional,
});
export type GatewayConfig = z.infer<typeof GatewayEnv>;

/** The relay's settings when it runs, else null (no certificate and not insecure). */
export function relaySettings(c: GatewayConfig) {
  const tls = c.SMTP_RELAY_TLS_CERT && c.SMTP_RELAY_TLS_KEY ? { cert: c.SMTP_RELAY_TLS_CERT, key: c.SMTP_RELAY_TLS_KEY } : null;
  if (!tls && !c.SMTP_RELAY_INSECURE) return null;
  return {
    host: c.SMTP_RELAY_HOST ?? c.HOST,
    port: c.SMTP_RELAY_PORT,
    tlsPort: tls ? c.SMTP_RELAY_TLS_PORT : null,
    tls,
    insecure: c.SMTP_RELAY_INSECURE,
    maxBytes: c.SMTP_RELAY_MAX_BYTES,
    bufferBytes: Math.max(c.SMTP_RELAY_BUFFER_BYTES, c.SMTP_RELAY_MAX_BYTES),
    maxClients: c.SMTP_RELAY_MAX_CLIENTS,
    socketTimeoutMs: c.SMTP_RELAY_SOCKET_TIMEOUT_MS,
    name: c.SMTP_RELAY_NAME ?? new URL(c.PUBLIC_URL).hostname,
  };
}

/** The OpenID Connect settings when sign-in through it is on, else null. */
export function oidcSettings(c: Pick<GatewayConfig, "OIDC_ISSUER" | "OIDC_CLIENT_ID" | "OIDC_CLIENT_SECRET">) {
  if (!c.OIDC_ISSUER || !c.OIDC_CLIENT_ID || !c.OIDC_CLIENT_SECRET) return null;
  return { issuer: c.OIDC_ISSUER, clientId: c.OIDC_CLIENT_ID, clientSecret: c.OIDC_CLIENT_SECRET };
}
