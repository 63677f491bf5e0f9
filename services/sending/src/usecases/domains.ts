import { AppError, type Domain } from "@mailroom/contracts";
import { newId, Periodic, type Q } from "@mailroom/kit";
import { domainsRepo } from "../db/domains-repo.js";
import { domainRecords, evaluateRecords, generateDkimKey, newSelector } from "../domain/domains.js";
import type { Ctx } from "./context.js";

export async function createDomain(ctx: Ctx, projectId: string, domain: string, verified = false): Promise<Domain | null> {
  const key = await generateDkimKey();
  const selector = newSelector();
  return domainsRepo.create(ctx.sql, {
    id: newId(),
    projectId,
    domain,
    selector,
    privateKey: key.privateKey,
    records: domainRecords(domain, selector, key.publicKey, ctx.returnPathDomain),
    verified,
  });
}

/** Looks every record up now (in parallel) and stores what was found. */
export async function checkDomain(ctx: Ctx, d: Domain, tx: Q = ctx.sql): Promise<Domain> {
  const names = [...new Set(d.records.map((r) => r.name))];
  const answers = await Promise.all(names.map(async (n) => [n, await ctx.txt(n)] as const));
  const { records, dkimOk } = evaluateRecords(d.records, new Map(answers));
  return (await domainsRepo.saveCheck(tx, d.id, records, dkimOk)) ?? d;
}

export async function verifyDomain(ctx: Ctx, projectId: string, id: string): Promise<Domain> {
  const d = await domainsRepo.get(ctx.sql, projectId, id);
  if (!d) throw AppError.notFound("Domain");
  return checkDomain(ctx, d);
}

/** Admin: the domain verified without DNS (added first when the project does not have it). */
export async function forceVerifyDomain(ctx: Ctx, projectId: string, domain: string): Promise<Domain> {
  const existing = (await domainsRepo.byName(ctx.sql, projectId, domain)) ?? (await createDomain(ctx, projectId, domain, true));
  return domainsRepo.forceVerified(ctx.sql, (existing ?? (await domainsRepo.byName(ctx.sql, projectId, domain)))!.id);
}

/** False when the project has no such domain. This replica's VERIFIED answers go with it at once. */
export async function deleteDomain(ctx: Ctx, projectId: string, id: string): Promise<boolean> {
  const deleted = await domainsRepo.delete(ctx.sql, projectId, id);
  if (deleted) ctx.verifiedDomains.forget();
  return deleted;
}

/**
 * Background re-check of pending domains, every `intervalMs` on every replica; SKIP LOCKED in the
 * repository makes replicas take different domains.
 */
export function domainRechecks(ctx: Ctx, intervalMs: number): Periodic {
  return new Periodic({
    name: "domain re-check",
    everyMs: Math.min(intervalMs, 60_000),
    log: ctx.log,
    run: () => domainsRepo.recheckPending(ctx.sql, intervalMs, 20, async (d, tx) => void (await checkDomain(ctx, d, tx))),
  });
}
