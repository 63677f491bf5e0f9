import { wireNames } from "@mailroom/contracts";
import { type Drain, newProject, openDrain, sharedPlatform } from "@mailroom/testkit/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildWorkflow, contactOf, executionIn, publishEvent, track, uniqueEmail, uniqueName } from "./helpers.js";

/** WAIT_FOR_EVENT's block, resume and edges (the timeout and its edge: engine.test.ts; racing: durability.test.ts). */
let drain: Drain;
beforeAll(async () => {
  drain = await openDrain();
});
afterAll(async () => {
  await drain?.close();
});

const publish = (e: Parameters<typeof publishEvent>[2]) => publishEvent(sharedPlatform().env.NATS_URL!, sharedPlatform().prefix, e);
const runs = (detail: { steps: Array<{ stepId: string; status: string }> }) => detail.steps.map((s) => [s.stepId, s.status]);

describe("WAIT_FOR_EVENT", () => {
  it("blocks until its contact's event of its name, occurred after the wait began, and follows the EVENT edge", async () => {
    const p = await newProject();
    const start = uniqueName("start");
    const paid = uniqueName("paid");
    const { id, triggerId, stepIds } = await buildWorkflow(p.api, start, [
      { type: "WAIT_FOR_EVENT", config: { eventName: paid } }, // no timeout: no timer
      { type: "EXIT", config: { reason: "paid" } }, // the EVENT edge (the first free outcome)
    ]);
    const email = uniqueEmail();
    await track(p.api, email, start);
    const waiting = await executionIn(p.api, id, ["WAITING"]);
    expect(runs(waiting)).toEqual([
      [triggerId, "COMPLETED"],
      [stepIds[0], "WAITING"],
    ]);

    // none of these resume it: its event from before the wait began, another name, another contact's
    const mine = { projectId: p.id, contactId: waiting.contactId as string, email, data: {} };
    const other = await contactOf(p.api, uniqueEmail("other"));
    await publish({ ...mine, name: paid, occurredAt: new Date(Date.parse(waiting.startedAt) - 3_600_000).toISOString() });
    await publish({ ...mine, name: uniqueName("else") });
    await publish({ projectId: p.id, contactId: other.id, email: other.email, name: paid, data: {} });
    await drain.through(wireNames(sharedPlatform().prefix).consumers.workflowsTriggers);
    const still = (await p.api.get(`/workflows/${id}/executions/${waiting.id}`)).body;
    expect(still.status).toBe("WAITING");
    expect(runs(still)).toEqual(runs(waiting));

    await publish({ ...mine, name: paid, data: { amount: 42 } });
    const done = await executionIn(p.api, id, ["EXITED", "COMPLETED", "FAILED"]);
    expect(done).toMatchObject({ status: "EXITED", exitReason: "paid", context: { event: { amount: 42 } } });
    expect(runs(done)).toEqual([
      [triggerId, "COMPLETED"],
      [stepIds[0], "COMPLETED"],
      [stepIds[1], "COMPLETED"],
    ]);
  });

  it("ends the execution when the way the wait ended has no edge", async () => {
    const p = await newProject();
    const paid = uniqueName("paid");
    const [eventOnlyStart, timeoutOnlyStart] = [uniqueName("eventonly"), uniqueName("timeoutonly")];
    // timed out, with only an EVENT edge
    const eventOnly = await buildWorkflow(p.api, eventOnlyStart, [
      { type: "WAIT_FOR_EVENT", config: { eventName: paid, timeout: 1 } },
      { type: "UPDATE_CONTACT", config: { data: { reached: "event" } } },
    ]);
    // resumed, with only a TIMEOUT edge (its EVENT edge removed before enabling)
    const timeoutOnly = await buildWorkflow(
      p.api,
      timeoutOnlyStart,
      [
        { type: "WAIT_FOR_EVENT", config: { eventName: paid, timeout: 3600 } },
        { type: "EXIT", config: { reason: "event" } },
        { type: "UPDATE_CONTACT", config: { data: { reached: "timeout" } }, after: 0 },
      ],
      { enable: false },
    );
    const graph = (await p.api.get(`/workflows/${timeoutOnly.id}`)).body;
    const eventEdge = graph.transitions.find((t: { waitOutcome: string | null }) => t.waitOutcome === "EVENT");
    expect((await p.api.delete(`/workflows/${timeoutOnly.id}/transitions/${eventEdge.id}`)).status).toBe(204);
    expect((await p.api.patch(`/workflows/${timeoutOnly.id}`, { enabled: true })).status).toBe(200);

    const email = uniqueEmail();
    await track(p.api, email, eventOnlyStart);
    await track(p.api, email, timeoutOnlyStart);
    const timedOut = await executionIn(p.api, eventOnly.id, ["COMPLETED", "FAILED"]);
    expect(runs(timedOut)).toEqual([
      [eventOnly.triggerId, "COMPLETED"],
      [eventOnly.stepIds[0], "COMPLETED"],
    ]);

    const waiting = await executionIn(p.api, timeoutOnly.id, ["WAITING"]);
    await track(p.api, email, paid);
    const resumed = await executionIn(p.api, timeoutOnly.id, ["COMPLETED", "FAILED"]);
    expect(resumed.id).toBe(waiting.id);
    expect(runs(resumed)).toEqual([
      [timeoutOnly.triggerId, "COMPLETED"],
      [timeoutOnly.stepIds[0], "COMPLETED"],
    ]);
    const contact = (await p.api.get(`/contacts?search=${encodeURIComponent(email)}`)).body.data[0];
    expect(contact.data).not.toHaveProperty("reached");
  });
});
