import { verifyRoutes, verifyRpc } from "@mailroom/contracts";
import { redisUnavailableWarning, type Deps, type ServiceApp } from "@mailroom/kit";
import { z } from "zod";
import { verifierDeps } from "./deps.js";
import { createVerifier } from "./domain/verifier.js";
import { verifyHandler } from "./handlers/verify.js";

/** The verify service's own settings; the shared ones come from the kit. */
export const VerifyEnv = z.object({
  DNS_SERVER: z.string().min(1).optional(),
  VERIFY_DNS_TIMEOUT_MS: z.coerce.number().int().min(100).max(30_000).default(2_000),
  VERIFY_LISTS_DIR: z.string().min(1).optional(),
});

export function buildApp(deps: Deps<(typeof VerifyEnv)["shape"]>): ServiceApp {
  const { config, log } = deps;
  // Repeats every 10 s for as long as the cache is down (kit redisUnavailableWarning's rule).
  const cacheDown = redisUnavailableWarning(log, "verify cache not used; looking up DNS directly");
  const verifier = createVerifier(
    verifierDeps({
      redis: deps.redis,
      dnsServer: config.DNS_SERVER,
      dnsTimeoutMs: config.VERIFY_DNS_TIMEOUT_MS,
      listsDir: config.VERIFY_LISTS_DIR,
      cachePrefix: `${config.NATS_PREFIX}:verify:dns:`,
      onCacheError: cacheDown,
    }),
  );
  return {
    register(server) {
      server.route(verifyRoutes[0]!, verifyHandler(verifier));
      // the same checks for another service (a signup form's address, decisions.md §17)
      server.rpc(verifyRpc.address, ({ email }) => verifier.check(email));
    },
  };
}
