import { wireNames } from "@mailroom/contracts";
import { newProject, openDrain, sharedPlatform, type Drain } from "@mailroom/testkit/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildWorkflow, contactOf, executionIn, expectError, track, uniqueEmail, uniqueName, verifiedTemplate } from "./helpers.js";

let drain: Drain;
beforeAll(async () => {
  drain = await openDrain();
});
afterAll(() => drain?.close());
/** The trigger consumer has taken every event published so far: what it starts is in the database. */
const triggersHandled = () => drain.through(wireNames(sharedPlatform().prefix).consumers.workflowsTriggers);

describe("workflows API", () => {
  it("creates a disabled EVENT workflow with its TRIGGER step, lists and reads it", async () => {
    const p = await newProject();
    const res = await p.api.post("/workflows", { name: "Onboarding", eventName: "signup" });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: "Onboarding",
      description: null,
      enabled: false,
      allowReentry: false,
      triggerType: "EVENT",
      triggerConfig: { eventName: "signup" },
      transitions: [],
    });
    expect(res.body.steps).toEqual([expect.objectContaining({ type: "TRIGGER", config: { eventName: "signup" } })]);
    const list = await p.api.get("/workflows?limit=10");
    expect(list.body).toMatchObject({ page: 1, pageSize: 10, total: 1, totalPages: 1 });
    expect(list.body.workflows[0].id).toBe(res.body.id);
    expect((await p.api.get(`/workflows/${res.body.id}`)).body).toEqual(res.body);
    expectError(await p.api.get("/workflows/not-an-id"), 404, "NOT_FOUND");
  });

  it("validates every step type's config", async () => {
    const p = await newProject();
    const { id } = await buildWorkflow(p.api, "v", [], { enable: false });
    const add = (type: string, config: unknown) => p.api.post(`/workflows/${id}/steps`, { type, config });
    expectError(await add("SEND_EMAIL", { templateId: "0190a0a0-0000-7000-8000-000000000000" }), 400, "VALIDATION_ERROR");
    expectError(await add("DELAY", { amount: 0, unit: "minutes" }), 400, "VALIDATION_ERROR");
    expectError(await add("DELAY", { amount: 1, unit: "weeks" }), 400, "VALIDATION_ERROR");
    expectError(await add("WAIT_FOR_EVENT", { timeout: 5 }), 400, "VALIDATION_ERROR");
    expectError(await add("CONDITION", { field: "data.plan", operator: "sortOf", value: 1 }), 400, "VALIDATION_ERROR");
    expectError(await add("CONDITION", { field: "nope", operator: "equals", value: 1 }), 400, "VALIDATION_ERROR");
    expectError(await add("WEBHOOK", { url: "ftp://example.com/x" }), 400, "VALIDATION_ERROR");
    expectError(await add("WEBHOOK", { url: "http://127.1:8080/x" }), 400, "VALIDATION_ERROR");
    expectError(await add("WEBHOOK", { url: "http://169.254.169.254/latest/meta-data" }), 400, "VALIDATION_ERROR");
    expectError(await add("WEBHOOK", { url: "http://[::ffff:10.0.0.1]/" }), 400, "VALIDATION_ERROR");
    expectError(await add("UPDATE_CONTACT", {}), 400, "VALIDATION_ERROR");
    expect((await add("EXIT", {})).status).toBe(201);
    expect((await add("WEBHOOK", { url: "https://hooks.example.com/{{ contact.email }}" })).status).toBe(201);
    expect((await add("CONDITION", { logic: "AND", groups: [{ filters: [{ field: "event.plan", operator: "equals", value: "pro" }] }] })).status).toBe(201);
    const t = await verifiedTemplate(p.api, sharedPlatform().zonesFile);
    expect((await add("SEND_EMAIL", { templateId: t.id })).status).toBe(201);
  });

  it("enforces the graph rules", async () => {
    const p = await newProject();
    const { id, triggerId, stepIds } = await buildWorkflow(
      p.api,
      "g",
      [
        { type: "CONDITION", config: { field: "data.plan", operator: "equals", value: "pro" } },
        { type: "DELAY", config: { amount: 1, unit: "minutes" } },
        { type: "EXIT", after: null },
        { type: "WAIT_FOR_EVENT", config: { eventName: "x", timeout: 0 }, after: null },
        { type: "EXIT", after: null },
      ],
      { enable: false },
    );
    const [cond, delay, exit, wait, exit2] = stepIds as [string, string, string, string, string];
    const edge = (fromStepId: string, toStepId: string, extra: object = {}) => p.api.post(`/workflows/${id}/transitions`, { fromStepId, toStepId, ...extra });
    expectError(await edge(cond, exit), 400, "VALIDATION_ERROR"); // no branch
    expectError(await edge(cond, exit, { branch: "yes" }), 400, "VALIDATION_ERROR"); // second yes
    expect((await edge(cond, exit, { branch: "no" })).status).toBe(201);
    expectError(await edge(delay, triggerId), 400, "VALIDATION_ERROR"); // into the trigger
    expect((await edge(delay, wait)).status).toBe(201);
    expectError(await edge(delay, exit2), 400, "VALIDATION_ERROR"); // second outgoing
    expectError(await edge(wait, exit2), 400, "VALIDATION_ERROR"); // needs waitOutcome
    expectError(await edge(wait, exit2, { waitOutcome: "TIMEOUT" }), 400, "VALIDATION_ERROR"); // timeout is 0
    expect((await edge(wait, exit2, { waitOutcome: "EVENT" })).status).toBe(201);
    expectError(await edge(exit2, wait), 400, "VALIDATION_ERROR"); // EXIT has no way out (and a cycle)
    const cycle = await edge(wait, cond, { waitOutcome: "TIMEOUT" });
    expectError(cycle, 400, "VALIDATION_ERROR");
    // the TIMEOUT edge becomes possible once the step has a timeout; then the timeout cannot go back to 0
    expect((await p.api.patch(`/workflows/${id}/steps/${wait}`, { config: { eventName: "x", timeout: 60 } })).status).toBe(200);
    expect((await edge(wait, exit, { waitOutcome: "TIMEOUT" })).status).toBe(201);
    expectError(await p.api.patch(`/workflows/${id}/steps/${wait}`, { config: { eventName: "x", timeout: 0 } }), 400, "VALIDATION_ERROR");
    expectError(await p.api.delete(`/workflows/${id}/steps/${triggerId}`), 400, "VALIDATION_ERROR");
  });

  it("splice delete reconnects the neighbours; a plain delete leaves the graph disconnected", async () => {
    const p = await newProject();
    const { id, triggerId, stepIds } = await buildWorkflow(
      p.api,
      "s",
      [{ type: "DELAY", config: { amount: 1, unit: "hours" } }, { type: "UPDATE_CONTACT", config: { data: { a: 1 } } }, { type: "EXIT" }],
      { enable: false },
    );
    const [delay, update, exit] = stepIds as [string, string, string];
    expect((await p.api.delete(`/workflows/${id}/steps/${delay}?splice=true`)).status).toBe(204);
    let w = (await p.api.get(`/workflows/${id}`)).body;
    expect(w.transitions.map((t: any) => [t.fromStepId, t.toStepId])).toEqual(
      expect.arrayContaining([
        [triggerId, update],
        [update, exit],
      ]),
    );
    expect(w.transitions).toHaveLength(2);
    expect((await p.api.delete(`/workflows/${id}/steps/${update}`)).status).toBe(204);
    w = (await p.api.get(`/workflows/${id}`)).body;
    expect(w.transitions).toEqual([]);
    expect(w.steps.map((s: any) => s.id)).toEqual([triggerId, exit]);
  });

  it("locks structural edits while an execution waits, unlocks after cancel-all, and freezes the trigger event", async () => {
    const p = await newProject();
    const event = uniqueName("lock");
    const { id, stepIds } = await buildWorkflow(p.api, event, [
      { type: "WAIT_FOR_EVENT", config: { eventName: "never", timeout: 0 } },
      { type: "EXIT", config: {}, after: null },
    ]);
    const [wait, exit] = stepIds as [string, string];
    const email = uniqueEmail();
    await track(p.api, email, event);
    await executionIn(p.api, id, ["WAITING"]);

    const lockedEdits = [
      p.api.post(`/workflows/${id}/steps`, { type: "EXIT", config: {} }),
      p.api.delete(`/workflows/${id}/steps/${exit}`),
      p.api.post(`/workflows/${id}/transitions`, { fromStepId: wait, toStepId: exit, waitOutcome: "EVENT" }),
      p.api.patch(`/workflows/${id}`, { triggerType: "MANUAL" }),
      p.api.patch(`/workflows/${id}`, { triggerConfig: { eventName: "other" } }),
      p.api.delete(`/workflows/${id}`),
    ];
    for (const res of await Promise.all(lockedEdits)) expectError(res, 409, "WORKFLOW_LOCKED");
    // renames and config edits are not structural
    expect((await p.api.patch(`/workflows/${id}`, { name: "renamed" })).status).toBe(200);
    expect((await p.api.patch(`/workflows/${id}/steps/${exit}`, { name: "Bye", config: { reason: "done" } })).status).toBe(200);

    expect((await p.api.post(`/workflows/${id}/executions/cancel-all`)).body).toEqual({ cancelled: 1 });
    const edge = await p.api.post(`/workflows/${id}/transitions`, { fromStepId: wait, toStepId: exit, waitOutcome: "EVENT" });
    expect(edge.status).toBe(201);
    expect((await p.api.delete(`/workflows/${id}/transitions/${edge.body.id}`)).status).toBe(204);
    // unlocked, but the event name stays: an execution happened
    const frozen = await p.api.patch(`/workflows/${id}`, { triggerConfig: { eventName: "other" } });
    expectError(frozen, 409, "INVALID_STATE");
    expect((await p.api.patch(`/workflows/${id}`, { triggerType: "MANUAL" })).status).toBe(200);
    expectError(await p.api.patch(`/workflows/${id}`, { triggerType: "EVENT", triggerConfig: { eventName: "other" } }), 409, "INVALID_STATE");
    const before = await p.api.post("/workflows", { name: "fresh", eventName: "a" });
    expect((await p.api.patch(`/workflows/${before.body.id}`, { triggerConfig: { eventName: "b" } })).body.triggerConfig).toEqual({ eventName: "b" });
  });

  it("checks trigger configs and manual starts", async () => {
    const p = await newProject();
    const { id } = await buildWorkflow(p.api, "m", [{ type: "EXIT" }], { enable: false });
    expectError(await p.api.patch(`/workflows/${id}`, { triggerType: "SCHEDULE", triggerConfig: { cron: "61 * * * *" } }), 400, "VALIDATION_ERROR");
    expectError(await p.api.patch(`/workflows/${id}`, { triggerType: "SCHEDULE", triggerConfig: { eventName: "x" } }), 400, "VALIDATION_ERROR");
    const contact = await contactOf(p.api, uniqueEmail());
    expectError(await p.api.post(`/workflows/${id}/executions`, { contactId: contact.id }), 409, "INVALID_STATE");
    await p.api.patch(`/workflows/${id}`, { enabled: true, triggerType: "MANUAL" });
    expectError(await p.api.post(`/workflows/${id}/executions`, { email: uniqueEmail("nobody") }), 404, "NOT_FOUND");
    const started = await p.api.post(`/workflows/${id}/executions`, { contactId: contact.id, context: { plan: "pro" } });
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({ workflowId: id, contactId: contact.id, context: { event: {}, plan: "pro" } });
    const done = await executionIn(p.api, id, ["EXITED"]);
    expect(done.steps.map((s: any) => s.status)).toEqual(["COMPLETED", "COMPLETED"]);
    // allowReentry false: the contact never enters again
    expectError(await p.api.post(`/workflows/${id}/executions`, { contactId: contact.id }), 409, "INVALID_STATE");
  });

  it("keeps tenants apart", async () => {
    const a = await newProject();
    const b = await newProject();
    const event = uniqueName("iso");
    const { id, stepIds } = await buildWorkflow(a.api, event, [{ type: "EXIT" }]);
    for (const res of [
      await b.api.get(`/workflows/${id}`),
      await b.api.patch(`/workflows/${id}`, { name: "x" }),
      await b.api.delete(`/workflows/${id}`),
      await b.api.post(`/workflows/${id}/steps`, { type: "EXIT", config: {} }),
      await b.api.delete(`/workflows/${id}/steps/${stepIds[0]}`),
      await b.api.get(`/workflows/${id}/executions`),
      await b.api.post(`/workflows/${id}/executions/cancel-all`),
    ]) {
      expectError(res, 404, "NOT_FOUND");
    }
    expect((await b.api.get("/workflows")).body.total).toBe(0);
    // the same event name tracked in project B starts nothing in project A
    const email = uniqueEmail();
    await track(b.api, email, event);
    await triggersHandled();
    expect((await a.api.get(`/workflows/${id}/executions`)).body.data).toEqual([]);
  });
});
