import { AppError, type Domain } from "@mailroom/contracts";
import { isId, type Logger, newId, Periodic, type Q, type Sql } from "@mailroom/kit";
import { domainsRepo } from "../db/domains-repo.js";
import { domainOf, domainRecords, evaluateRecords, generateDkimKey, newSelector } from "../domain/domains.js";
import type { TxtLookup } from "../infra/dns.js";
import type { VerifiedDomains } from "./lookups.js";

/** Sending domains (decisions.md §5): their DKIM keys and DNS records, checked on demand and in the background. */
export class Domains {
  constructor(
    private readonly sql: Sql,
    private readonly txt: TxtLookup,
    private readonly verified: VerifiedDomains,
    private readonly returnPathDomain: string,
    private readonly log: Logger,
  ) {}

  /** Null when the project has the domain already. */
  async create(projectId: string, domain: string, verified = false, warmup = false): Promise<Domain | null> {
    const key = await generateDkimKey();
    const selector = newSelector();
    return domainsRepo.create(this.sql, {
      id: newId(),
      projectId,
      domain,
      selector,
      privateKey: key.privateKey,
      records: domainRecords(domain, selector, key.publicKey, this.returnPathDomain),
      verified,
      warmup,
    });
  }

  /** PATCH /domains/{id}: warm-up on or off (decisions.md §18). */
  async update(projectId: string, id: string, change: { warmup: boolean }): Promise<Domain> {
    const d = isId(id) ? await domainsRepo.setWarmup(this.sql, projectId, id, change.warmup) : null;
    if (!d) throw AppError.notFound("Domain");
    return d;
  }

  list(projectId: string): Promise<Domain[]> {
    return domainsRepo.list(this.sql, projectId);
  }

  get(projectId: string, id: string): Promise<Domain | null> {
    return isId(id) ? domainsRepo.get(this.sql, projectId, id) : Promise.resolve(null);
  }

  /** Looks every record up now (in parallel) and stores what was found. */
  private async check(d: Domain, tx: Q = this.sql): Promise<Domain> {
    const names = [...new Set(d.records.map((r) => r.name))];
    const answers = await Promise.all(names.map(async (n) => [n, await this.txt(n)] as const));
    const { records, dkimOk } = evaluateRecords(d.records, new Map(answers));
    return (await domainsRepo.saveCheck(tx, d.id, records, dkimOk)) ?? d;
  }

  async verify(projectId: string, id: string): Promise<Domain> {
    const d = await this.get(projectId, id);
    if (!d) throw AppError.notFound("Domain");
    return this.check(d);
  }

  /** Admin: the domain verified without DNS (added first when the project does not have it). */
  async forceVerify(projectId: string, domain: string): Promise<Domain> {
    const existing = (await domainsRepo.byName(this.sql, projectId, domain)) ?? (await this.create(projectId, domain, true));
    return domainsRepo.forceVerified(this.sql, (existing ?? (await domainsRepo.byName(this.sql, projectId, domain)))!.id);
  }

  /** False when the project has no such domain. This replica's VERIFIED answers go with it at once. */
  async delete(projectId: string, id: string): Promise<boolean> {
    if (!isId(id)) return false;
    const deleted = await domainsRepo.delete(this.sql, projectId, id);
    if (deleted) this.verified.forget();
    return deleted;
  }

  /** Whether the domain of `email` is verified in the project (sending.domainVerified). */
  senderVerified(projectId: string, email: string): Promise<boolean> {
    return this.verified.isVerified(projectId, domainOf(email));
  }

  /**
   * Background re-check of pending domains, every `intervalMs` on every replica; SKIP LOCKED in the
   * repository makes replicas take different domains.
   */
  rechecks(intervalMs: number): Periodic {
    return new Periodic({
      name: "domain re-check",
      everyMs: Math.min(intervalMs, 60_000),
      log: this.log,
      run: () => domainsRepo.recheckPending(this.sql, intervalMs, 20, async (d, tx) => void (await this.check(d, tx))),
    });
  }
}
