import { BoundedMap } from "@mailroom/kit";
import { hostName, knownProvider, ownProvider, providerOf, recipientDomain, type Provider } from "../domain/providers.js";
import type { MxLookup } from "../infra/dns.js";

/** Recipient domains remembered per replica: a campaign to a million addresses has far fewer domains. */
const CACHE_SIZE = 50_000;
/** How long an answer is trusted: MX records of mailbox providers change rarely. */
const ANSWER_TTL_MS = 60 * 60_000;
/** A failed lookup is asked again this soon; meanwhile the domain is a provider of its own. */
const FAILURE_TTL_MS = 60_000;

interface Entry {
  provider: Provider;
  expires: number;
  refreshing?: boolean;
}

/**
 * The mailbox provider of each recipient, from the MX records of its domain, cached per replica
 * (bounded in size and time). Only a domain's first lookup is waited for, and once per job for all of
 * its emails' domains together; an expired entry keeps answering while it is looked up again in the
 * background, and a failed first lookup leaves the domain its own provider (a failed refresh keeps
 * the answer it had). So DNS never holds delivery
 * back beyond one lookup (DNS_TIMEOUT_MS) the first time a domain is seen.
 */
export class ProviderDirectory {
  private readonly cache = new BoundedMap<string, Entry>(CACHE_SIZE);
  private readonly asking = new Map<string, Promise<Provider>>();

  constructor(
    private readonly lookup: MxLookup,
    private readonly now: () => number = Date.now,
  ) {}

  /** The provider of each address (lower-cased address → provider), looking up each new domain once. */
  async of(addresses: readonly string[]): Promise<Map<string, Provider>> {
    const domains = new Set(addresses.map(recipientDomain));
    const found = new Map<string, Provider>();
    await Promise.all([...domains].map(async (d) => found.set(d, await this.ofDomain(d))));
    return new Map(addresses.map((a) => [a.toLowerCase(), found.get(recipientDomain(a))!]));
  }

  private ofDomain(domain: string): Provider | Promise<Provider> {
    const known = knownProvider(domain);
    if (known) return known;
    // an address literal or a name no resolver would take is never looked up
    if (!hostName(domain)) return ownProvider(domain);
    const hit = this.cache.get(domain);
    if (hit) {
      if (hit.expires <= this.now() && !hit.refreshing) {
        hit.refreshing = true;
        this.ask(domain).catch(() => {});
      }
      return hit.provider;
    }
    return this.ask(domain);
  }

  private ask(domain: string): Promise<Provider> {
    let asking = this.asking.get(domain);
    if (asking) return asking;
    asking = this.lookup(domain)
      .catch(() => null)
      .then((mx) => {
        // a failed refresh keeps the answer it was refreshing: a DNS blip must not move a domain out of its provider's limits
        const provider = mx ? providerOf(domain, mx) : (this.cache.get(domain)?.provider ?? ownProvider(domain));
        this.cache.set(domain, { provider, expires: this.now() + (mx ? ANSWER_TTL_MS : FAILURE_TTL_MS) });
        return provider;
      })
      .finally(() => this.asking.delete(domain));
    this.asking.set(domain, asking);
    return asking;
  }
}
