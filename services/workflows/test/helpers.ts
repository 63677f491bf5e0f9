import { randomBytes, randomUUID } from "node:crypto";
import { jetstream } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { type EventEnvelope, eventFamily, wireNames } from "@mailroom/contracts";
import { addZones, type ApiClient, sinkMessages, waitFor } from "@mailroom/testkit";
import { expect } from "vitest";

export const uniqueEmail = (tag = "c") => `${tag}-${randomUUID().slice(0, 8)}@example.com`;
export const uniqueName = (tag = "e") => `${tag}-${randomBytes(4).toString("hex")}`;

export function expectError(res: { status: number; body: any }, status: number, error: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toMatchObject({ code: status, error, message: expect.any(String), time: expect.any(Number) });
}

export interface StepSpec {
  type: string;
  config?: unknown;
  name?: string;
  /** Index (in this list) of the step to connect from; the previous one by default, -1 the TRIGGER, null none. */
  after?: number | null;
}

/**
 * Creates an EVENT workflow with `steps` (each connected after the previous unless told otherwise)
 * and enables it. Returns the workflow and its step ids in the order given.
 */
export async function buildWorkflow(api: ApiClient, eventName: string, steps: StepSpec[], opts: { allowReentry?: boolean; enable?: boolean } = {}) {
  const created = await api.post("/workflows", { name: `wf ${eventName}`, eventName, allowReentry: opts.allowReentry ?? false });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const triggerId = created.body.steps[0].id as string;
  const ids: string[] = [];
  for (const [i, s] of steps.entries()) {
    const afterIndex = s.after === undefined ? i - 1 : s.after;
    const after = afterIndex === null ? undefined : afterIndex === -1 ? triggerId : ids[afterIndex];
    const res = await api.post(`/workflows/${created.body.id}/steps`, { type: s.type, config: s.config ?? {}, name: s.name, after });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    ids.push(res.body.id);
  }
  if (opts.enable !== false) {
    const enabled = await api.patch(`/workflows/${created.body.id}`, { enabled: true });
    expect(enabled.status, JSON.stringify(enabled.body)).toBe(200);
  }
  return { id: created.body.id as string, triggerId, stepIds: ids };
}

/** The workflow's executions, once `pred` holds for them. */
export async function executionsWhen(api: ApiClient, workflowId: string, pred: (list: any[]) => boolean, timeoutMs = 15_000) {
  return waitFor(
    async () => {
      const res = await api.get(`/workflows/${workflowId}/executions?limit=100`);
      return res.status === 200 && pred(res.body.data) ? (res.body.data as any[]) : null;
    },
    { timeoutMs, intervalMs: 100, what: `executions of ${workflowId}` },
  );
}

/** The one execution of the workflow, once it has one of `statuses`; returned with its step runs. */
export async function executionIn(api: ApiClient, workflowId: string, statuses: string[], timeoutMs = 15_000) {
  const [e] = await executionsWhen(api, workflowId, (l) => l.length > 0 && statuses.includes(l[0].status), timeoutMs);
  const detail = await api.get(`/workflows/${workflowId}/executions/${e.id}`);
  return detail.body;
}

export const track = (api: ApiClient, email: string, event: string, data?: Record<string, unknown>) =>
  api.post("/v1/track", { email, event, ...(data ? { data } : {}) }).then((r) => {
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body;
  });

export async function contactOf(api: ApiClient, email: string) {
  const res = await api.post("/contacts", { email });
  expect([200, 201]).toContain(res.status);
  return res.body as { id: string; email: string };
}

/**
 * Publishes an event envelope onto the EVENTS stream as a service would (system events the test
 * cannot cause, events that occurred in the past); `occurredAt` is now unless given.
 */
export async function publishEvent(natsUrl: string, prefix: string, e: Omit<EventEnvelope, "id" | "family" | "occurredAt"> & { occurredAt?: string }) {
  const nc = await connect({ servers: natsUrl });
  try {
    const names = wireNames(prefix);
    const envelope: EventEnvelope = { ...e, id: randomUUID(), family: eventFamily(e.name), occurredAt: e.occurredAt ?? new Date().toISOString() };
    await jetstream(nc).publish(names.subjects.event(envelope.family, e.projectId), JSON.stringify(envelope), { msgID: envelope.id });
  } finally {
    await nc.close();
  }
}

/** A template whose sender domain is verified on the test DNS server. */
export async function verifiedTemplate(api: ApiClient, zonesFile: string, type: "TRANSACTIONAL" | "MARKETING" = "TRANSACTIONAL") {
  const domain = `wf-${randomBytes(5).toString("hex")}.mailroom.test`;
  const created = await api.post("/domains", { domain });
  expect(created.status).toBe(201);
  const dkim = created.body.records.find((r: { purpose: string }) => r.purpose === "dkim");
  addZones(zonesFile, { [dkim.name]: { TXT: [dkim.value] } });
  expect((await api.post(`/domains/${created.body.id}/verify`)).body.status).toBe("VERIFIED");
  const t = await api.post("/templates", {
    name: "welcome",
    subject: "Hello {{ plan ?? \"friend\" }}",
    body: "<p>Hi {{ contact.email }}, plan {{ plan }}, from {{ event.source }}</p>",
    type,
    from: `team@${domain}`,
  });
  expect(t.status, JSON.stringify(t.body)).toBe(201);
  return t.body as { id: string };
}

export async function mailTo(mailboxUrl: string, to: string, timeoutMs = 15_000) {
  return waitFor(
    async () => {
      const all = await sinkMessages(mailboxUrl, [to]);
      const mine = all.filter((m) => (m.to as string[]).includes(to));
      return mine.length ? mine : null;
    },
    { timeoutMs, intervalMs: 100, what: `mail to ${to}` },
  );
}
