import { z } from "zod";

/** Gateway-only settings (the shared ones come from @mailroom/kit's BaseEnv). */
export const GatewayEnv = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().default("0.0.0.0"),
  PUBLIC_URL: z.url().default("http://localhost:8080"),
  /** Default per-key token bucket: sustained requests per second and burst size. */
  RATE_LIMIT_PER_SECOND: z.coerce.number().int().min(1).default(100),
  RATE_LIMIT_BURST: z.coerce.number().int().min(1).default(200),
  /** How long a key lookup is trusted before the database is asked again (revocation bound). */
  KEY_CACHE_MS: z.coerce.number().int().min(0).max(1000).default(500),
});
