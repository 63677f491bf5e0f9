import { randomUUID } from "node:crypto";
import { jetstream } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { type EventEnvelope, eventFamily, wireNames } from "@mailroom/contracts";
import { newProject, openDrain, readDeadLetters, sharedPlatform, type Drain } from "@mailroom/testkit/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildWorkflow, contactOf, executionIn, executionsWhen, track, uniqueEmail, uniqueName } from "./helpers.js";

/** Publishes envelopes all at once, as a busy stream delivers them: the trigger consumer sees them as batches. */
async function burst(envelopes: EventEnvelope[], extra: Array<{ subject: string; data: string }> = []) {
  const { env, prefix } = sharedPlatform();
  const nc = await connect({ servers: env.NATS_URL! });
  try {
    const names = wireNames(prefix);
    const js = jetstream(nc);
    await Promise.all([
      // a fresh msgID each time, so a repeated envelope reaches the consumer twice (a redelivery)
      ...envelopes.map((e) => js.publish(names.subjects.event(e.family, e.projectId), JSON.stringify(e), { msgID: randomUUID() })),
      ...extra.map((m) => js.publish(m.subject, m.data)),
    ]);
  } finally {
    await nc.close();
  }
}

const envelope = (projectId: string, contact: { id: string; email: string }, name: string, data: Record<string, unknown> = {}, occurredAt = new Date()) =>
  ({ id: randomUUID(), projectId, contactId: contact.id, email: contact.email, name, family: eventFamily(name), data, occurredAt: occurredAt.toISOString() }) as EventEnvelope;

let drain: Drain;
beforeAll(async () => {
  drain = await openDrain();
});
afterAll(() => drain?.close());

describe("trigger events in batches", () => {
  it("starts one execution per event of a burst, whatever else the burst holds", async () => {
    const p = await newProject();
    const event = uniqueName("burst");
    const other = uniqueName("other");
    const main = await buildWorkflow(p.api, event, [{ type: "EXIT", config: { reason: "ok" } }], { allowReentry: true });
    const second = await buildWorkflow(p.api, other, [{ type: "EXIT", config: { reason: "other" } }]);
    const contacts = await Promise.all(Array.from({ length: 30 }, () => contactOf(p.api, uniqueEmail("burst"))));
    const events = contacts.map((c, i) => envelope(p.id, c, event, { n: i }));
    const { prefix } = sharedPlatform();
    await burst(
      [
        ...events,
        events[0]!, // delivered twice: still one execution
        envelope(p.id, contacts[1]!, other),
        envelope(p.id, contacts[2]!, event, {}, new Date(Date.now() - 3_600_000)), // before the workflow was enabled
      ],
      [{ subject: wireNames(prefix).subjects.event("custom", p.id), data: "not an envelope" }],
    );
    const list = await executionsWhen(p.api, main.id, (l) => l.length >= 30 && l.every((e) => e.status === "EXITED"));
    expect(new Set(list.map((e) => e.contactId)).size).toBe(30);
    expect(list.map((e) => e.context.event.n).sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect((await executionIn(p.api, second.id, ["EXITED"])).contactId).toBe(contacts[1]!.id);
    // nothing more arrives: the old event, the duplicate and the poison message started nothing
    await drain.through(wireNames(prefix).consumers.workflowsTriggers);
    expect((await p.api.get(`/workflows/${main.id}/executions?limit=100`)).body.data).toHaveLength(30);
    // the poison message went to the dead-letter subject at once, with why
    const letter = (await readDeadLetters(sharedPlatform().env.NATS_URL!, prefix, wireNames(prefix).consumers.workflowsTriggers)).find(
      (l) => l.subject === wireNames(prefix).subjects.event("custom", p.id),
    );
    expect(letter).toMatchObject({ data: "not an envelope", attempts: 1, reason: expect.stringMatching(/^not an event envelope/) });
  });

  it("resumes every execution waiting for an event of the same burst", async () => {
    const p = await newProject();
    const start = uniqueName("start");
    const wake = uniqueName("wake");
    const { id } = await buildWorkflow(p.api, start, [
      { type: "WAIT_FOR_EVENT", config: { eventName: wake, timeout: 0 } },
      { type: "EXIT", config: { reason: "woke" } },
    ]);
    const contacts = await Promise.all(Array.from({ length: 10 }, () => contactOf(p.api, uniqueEmail("wait"))));
    for (const c of contacts) await track(p.api, c.email, start);
    await executionsWhen(p.api, id, (l) => l.length === 10 && l.every((e) => e.status === "WAITING"));
    await burst(contacts.map((c, i) => envelope(p.id, c, wake, { i })));
    const done = await executionsWhen(p.api, id, (l) => l.length === 10 && l.every((e) => e.status === "EXITED"));
    for (const e of done) expect(e.context.event.i).toBe(contacts.findIndex((c) => c.id === e.contactId));
  });

  it("runs a step with its config as edited while the workflow is enabled", async () => {
    const p = await newProject();
    const event = uniqueName("edit");
    const { id, stepIds } = await buildWorkflow(p.api, event, [{ type: "UPDATE_CONTACT", config: { data: { version: 1 } } }], { allowReentry: true });
    const first = uniqueEmail("v1");
    await track(p.api, first, event);
    await executionIn(p.api, id, ["COMPLETED"]);
    const edited = await p.api.patch(`/workflows/${id}/steps/${stepIds[0]}`, { config: { data: { version: 2 } } });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    const second = uniqueEmail("v2");
    await track(p.api, second, event);
    await executionsWhen(p.api, id, (l) => l.length === 2 && l.every((e) => e.status === "COMPLETED"));
    const dataOf = async (email: string) => (await p.api.get(`/contacts?search=${encodeURIComponent(email)}`)).body.data[0].data;
    expect(await dataOf(first)).toMatchObject({ version: 1 });
    expect(await dataOf(second)).toMatchObject({ version: 2 });
  });
});
