import { ROUTES } from "@mailroom/contracts";
import { redisUnavailableWarning, traced, type Deps, type ServiceApp } from "@mailroom/kit";
import type { GatewayEnv } from "./config.js";
import { KeysRepo } from "./db/keys-repo.js";
import { IdempotencyRepo } from "./db/idempotency-repo.js";
import { Authenticator } from "./domain/authenticator.js";
import { RateLimiter } from "./domain/rate-limiter.js";
import { buildHttp } from "./http.js";

type GatewayDeps = Deps<(typeof GatewayEnv)["shape"]>;

export function buildApp(deps: GatewayDeps): ServiceApp & { http: ReturnType<typeof buildHttp> } {
  const { config, log } = deps;
  const auth = new Authenticator(traced("KeysRepo", new KeysRepo(deps.db)), config.KEY_CACHE_MS);
  const limiter = new RateLimiter(
    deps.redis,
    config.NATS_PREFIX,
    { perSecond: config.RATE_LIMIT_PER_SECOND, burst: config.RATE_LIMIT_BURST },
    redisUnavailableWarning(log, "rate limits not enforced"),
  );
  const idempotency = traced("IdempotencyRepo", new IdempotencyRepo(deps.sql));
  const http = buildHttp(
    { rpc: deps.rpc, auth, limiter, idempotency, log, metrics: deps.metrics, publicUrl: config.PUBLIC_URL },
    ROUTES,
  );

  // Revocations are broadcast to every replica (not a queue group) so each evicts at once.
  const revoked = deps.nc.subscribe(deps.names.broadcast.keyRevoked, {
    callback: (_err, msg) => auth.evict(msg.string()),
  });
  const purge = setInterval(() => void idempotency.purgeExpired().catch(() => undefined), 60 * 60 * 1000);
  purge.unref();

  return {
    http,
    async start() {
      await http.listen({ port: config.PORT, host: config.HOST });
      const addr = http.server.address();
      log.info({ port: typeof addr === "object" && addr ? addr.port : config.PORT }, "gateway listening");
    },
    async stop() {
      clearInterval(purge);
      revoked.unsubscribe();
      await http.close();
    },
  };
}
