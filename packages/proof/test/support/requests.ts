import fc from "fast-check";
import { waitFor, type ApiClient } from "@mailroom/testkit";
import { collectionsOf, fillPath, label, notBuilt, type ApiDocument, type Operation } from "./openapi.js";
import { validArb } from "./arbitraries.js";
import type { Tenant } from "./tenant.js";

/** Stands for an id the owner does not have (its service is not built). */
const NO_ID = "00000000-0000-7000-8000-000000000000";

/**
 * A valid body for `op` aimed at `owner`'s resources. Valid matters: a 400 from the schema would hide
 * whether the ownership check holds. Bodies whose validity the document cannot express are listed;
 * any other route gets a seeded sample of its schema.
 */
export function validBody(api: ApiDocument, op: Operation, owner: Tenant): unknown {
  const known: Record<string, unknown> = {
    "contacts.update": { subscribed: false, data: { hijacked: true } },
    "campaigns.test": { email: "probe@example.com" },
    "campaigns.send": {},
    "workflows.steps.create": { type: "EXIT", config: {} },
    "workflows.steps.update": { name: "hijacked" },
    "workflows.transitions.create": { fromStepId: owner.ids.steps ?? NO_ID, toStepId: owner.ids.exitSteps ?? NO_ID.replace(/0$/, "1") },
    "workflows.executions.start": { email: owner.contactEmail },
    // a domain's one writable field: a valid body, so only the id can refuse it
    "sending.domains.update": { warmup: true },
  };
  if (op.operationId in known) return known[op.operationId];
  if (!op.body) return op.method === "GET" || op.method === "DELETE" ? undefined : {};
  if (/\.update$/.test(op.operationId)) return { name: "hijacked" };
  return fc.sample(validArb(op.body, { resolve: api.resolve, ids: owner.allIds(), marker: "x" }), { seed: 11, numRuns: 1 })[0];
}

/** The path of `op` on `owner`'s resources, and the params the owner has no resource for. */
export function pathOn(op: Operation, owner: Tenant): { path: string; missing: string[] } {
  const collections = collectionsOf(op.path);
  const missing: string[] = [];
  const values: Record<string, string> = {};
  for (const p of op.pathParams) {
    const id = owner.ids[collections[p] ?? ""];
    if (!id) missing.push(`${p} (${collections[p]})`);
    values[p] = id ?? NO_ID;
  }
  return { path: fillPath(op.path, values), missing };
}

/** What `owner` can read of itself through every GET route whose ids it has. */
export async function snapshot(api: ApiDocument, owner: Tenant, client: ApiClient = owner.project.api) {
  const out: Record<string, { status: number; body: unknown }> = {};
  for (const op of api.operations) {
    // a route that needs a query (/stats) answers an Error, whose time differs on each read
    if (op.method !== "GET" || !op.secured || op.raw || op.queryParams.some((q) => q.required)) continue;
    const { path, missing } = pathOn(op, owner);
    if (missing.length) continue;
    const res = await client.get(path);
    if (!notBuilt(res)) out[label(op)] = { status: res.status, body: res.body };
  }
  return out;
}

/**
 * A snapshot taken once the background work of the owner's fixtures is done. The one piece of it is
 * the delivery of the email seedTenant sends: its status leaves QUEUED when the delivery is recorded
 * (SENT and, with no DSNs, DELIVERED in one transaction), and its timeline shows that status once
 * the email events are recorded. The domain is checked at once and the
 * execution waits 30 days. A fixture that sets off other background work adds its signal here.
 */
export async function settledSnapshot(api: ApiDocument, owner: Tenant, timeoutMs = 20_000) {
  const email = owner.ids.emails;
  if (email) {
    let status: string | undefined;
    await waitFor(async () => (status = (await owner.project.api.get(`/emails/${email}`)).body?.status) !== "QUEUED", {
      timeoutMs,
      what: `the owner's email ${email} to be delivered`,
    });
    // Its timeline follows from the email events, recorded by sending's consumer a moment later.
    await waitFor(async () => ((await owner.project.api.get(`/emails/${email}/events`)).body?.data ?? []).some((e: { type: string }) => e.type === status), {
      timeoutMs,
      what: `the owner's email ${email} to show ${status} in its timeline`,
    });
  }
  return snapshot(api, owner);
}
