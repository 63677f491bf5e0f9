import type { DnsRecord, Domain } from "@mailroom/contracts";
import { columns, iso, isoOrNull, json, type RowOf, traced, type Q, type Row, type Sql } from "@mailroom/kit";
import type { domains } from "./schema.js";

const COLUMNS = columns<Row<typeof domains>>()(["id", "domain", "status", "records", "created_at", "verified_at", "warmup"]);
type DomainRow = RowOf<typeof COLUMNS>;
const toDomain = (r: DomainRow): Domain => ({
  id: r.id,
  domain: r.domain,
  status: r.status,
  records: r.records,
  createdAt: iso(r.created_at),
  verifiedAt: isoOrNull(r.verified_at),
  warmup: r.warmup,
});

export interface NewDomain {
  id: string;
  projectId: string;
  domain: string;
  selector: string;
  privateKey: string;
  records: DnsRecord[];
  verified: boolean;
  warmup: boolean;
}

/** A project's sending domain, as the VERIFIED check asks for it. */
export interface DomainOfProject {
  projectId: string;
  domain: string;
}

export const domainsRepo = traced("DomainsRepo", {
  /** Null when the project already has this domain. */
  async create(q: Q, d: NewDomain): Promise<Domain | null> {
    const [row] = await q<DomainRow[]>`
      insert into domains (id, project_id, domain, status, selector, private_key, records, verified_at, warmup)
      values (${d.id}, ${d.projectId}, ${d.domain}, ${d.verified ? "VERIFIED" : "PENDING"}, ${d.selector}, ${d.privateKey},
        ${json(d.records)}::jsonb, case when ${d.verified} then now() end, ${d.warmup})
      on conflict (project_id, domain) do nothing returning ${q.unsafe(COLUMNS.sql)}`;
    return row ? toDomain(row) : null;
  },

  async list(q: Q, projectId: string): Promise<Domain[]> {
    const rows = await q<DomainRow[]>`select ${q.unsafe(COLUMNS.sql)} from domains where project_id = ${projectId} order by domain`;
    return rows.map(toDomain);
  },

  async get(q: Q, projectId: string, id: string): Promise<Domain | null> {
    const [row] = await q<DomainRow[]>`select ${q.unsafe(COLUMNS.sql)} from domains where project_id = ${projectId} and id = ${id}`;
    return row ? toDomain(row) : null;
  },

  async byName(q: Q, projectId: string, domain: string): Promise<Domain | null> {
    const [row] = await q<DomainRow[]>`select ${q.unsafe(COLUMNS.sql)} from domains where project_id = ${projectId} and domain = ${domain}`;
    return row ? toDomain(row) : null;
  },

  /** Turns warm-up on or off; null when the project has no such domain. A cap already set is kept for a later turn. */
  async setWarmup(q: Q, projectId: string, id: string, warmup: boolean): Promise<Domain | null> {
    const [row] = await q<DomainRow[]>`
      update domains set warmup = ${warmup} where project_id = ${projectId} and id = ${id} returning ${q.unsafe(COLUMNS.sql)}`;
    return row ? toDomain(row) : null;
  },

  async delete(q: Q, projectId: string, id: string): Promise<boolean> {
    return (await q`delete from domains where project_id = ${projectId} and id = ${id} returning id`).length === 1;
  },

  /** Stores a lookup's findings; VERIFIED is never taken back (a DNS hiccup must not stop mail). */
  async saveCheck(q: Q, id: string, records: DnsRecord[], verified: boolean): Promise<Domain | null> {
    const [row] = await q<DomainRow[]>`
      update domains set records = ${json(records)}::jsonb, checked_at = now(),
        status = case when ${verified} then 'VERIFIED' else status end,
        verified_at = case when ${verified} and verified_at is null then now() else verified_at end
      where id = ${id} returning ${q.unsafe(COLUMNS.sql)}`;
    return row ? toDomain(row) : null;
  },

  async forceVerified(q: Q, id: string): Promise<Domain> {
    const [row] = await q<DomainRow[]>`
      update domains set status = 'VERIFIED', verified_at = coalesce(verified_at, now()) where id = ${id} returning ${q.unsafe(COLUMNS.sql)}`;
    return toDomain(row!);
  },

  /** For each pair asked, whether that project has that domain VERIFIED: one query for them all. */
  async verifiedMany(q: Q, asked: DomainOfProject[]): Promise<boolean[]> {
    const rows = await q<Pick<Row<typeof domains>, "project_id" | "domain">[]>`
      select project_id, domain from domains
      where status = 'VERIFIED' and (project_id, domain) in (
        select * from unnest(${asked.map((a) => a.projectId)}::uuid[], ${asked.map((a) => a.domain)}::text[]))`;
    const found = new Set(rows.map((r) => `${r.project_id} ${r.domain}`));
    return asked.map((a) => found.has(`${a.projectId} ${a.domain}`));
  },

  /** Projects that have the domain verified (two projects may share a domain): where inbound mail goes. */
  async projectsWithVerified(q: Q, domain: string): Promise<string[]> {
    const rows = await q<Pick<Row<typeof domains>, "project_id">[]>`
      select project_id from domains where domain = ${domain.toLowerCase()} and status = 'VERIFIED'`;
    return rows.map((r) => r.project_id);
  },

  /**
   * Runs `check` on up to `limit` pending domains not looked at for `staleMs`, each row locked with
   * SKIP LOCKED so replicas share the work instead of looking the same domain up twice.
   */
  async recheckPending(sql: Sql, staleMs: number, limit: number, check: (d: Domain, tx: Q) => Promise<void>): Promise<number> {
    return sql.begin(async (tx) => {
      const rows = await tx<DomainRow[]>`
        select ${tx.unsafe(COLUMNS.sql)} from domains
        where status = 'PENDING' and (checked_at is null or checked_at < now() - ${staleMs} * interval '1 millisecond')
        order by checked_at nulls first limit ${limit} for update skip locked`;
      for (const r of rows) await check(toDomain(r), tx);
      return rows.length;
    }) as Promise<number>;
  },
});
