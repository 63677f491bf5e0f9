import { randomBytes } from "node:crypto";
import { expect } from "vitest";
import { type ApiResponse, verifyDomain } from "@mailroom/testkit";
import { newProject, sharedPlatform, waitFor } from "@mailroom/testkit/shared";
import { notBuilt } from "./openapi.js";

export type Project = Awaited<ReturnType<typeof newProject>>;

/** A project with one real resource of every kind the platform has today, ids by collection name. */
export interface Tenant {
  project: Project;
  /** collection (the path segment before an id: contacts, steps, …) → id */
  ids: Record<string, string>;
  /** Every id the tenant owns, for "never listed to another project" checks. */
  allIds(): string[];
  contactEmail: string;
  sender: string;
  /** Resource kinds whose service answered 503 (not built yet). */
  unavailable: string[];
}

export const unique = (tag: string) => `${tag}-${randomBytes(5).toString("hex")}`;
export const uniqueAddress = (tag = "r") => `${unique(tag)}@example.com`;

const idOf = (body: any): string | undefined => body?.id ?? body?.data?.id;

/** A sender on a domain the operator marked verified (no DNS needed). */
export async function verifiedSender(projectId: string): Promise<string> {
  const domain = `${unique("proof")}.mailroom.test`;
  await verifyDomain(sharedPlatform().env, projectId, domain);
  return `proof@${domain}`;
}

/**
 * Creates the resources; a kind whose service is not built (503) is noted and skipped, anything else
 * that fails stops the suite, so a route can never pass only because its fixture was missing.
 */
export async function seedTenant(tag: string, marker: string): Promise<Tenant> {
  const project = await newProject(tag);
  const api = project.api;
  const ids: Record<string, string> = {};
  const unavailable: string[] = [];
  const contactEmail = uniqueAddress(tag);
  const sender = await verifiedSender(project.id);

  async function create(kind: string, call: () => Promise<ApiResponse>, pick: (body: any) => string | undefined = idOf) {
    const res = await call();
    if (notBuilt(res)) {
      unavailable.push(kind);
      return undefined;
    }
    expect(res.status, `${tag}: creating ${kind}: ${JSON.stringify(res.body).slice(0, 300)}`).toBeLessThan(300);
    const id = pick(res.body);
    if (id) ids[kind] = id;
    return res.body;
  }

  await create("topics", () => api.post("/topics", { name: `topic ${marker}`, defaultSubscribed: true }));
  await create("contacts", () => api.post("/contacts", { email: contactEmail, subscribed: true, data: { note: marker } }));
  await create("forms", () =>
    api.post("/forms", { name: `form ${marker}`, fields: [{ key: "email", label: "Email", type: "email", required: true }], topicIds: [ids.topics].filter(Boolean) }),
  );
  // A CSV import of the same contact (its record is what the imports routes read); waited for, so
  // snapshots taken later see it settled.
  const imported = await create("imports", () => api.post("/contacts/imports", `email,note\n${contactEmail},${marker}\n`, { "content-type": "text/csv" }));
  if (imported) {
    await waitFor(async () => (await api.get(`/contacts/imports/${imported.id}`)).body.status !== "RUNNING", { what: `${tag}: the import to end` });
  }
  await create("events", () => api.post("/v1/track", { email: contactEmail, event: "proof_event", data: { note: marker } }), () => undefined);
  await create("templates", () =>
    api.post("/templates", { name: `t ${marker}`, subject: `Subject ${marker}`, body: `<p>${marker}</p>`, type: "MARKETING", from: sender }),
  );
  await create("domains", () => api.post("/domains", { domain: `${unique("pending")}.mailroom.test` }));
  // Checked once now, so the background re-check (which first marks each record found or not) has
  // nothing left to change while a suite compares snapshots.
  if (ids.domains) expect((await api.post(`/domains/${ids.domains}/verify`, {})).status).toBeLessThan(300);
  await create("segments", () =>
    api.post("/segments", {
      name: `s ${marker}`,
      filters: { logic: "AND", groups: [{ filters: [{ field: "subscribed", operator: "equals", value: true }] }] },
    }),
  );
  await create("campaigns", () =>
    api.post("/campaigns", { name: `c ${marker}`, subject: `Hi ${marker}`, body: `<p>${marker}</p>`, from: sender, audienceType: "ALL" }),
  );
  await create(
    "emails",
    () =>
      api.post("/v1/send", {
        to: contactEmail,
        from: sender,
        subject: `Mail ${marker}`,
        // Every link kind of decisions §6, so the token suite finds a genuine token of each.
        body: `<p>${marker} <a href="https://example.com/landing">landing</a> <a href="{{ unsubscribeUrl }}">u</a> <a href="{{ subscribeUrl }}">s</a> <a href="{{ manageUrl }}">m</a></p>`,
      }),
    (b) => b?.data?.emails?.[0]?.email,
  );

  const workflow = await create("workflows", () => api.post("/workflows", { name: `w ${marker}`, eventName: unique("proof_wf") }));
  if (workflow) {
    const trigger = (workflow.steps as Array<{ id: string; type: string }>).find((s) => s.type === "TRIGGER")!;
    const delay = await create("steps", () =>
      api.post(`/workflows/${ids.workflows}/steps`, { type: "DELAY", config: { amount: 30, unit: "days" }, after: trigger.id }),
    );
    const exit = await create("exitSteps", () => api.post(`/workflows/${ids.workflows}/steps`, { type: "EXIT", config: {} }));
    await create("transitions", () => api.post(`/workflows/${ids.workflows}/transitions`, { fromStepId: delay.id, toStepId: exit.id }));
    await create("enabled", () => api.patch(`/workflows/${ids.workflows}`, { enabled: true }), () => undefined);
    await create("executions", () => api.post(`/workflows/${ids.workflows}/executions`, { email: contactEmail }));
  }

  // Disabled, so its test delivery stays PENDING: nothing about it changes while suites compare snapshots.
  const hook = await create("webhooks", () => api.post("/webhooks", { url: `https://${unique("hooks")}.example.com/in`, events: ["email.*"], enabled: false }));
  if (hook) await create("deliveries", () => api.post(`/webhooks/${ids.webhooks}/test`));

  return { project, ids, allIds: () => Object.values(ids), contactEmail, sender, unavailable };
}
