export const RECORD_TYPES = ["NS", "A", "AAAA", "MX"] as const;
export type RecordType = (typeof RECORD_TYPES)[number];

/** NOERROR with no records is "no data": the name exists but has none of that type. */
export type LookupStatus = "NOERROR" | "NXDOMAIN" | "SERVFAIL" | "TIMEOUT" | "ERROR";

export interface DnsRecord {
  /** NS and MX: a host name ("" for the null MX of RFC 7505); A and AAAA: an address. */
  value: string;
  priority?: number;
}

export interface DnsAnswer {
  status: LookupStatus;
  records: DnsRecord[];
  /** Seconds this answer may be reused: the smallest record TTL, or for a negative answer the SOA
   * TTL of RFC 2308 §5; null when the answer carried none. */
  ttl: number | null;
  /** For TIMEOUT and ERROR (and other rcodes): what happened, for the reasons. */
  detail?: string;
}

/** One question to one DNS server; never throws (failures are answers with a status). */
export interface DnsLookup {
  lookup(name: string, type: RecordType): Promise<DnsAnswer>;
}

export type DomainDns = Record<RecordType, DnsAnswer>;

/** Cache of DomainDns by A-label domain. A failing cache must behave as a miss, never throw. */
export interface DomainCache {
  get(domain: string): Promise<DomainDns | null>;
  set(domain: string, value: DomainDns, ttlSeconds: number): Promise<void>;
}

/** Bounds on cache lifetimes: a TTL of 0 would make the cache useless, a week-long one stale,
 * and negative answers (a domain being set up right now) deserve a shorter memory. */
export const CACHE_TTL = { min: 60, max: 86_400, negativeMax: 3_600, unknown: 300 } as const;

const FAILED: ReadonlySet<LookupStatus> = new Set(["SERVFAIL", "TIMEOUT", "ERROR"]);

export const isFailure = (answer: DnsAnswer): boolean => FAILED.has(answer.status);

/**
 * All four lookups of a domain, from the cache when possible, otherwise in parallel (each bounded
 * by the DnsLookup's own timeout). A result with a failed lookup is not cached: the next request
 * should try again rather than repeat a transient SERVFAIL or timeout.
 */
export async function lookupDomain(domain: string, dns: DnsLookup, cache: DomainCache): Promise<DomainDns> {
  const cached = await cache.get(domain);
  if (cached) return cached;

  const answers = await Promise.all(RECORD_TYPES.map((type) => dns.lookup(domain, type)));
  const result = Object.fromEntries(RECORD_TYPES.map((type, i) => [type, answers[i]])) as DomainDns;
  if (!answers.some(isFailure)) await cache.set(domain, result, cacheTtl(answers));
  return result;
}

export function cacheTtl(answers: DnsAnswer[]): number {
  const ttls = answers.map((answer) => {
    const ttl = answer.ttl ?? CACHE_TTL.unknown;
    return answer.records.length === 0 ? Math.min(ttl, CACHE_TTL.negativeMax) : ttl;
  });
  return Math.max(CACHE_TTL.min, Math.min(CACHE_TTL.max, ...ttls));
}
