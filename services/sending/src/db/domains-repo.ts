import type { DnsRecord, Domain } from "@mailroom/contracts";
import { Batcher, ExpiringMap, TURN_LOOKUPS, type Sql } from "@mailroom/kit";
import { iso, isoNotNull } from "./values.js";

interface Row {
  id: string;
  domain: string;
  status: Domain["status"];
  records: DnsRecord[];
  createdAt: Date | string;
  verifiedAt: Date | string | null;
}
const COLUMNS = `id, domain, status, records, created_at as "createdAt", verified_at as "verifiedAt"`;
const toDomain = (r: Row): Domain => ({ ...r, createdAt: isoNotNull(r.createdAt), verifiedAt: iso(r.verifiedAt) });

export interface NewDomain {
  id: string;
  projectId: string;
  domain: string;
  selector: string;
  privateKey: string;
  records: DnsRecord[];
  verified: boolean;
}

export class DomainsRepo {
  /** The checks of one event-loop turn (the /v1/sends of one coalesced message) share one query. */
  private readonly verified = new Batcher((asked: Array<{ projectId: string; domain: string }>) => this.verifiedMany(asked), TURN_LOOKUPS);
  /**
   * "project domain" pairs answered VERIFIED, reused for a second: a steady sender's check then costs
   * no query. A domain deleted through another replica may pass this check for up to that second, and
   * its mail is then failed by the delivery worker, which reads the domain again before it signs.
   */
  private readonly recentlyVerified = new ExpiringMap<string, true>(10_000, 1000);

  constructor(private readonly sql: Sql) {}

  /** Null when the project already has this domain. */
  async create(d: NewDomain): Promise<Domain | null> {
    const [row] = await this.sql<Row[]>`
      insert into domains (id, project_id, domain, status, selector, private_key, records, verified_at)
      values (${d.id}, ${d.projectId}, ${d.domain}, ${d.verified ? "VERIFIED" : "PENDING"}, ${d.selector}, ${d.privateKey},
        ${JSON.stringify(d.records)}::text::jsonb, case when ${d.verified} then now() end)
      on conflict (project_id, domain) do nothing returning ${this.sql.unsafe(COLUMNS)}`;
    return row ? toDomain(row) : null;
  }

  async list(projectId: string): Promise<Domain[]> {
    const rows = await this.sql<Row[]>`select ${this.sql.unsafe(COLUMNS)} from domains where project_id = ${projectId} order by domain`;
    return rows.map(toDomain);
  }

  async get(projectId: string, id: string): Promise<Domain | null> {
    const [row] = await this.sql<Row[]>`select ${this.sql.unsafe(COLUMNS)} from domains where project_id = ${projectId} and id = ${id}`;
    return row ? toDomain(row) : null;
  }

  async byName(projectId: string, domain: string): Promise<Domain | null> {
    const [row] = await this.sql<Row[]>`select ${this.sql.unsafe(COLUMNS)} from domains where project_id = ${projectId} and domain = ${domain}`;
    return row ? toDomain(row) : null;
  }

  async delete(projectId: string, id: string): Promise<boolean> {
    const deleted = (await this.sql`delete from domains where project_id = ${projectId} and id = ${id} returning id`).length === 1;
    // the domain's name is not at hand; deletions are rare, so this replica forgets every answer
    if (deleted) this.recentlyVerified.clear();
    return deleted;
  }

  /** Stores a lookup's findings; VERIFIED is never taken back (a DNS hiccup must not stop mail). */
  async saveCheck(id: string, records: DnsRecord[], verified: boolean, tx: Sql = this.sql): Promise<Domain | null> {
    const [row] = await tx<Row[]>`
      update domains set records = ${JSON.stringify(records)}::text::jsonb, checked_at = now(),
        status = case when ${verified} then 'VERIFIED' else status end,
        verified_at = case when ${verified} and verified_at is null then now() else verified_at end
      where id = ${id} returning ${tx.unsafe(COLUMNS)}`;
    return row ? toDomain(row) : null;
  }

  async forceVerified(id: string): Promise<Domain> {
    const [row] = await this.sql<Row[]>`
      update domains set status = 'VERIFIED', verified_at = coalesce(verified_at, now()) where id = ${id} returning ${this.sql.unsafe(COLUMNS)}`;
    return toDomain(row!);
  }

  async isVerified(projectId: string, domain: string): Promise<boolean> {
    const key = `${projectId} ${domain}`;
    if (this.recentlyVerified.get(key)) return true;
    const verified = await this.verified.add({ projectId, domain });
    if (verified) this.recentlyVerified.set(key, true);
    return verified;
  }

  private async verifiedMany(asked: Array<{ projectId: string; domain: string }>): Promise<boolean[]> {
    const rows = await this.sql<{ projectId: string; domain: string }[]>`
      select project_id as "projectId", domain from domains
      where status = 'VERIFIED' and (project_id, domain) in (
        select * from unnest(${asked.map((a) => a.projectId)}::uuid[], ${asked.map((a) => a.domain)}::text[]))`;
    const found = new Set(rows.map((r) => `${r.projectId} ${r.domain}`));
    return asked.map((a) => found.has(`${a.projectId} ${a.domain}`));
  }

  /** Projects that have the domain verified (two projects may share a domain): where inbound mail goes. */
  async projectsWithVerified(domain: string): Promise<string[]> {
    const rows = await this.sql<{ projectId: string }[]>`
      select project_id as "projectId" from domains where domain = ${domain.toLowerCase()} and status = 'VERIFIED'`;
    return rows.map((r) => r.projectId);
  }

  /**
   * Runs `check` on up to `limit` pending domains not looked at for `staleMs`, each row locked with
   * SKIP LOCKED so replicas share the work instead of looking the same domain up twice.
   */
  async recheckPending(staleMs: number, limit: number, check: (d: Domain, tx: Sql) => Promise<void>): Promise<number> {
    return this.sql.begin(async (tx) => {
      const rows = await tx<Row[]>`
        select ${tx.unsafe(COLUMNS)} from domains
        where status = 'PENDING' and (checked_at is null or checked_at < now() - ${staleMs} * interval '1 millisecond')
        order by checked_at nulls first limit ${limit} for update skip locked`;
      for (const r of rows) await check(toDomain(r), tx as unknown as Sql);
      return rows.length;
    }) as Promise<number>;
  }
}
