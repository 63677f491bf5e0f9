import { ROUTES, accountsRpc } from "@mailroom/contracts";
import { Periodic, isId, redisUnavailableWarning, type Deps, type ServiceApp } from "@mailroom/kit";
import { oidcSettings, type GatewayEnv } from "./config.js";
import { keysRepo } from "./db/keys-repo.js";
import { idempotencyRepo } from "./db/idempotency-repo.js";
import { invitationsRepo } from "./db/invitations-repo.js";
import { Authenticator } from "./domain/authenticator.js";
import { LoginThrottle } from "./domain/login-throttle.js";
import { LookupFailures } from "./domain/lookup-failures.js";
import { Sessions } from "./domain/sessions.js";
import { sessionsRepo } from "./db/sessions-repo.js";
import { RateLimiter } from "./domain/rate-limiter.js";
import { buildHttp } from "./http.js";
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
  // Every query a key costs, by outcome: a flood of unknown keys shows here (it should stay flat).
  const lookup = {
    async findActiveByHash(hash: string) {
      const record = await keysRepo.findActiveByHash(deps.sql, hash);
      deps.metrics.keyLookups.inc({ result: record ? "found" : "unknown" });
      return record;
    },
  };
  // unknown keys and unknown session cookies share one budget per client address (decisions.md §15)
  const lookupFailures = new LookupFailures({ take: (client) => failures.take(`authfail:${client}`) });
  const auth = new Authenticator(lookup, config.KEY_CACHE_MS, lookupFailures);
  const sessions = new Sessions(deps.sql, { idleMs: config.SESSION_IDLE_MS, maxMs: config.SESSION_MAX_MS, cacheMs: config.SESSION_CACHE_MS });
  const throttle = new LoginThrottle(
    deps.redis,
    config.NATS_PREFIX,
    { perEmail: config.LOGIN_MAX_FAILURES, perClient: config.LOGIN_MAX_FAILURES_PER_CLIENT, windowMs: config.LOGIN_FAILURE_WINDOW_MS },
    redisUnavailableWarning(log, "sign-in throttling not enforced"),
  );
  const publicUrl = new URL(config.PUBLIC_URL);
  const http = buildHttp(
    {
      rpc: deps.rpc,
      blobs: deps.blobs,
      uploadMaxBytes: config.CONTACT_IMPORT_MAX_BYTES,
      auth,
      limiter,
      keyless,
      sql: deps.sql,
      log,
      metrics: deps.metrics,
      publicUrl: config.PUBLIC_URL,
      trustProxy: config.TRUST_PROXY,
      requestTimeoutMs: config.HTTP_REQUEST_TIMEOUT_MS,
      timeouts: { defaultMs: config.RPC_TIMEOUT_MS, maxMs: config.ROUTE_TIMEOUT_MAX_MS },
      idempotencyRetryAfterMs: config.IDEMPOTENCY_RETRY_AFTER_MS,
      sessions,
      lookupFailures,
      throttle,
      publicOrigin: publicUrl.origin,
      secureCookie: publicUrl.protocol === "https:",
      invitationTtlMs: config.INVITATION_TTL_MS,
      oidc: oidcSettings(config),
      // as `mailroom keys revoke` does: every replica (this one included) evicts the key at once
      keyRevoked: (hash) => {
        auth.evict(hash);
        deps.nc.publish(deps.names.broadcast.keyRevoked, hash);
      },
      dashboardDir: dashboardDir(config.DASHBOARD_DIR),
    },
    ROUTES,
  );

  // Revocations are broadcast to every replica (not a queue group) so each evicts at once.
  const revoked = deps.nc.subscribe(deps.names.broadcast.keyRevoked, {
    callback: (_err, msg) => auth.evict(msg.string()),
  });
  const purge = new Periodic({ name: "idempotency purge", everyMs: 60 * 60 * 1000, log, run: () => idempotencyRepo.purgeExpired(deps.sql) });
  const endedSessions = new Periodic({
    name: "session purge",
    everyMs: 60 * 60 * 1000,
    log,
    run: async () => {
      await sessionsRepo.purgeEnded(deps.sql, config.SESSION_IDLE_MS);
      await invitationsRepo.pruneMailings(deps.sql);
    },
  });

  return {
    http,
    // the one thing other services ask the gateway: a project's name (sending's confirmation text)
    register(server) {
      server.rpc(accountsRpc.projectName, async ({ projectId }) => ({ name: isId(projectId) ? await keysRepo.projectName(deps.sql, projectId) : null }));
    },
    async start() {
      purge.start();
      endedSessions.start();
      await http.listen({ port: config.PORT, host: config.HOST });
      const addr = http.server.address();
      log.info({ port: typeof addr === "object" && addr ? addr.port : config.PORT }, "gateway listening");
    },
    async stop() {
      await purge.stop();
      await endedSessions.stop();
      revoked.unsubscribe();
      await http.close();
    },
  };
}
