import { z } from "zod";
import { hostName, NAMED_PROVIDERS, type Provider } from "./providers.js";

/**
 * What one mailbox provider may take from us (decisions.md §18). `connections`: sends in flight to it
 * at once, per sending replica (a connection each at a relay that keeps one per provider).
 * `perMinute`: messages a minute, shared by every replica through Redis; 0 is no rate limit.
 */
export const ProviderLimit = z.strictObject({
  connections: z.number().int().min(1).max(1000),
  perMinute: z.number().int().min(0).max(10_000_000),
});
export type ProviderLimit = z.infer<typeof ProviderLimit>;

/**
 * The defaults, published in the README's table. "default" is every provider without an entry of its
 * own, including the recipient domains that are their own provider: unlimited per minute and more
 * connections than a replica has slots, so a deployment that sets nothing delivers as fast as before.
 * The named providers' rates are well under what each accepts from a warmed-up sender.
 */
export const DEFAULT_LIMITS: Readonly<Record<string, ProviderLimit>> = {
  google: { connections: 20, perMinute: 30_000 },
  microsoft: { connections: 10, perMinute: 6_000 },
  yahoo: { connections: 10, perMinute: 6_000 },
  apple: { connections: 10, perMinute: 3_000 },
  default: { connections: 1000, perMinute: 0 },
};

/** A key of DELIVERY_LIMITS: default, a named provider, or an MX domain as domain/providers.ts names it. */
const isProviderKey = (k: string) => k === "default" || (NAMED_PROVIDERS as readonly string[]).includes(k) || hostName(k) === k;
const KEY_MESSAGE = `must be default, ${NAMED_PROVIDERS.join(", ")} or an MX domain in lower case (e.g. mimecast.com)`;

/**
 * DELIVERY_LIMITS as written: JSON, provider → `{connections?, perMinute?}`; an entry's missing field,
 * and every provider not named, keep their default. Empty: the defaults.
 * `{"google":{"connections":10,"perMinute":3000},"default":{"perMinute":600}}`.
 */
export const DeliveryLimitsText = z
  .string()
  .default("")
  .transform((raw, ctx) => {
    if (raw.trim() === "") return {};
    try {
      return JSON.parse(raw) as unknown;
    } catch (err) {
      ctx.addIssue({ code: "custom", message: `must be JSON such as {"google":{"connections":10,"perMinute":3000}}: ${(err as Error).message}` });
      return z.NEVER;
    }
  })
  .pipe(
    // keys checked here rather than by the record's key schema, whose message would not say what a key may be
    z.record(z.string(), ProviderLimit.partial()).superRefine((given, ctx) => {
      for (const key of Object.keys(given)) if (!isProviderKey(key)) ctx.addIssue({ code: "custom", path: [key], message: KEY_MESSAGE });
    }),
  )
  .transform((given) => new DeliveryLimits(given));

/** The limits in force: every provider's, with the defaults filled in. */
export class DeliveryLimits {
  private readonly limits = new Map<string, ProviderLimit>();
  private readonly fallback: ProviderLimit;

  constructor(given: Record<string, Partial<ProviderLimit>> = {}) {
    for (const key of new Set([...Object.keys(DEFAULT_LIMITS), ...Object.keys(given)])) {
      const base = DEFAULT_LIMITS[key] ?? { ...DEFAULT_LIMITS.default!, ...given.default };
      this.limits.set(key, { ...base, ...given[key] });
    }
    this.fallback = this.limits.get("default")!;
  }

  of(provider: Provider): ProviderLimit {
    return this.limits.get(provider) ?? this.fallback;
  }

  /** Whether `provider` has an entry of its own (the defaults' or the operator's). */
  has(provider: Provider): boolean {
    return this.limits.has(provider);
  }

  /** Every provider with an entry (the defaults' and the operator's), for the start-up log. */
  entries(): Array<[string, ProviderLimit]> {
    return [...this.limits];
  }
}
