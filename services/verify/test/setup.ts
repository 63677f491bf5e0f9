import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";
import { VerifyResult } from "@mailroom/contracts";
import { VerifyEnv } from "../src/app.js";
import { verifierDeps } from "../src/deps.js";
import { startDnsServer, type DnsFixture } from "./dns-fixture.js";
import { createVerifier, type Verifier } from "../src/domain/verifier.js";

export const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

export interface Harness {
  verifier: Verifier;
  deps: { redis: Redis };
  prefix: string;
  /** Verifies and checks the answer against the public contract. */
  verify(email: string): Promise<VerifyResult>;
  close(): Promise<void>;
}

/** A verifier on the real Redis with its own key prefix, talking to the given DNS server. */
export function createHarness(dnsServer: string, env: Record<string, string> = {}): Harness {
  const prefix = `verify-test:${randomUUID()}:`;
  const config = VerifyEnv.parse({ DNS_SERVER: dnsServer, VERIFY_DNS_TIMEOUT_MS: "1000", ...env });
  // Like the service: fail fast instead of queueing while Redis is away.
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1, commandTimeout: 500 });
  redis.on("error", () => undefined);
  const deps = { redis };
  const verifier = createVerifier(
    verifierDeps({ redis, dnsServer: config.DNS_SERVER, dnsTimeoutMs: config.VERIFY_DNS_TIMEOUT_MS, listsDir: config.VERIFY_LISTS_DIR, cachePrefix: prefix }),
  );
  return {
    verifier,
    deps,
    prefix,
    async verify(email) {
      return VerifyResult.parse(await verifier.verify(email));
    },
    async close() {
      await deleteKeys(redis, prefix);
      await redis.quit();
    },
  };
}

export async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== "0");
}

/** The fixture DNS server and a harness on it: what every integration file starts with. */
export async function openHarness(): Promise<{ dns: DnsFixture; h: Harness }> {
  const dns = await startDnsServer();
  return { dns, h: createHarness(dns.server) };
}

export async function closeHarness(dns: DnsFixture | undefined, h: Harness | undefined): Promise<void> {
  await h?.close();
  await dns?.close();
}
