import { MAX_RECIPIENTS, ROUTES, accountsRpc, routeOf, sendRoutes } from "@mailroom/contracts";
import { Periodic, redisUnavailableWarning, type Deps, type ServiceApp } from "@mailroom/kit";
import { oidcSettings, relaySettings, type GatewayEnv } from "./config.js";
import { Authenticator } from "./domain/authenticator.js";
import { LookupFailures } from "./domain/lookup-failures.js";
import { LoginThrottle } from "./infra/login-throttle.js";
import { RateLimiter } from "./infra/rate-limiter.js";
import { Accounts } from "./usecases/accounts.js";
import { IdempotencyKeys } from "./usecases/idempotency.js";
import { ProjectKeys } from "./usecases/keys.js";
import { Members } from "./usecases/members.js";
import { Sessions } from "./usecases/sessions.js";
import { buildHttp } from "./http.js";
import { routeTimeoutMs } from "./handlers/forward.js";
import { pemOf } from "./relay/certificate.js";
import { startRelay, type RelayServer } from "./relay/server.js";
import { RelaySubmissions } from "./usecases/relay.js";
import { dashboardDir } from "./dashboard.js";

type GatewayDeps = Deps<(typeof GatewayEnv)["shape"]>;

export function buildApp(deps: GatewayDeps): ServiceApp & { http: ReturnType<typeof buildHttp> } {
  const { config, log } = deps;
  const degraded = redisUnavailableWarning(log, "rate limits not enforced");
  // One Redis bucket per key, per client address on the keyless routes, and per client address for
  // key lookups that found nothing (their ids never collide: keys are UUIDs, the others prefixed).
  const bucket = (perSecond: number, burst: number) => new RateLimiter(deps.redis, config.NATS_PREFIX, { perSecond, burst }, degraded);
  const limiter = bucket(config.RATE_LIMIT_PER_SECOND, config.RATE_LIMIT_BURST);
  const keyless = bucket(config.IP_RATE_LIMIT_PER_SECOND, config.IP_RATE_LIMIT_BURST);
  const failures = bucket(config.AUTH_FAILURES_PER_SECOND, config.AUTH_FAILURES_BURST);
  // the form submissions' own per-address limit (the only route with one): the whole minute's worth
  // at once, then refilled evenly, so the 11th post within a minute is refused
  const perMinute = config.FORM_SUBMISSIONS_PER_MINUTE;
  const formPosts = bucket(perMinute / 60, perMinute);
  const clientLimiter = () => formPosts;
  // as `mailroom keys revoke` does: every replica (this one included) evicts the key at once
  const keys = new ProjectKeys(deps.sql, deps.metrics, (hash) => {
    auth.evict(hash);
    deps.nc.publish(deps.names.broadcast.keyRevoked, hash);
  });
  // unknown keys and unknown session cookies share one budget per client address (decisions.md §15)
  const lookupFailures = new LookupFailures({ take: (client) => failures.take(`authfail:${client}`) });
  const auth = new Authenticator(keys, config.KEY_CACHE_MS, lookupFailures);
  const sessions = new Sessions(deps.sql, { idleMs: config.SESSION_IDLE_MS, maxMs: config.SESSION_MAX_MS, cacheMs: config.SESSION_CACHE_MS });
  const throttle = new LoginThrottle(
    deps.redis,
    config.NATS_PREFIX,
    { perEmail: config.LOGIN_MAX_FAILURES, perClient: config.LOGIN_MAX_FAILURES_PER_CLIENT, windowMs: config.LOGIN_FAILURE_WINDOW_MS },
    redisUnavailableWarning(log, "sign-in throttling not enforced"),
  );
  const idempotency = new IdempotencyKeys(deps.sql, config.IDEMPOTENCY_RETRY_AFTER_MS);
  const members = new Members(deps.sql, deps.rpc, { publicUrl: config.PUBLIC_URL, invitationTtlMs: config.INVITATION_TTL_MS });
  const publicUrl = new URL(config.PUBLIC_URL);
  const timeouts = { defaultMs: config.RPC_TIMEOUT_MS, maxMs: config.ROUTE_TIMEOUT_MAX_MS };
  // The relay forwards each message as /v1/send's body, through the same path (decisions.md §17).
  const sendRoute = routeOf(sendRoutes, "sending.send");
  const relay = relaySettings(config);
  const relaySubmissions = relay
    ? new RelaySubmissions({ auth, limiter, rpc: deps.rpc, log, sendRoute, timeoutMs: routeTimeoutMs(sendRoute, timeouts) })
    : null;
  let relayServer: RelayServer | null = null;
  const http = buildHttp(
    {
      rpc: deps.rpc,
      blobs: deps.blobs,
      uploadMaxBytes: config.CONTACT_IMPORT_MAX_BYTES,
      auth,
      limiter,
      keyless,
      clientLimiter,
      idempotency,
      log,
      metrics: deps.metrics,
      publicUrl: config.PUBLIC_URL,
      trustProxy: config.TRUST_PROXY,
      requestTimeoutMs: config.HTTP_REQUEST_TIMEOUT_MS,
      timeouts,
      sessions,
      accounts: new Accounts(deps.sql, throttle, sessions),
      members,
      keys,
      lookupFailures,
      publicOrigin: publicUrl.origin,
      secureCookie: publicUrl.protocol === "https:",
      oidc: oidcSettings(config),
      dashboardDir: dashboardDir(config.DASHBOARD_DIR),
    },
    ROUTES,
  );

  // Revocations are broadcast to every replica (not a queue group) so each evicts at once.
  const revoked = deps.nc.subscribe(deps.names.broadcast.keyRevoked, {
    callback: (_err, msg) => auth.evict(msg.string()),
  });
  const purge = new Periodic({ name: "idempotency purge", everyMs: 60 * 60 * 1000, log, run: () => idempotency.purgeExpired() });
  const endedSessions = new Periodic({
    name: "session purge",
    everyMs: 60 * 60 * 1000,
    log,
    run: async () => {
      await sessions.purgeEnded();
      await members.pruneMailings();
    },
  });

  return {
    http,
    // the one thing other services ask the gateway: a project's name (sending's confirmation text)
    register(server) {
      server.rpc(accountsRpc.projectName, async ({ projectId }) => ({ name: await keys.projectName(projectId) }));
    },
    async start() {
      purge.start();
      endedSessions.start();
      await http.listen({ port: config.PORT, host: config.HOST });
      const addr = http.server.address();
      log.info({ port: typeof addr === "object" && addr ? addr.port : config.PORT }, "gateway listening");
      if (relay && relaySubmissions) {
        const tls = relay.tls ? { cert: await pemOf(relay.tls.cert), key: await pemOf(relay.tls.key) } : null;
        relayServer = await startRelay({ ...relay, tls, maxRecipients: MAX_RECIPIENTS }, relaySubmissions, log);
        log.info({ port: relayServer.port, tlsPort: relayServer.tlsPort, insecure: relay.insecure }, "SMTP relay listening");
      } else {
        log.info("SMTP relay off: set SMTP_RELAY_TLS_CERT and SMTP_RELAY_TLS_KEY (or SMTP_RELAY_INSECURE=true) to turn it on");
      }
    },
    async stop() {
      // first, so no new message starts while the rest shuts down (its close waits a little for those in flight)
      await relayServer?.close();
      await purge.stop();
      await endedSessions.stop();
      revoked.unsubscribe();
      await http.close();
    },
  };
}
