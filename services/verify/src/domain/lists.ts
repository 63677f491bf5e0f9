/** An alias/forwarding service and the domains its addresses use. */
export interface AliasService {
  name: string;
  domains: string[];
  source: string;
}

export interface TypoData {
  /** Well-known mailbox providers: never typos themselves, and what a misspelling is corrected to. */
  providers: string[];
  /** Known misspelled domain → correct domain. Suggested even when the misspelled domain exists. */
  misspellings: Record<string, string>;
  /** Misspelled top-level label → intended one; applied only to the names of `providers`. */
  tldMisspellings: Record<string, string>;
}

/** Every list the verifier classifies with, loaded once at start-up (see infra/load-lists.ts). */
export interface Lists {
  disposable: DomainSet;
  personal: DomainSet;
  aliases: AliasIndex;
  typos: TypoData;
}

/** A set of lower-case A-label domains that can also answer "is this a subdomain of a member?". */
export class DomainSet {
  private readonly domains: Set<string>;

  constructor(domains: Iterable<string>) {
    this.domains = new Set([...domains].map((d) => d.trim().toLowerCase()).filter((d) => d !== ""));
  }

  get size(): number {
    return this.domains.size;
  }

  has(domain: string): boolean {
    return this.domains.has(domain);
  }

  /** The domain itself or the nearest listed parent (stops at two labels: a TLD is never listed). */
  match(domain: string): string | null {
    const labels = domain.split(".");
    for (let i = 0; i <= labels.length - 2; i++) {
      const candidate = labels.slice(i).join(".");
      if (this.domains.has(candidate)) return candidate;
    }
    return null;
  }
}

/** Alias services by domain, with the same subdomain rule (user.anonaddy.com is addy.io). */
export class AliasIndex {
  private readonly byDomain = new Map<string, AliasService>();
  private readonly domains: DomainSet;

  constructor(readonly services: AliasService[]) {
    for (const service of services) for (const d of service.domains) this.byDomain.set(d.toLowerCase(), service);
    this.domains = new DomainSet(this.byDomain.keys());
  }

  match(domain: string): { service: AliasService; domain: string } | null {
    const matched = this.domains.match(domain);
    const service = matched === null ? undefined : this.byDomain.get(matched);
    return matched !== null && service ? { service, domain: matched } : null;
  }
}
