import { AppError, type Domain } from "@mailroom/contracts";
import { newId, Periodic, type Sql } from "@mailroom/kit";
import { domainRecords, evaluateRecords, generateDkimKey, newSelector } from "../domain/domains.js";
import type { Ctx } from "./context.js";

export async function createDomain(ctx: Ctx, projectId: string, domain: string, verified = false): Promise<Domain | null> {
  const key = await generateDkimKey();
  const selector = newSelector();
  return ctx.domains.create({
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
export async function checkDomain(ctx: Ctx, d: Domain, tx?: Sql): Promise<Domain> {
  const names = [...new Set(d.records.map((r) => r.name))];
  const answers = await Promise.all(names.map(async (n) => [n, await ctx.txt(n)] as const));
  const { records, dkimOk } = evaluateRecords(d.records, new Map(answers));
  return (await ctx.domains.saveCheck(d.id, records, dkimOk, tx)) ?? d;
}

export async function verifyDomain(ctx: Ctx, projectId: string, id: string): Promise<Domain> {
  const d = await ctx.domains.get(projectId, id);
  if (!d) throw AppError.notFound("Domain");
  return checkDomain(ctx, d);
}

/** Admin: the domain verified without DNS (added first when the project does not have it). */
export async function forceVerifyDomain(ctx: Ctx, projectId: string, domain: string): Promise<Domain> {
  const existing = (await ctx.domains.byName(projectId, domain)) ?? (await createDomain(ctx, projectId, domain, true));
  return ctx.domains.forceVerified((existing ?? (await ctx.domains.byName(projectId, domain)))!.id);
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
    run: () => ctx.domains.recheckPending(intervalMs, 20, async (d, tx) => void (await checkDomain(ctx, d, tx))),
  });
}
