import { wireNames } from "@mailroom/contracts";
import { newProject, openDrain, sharedPlatform, waitFor, type Drain } from "@mailroom/testkit/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildWorkflow, executionIn, executionsWhen, expectError, mailTo, publishEvent, track, uniqueEmail, uniqueName, verifiedTemplate } from "./helpers.js";

const contactData = async (api: any, email: string) => {
  const list = await api.get(`/contacts?search=${encodeURIComponent(email)}`);
  return list.body.data[0] as { id: string; data: Record<string, unknown>; subscribed: boolean };
};

let drain: Drain;
beforeAll(async () => {
  drain = await openDrain();
});
afterAll(() => drain?.close());
/** The trigger consumer has taken every event published so far: what it starts is in the database. */
const triggersHandled = () => drain.through(wireNames(sharedPlatform().prefix).consumers.workflowsTriggers);

describe("workflow engine", () => {
  it("runs SEND_EMAIL, UPDATE_CONTACT and EXIT from a tracked event", async () => {
    const p = await newProject();
    const template = await verifiedTemplate(p.api, sharedPlatform().zonesFile);
    const event = uniqueName("signup");
    const { id, stepIds } = await buildWorkflow(p.api, event, [
      { type: "SEND_EMAIL", config: { templateId: template.id } },
      { type: "UPDATE_CONTACT", config: { data: { onboarded: true } } },
      { type: "EXIT", config: { reason: "welcomed" } },
    ]);
    const email = uniqueEmail();
    await track(p.api, email, event, { plan: "pro", source: "ads" });
    const done = await executionIn(p.api, id, ["EXITED", "FAILED"]);
    expect(done).toMatchObject({ status: "EXITED", exitReason: "welcomed", context: { event: { plan: "pro", source: "ads" } } });
    expect(done.steps.map((s: any) => [s.stepId, s.status])).toEqual([
      [expect.any(String), "COMPLETED"],
      [stepIds[0], "COMPLETED"],
      [stepIds[1], "COMPLETED"],
      [stepIds[2], "COMPLETED"],
    ]);
    const [mail] = await mailTo(sharedPlatform().mailboxUrl, email);
    expect(mail!.subject).toBe("Hello pro");
    expect(mail!.html).toContain("from ads");
    expect((await contactData(p.api, email)).data).toMatchObject({ plan: "pro", onboarded: true });
  });

  it("completes a workflow with no step after its TRIGGER, from an event and from a manual start", async () => {
    // a start completes the TRIGGER's run at once and begins the step after it; here there is none
    const p = await newProject();
    const event = uniqueName("empty");
    const { id, triggerId } = await buildWorkflow(p.api, event, [], { allowReentry: true });
    await track(p.api, uniqueEmail(), event);
    const done = await executionIn(p.api, id, ["COMPLETED", "FAILED"]);
    expect(done.status).toBe("COMPLETED");
    expect(done.steps.map((s: any) => [s.stepId, s.status])).toEqual([[triggerId, "COMPLETED"]]);

    const manual = await buildWorkflow(p.api, uniqueName("manual"), [], { enable: false });
    expect((await p.api.patch(`/workflows/${manual.id}`, { enabled: true, triggerType: "MANUAL" })).status).toBe(200);
    const contact = (await p.api.post("/contacts", { email: uniqueEmail() })).body;
    expect((await p.api.post(`/workflows/${manual.id}/executions`, { contactId: contact.id })).status).toBe(201);
    const ended = await executionIn(p.api, manual.id, ["COMPLETED", "FAILED"]);
    expect(ended.status).toBe("COMPLETED");
    expect(ended.steps.map((s: any) => [s.stepId, s.status])).toEqual([[manual.triggerId, "COMPLETED"]]);
  });

  it("follows both CONDITION branches, in the short form and the full form", async () => {
    const p = await newProject();
    const event = uniqueName("cond");
    const branch = (value: string) => ({ type: "UPDATE_CONTACT", config: { data: { [`${value}`]: true } } });
    const short = await buildWorkflow(p.api, event, [
      { type: "CONDITION", config: { field: "data.plan", operator: "equals", value: "pro" } },
      { ...branch("shortYes"), after: 0 },
      { ...branch("shortNo"), after: 0 },
    ]);
    const full = await buildWorkflow(p.api, event, [
      {
        type: "CONDITION",
        config: { logic: "OR", groups: [{ filters: [{ field: "event.source", operator: "equals", value: "ads" }] }, { filters: [{ field: "contact.email", operator: "endsWith", value: "@vip.test" }] }] },
      },
      { ...branch("fullYes"), after: 0 },
      { ...branch("fullNo"), after: 0 },
    ]);
    const w = (await p.api.get(`/workflows/${short.id}`)).body;
    expect(w.transitions.filter((t: any) => t.fromStepId === short.stepIds[0]).map((t: any) => t.branch).sort()).toEqual(["no", "yes"]);
    const pro = uniqueEmail("pro");
    const free = uniqueEmail("free");
    await track(p.api, pro, event, { plan: "pro", source: "ads" });
    await track(p.api, free, event, { plan: "free", source: "search" });
    await executionsWhen(p.api, short.id, (l) => l.length === 2 && l.every((e) => e.status === "COMPLETED"));
    await executionsWhen(p.api, full.id, (l) => l.length === 2 && l.every((e) => e.status === "COMPLETED"));
    expect((await contactData(p.api, pro)).data).toMatchObject({ shortYes: true, fullYes: true });
    expect((await contactData(p.api, pro)).data).not.toHaveProperty("shortNo");
    expect((await contactData(p.api, free)).data).toMatchObject({ shortNo: true, fullNo: true });
    expect((await contactData(p.api, free)).data).not.toHaveProperty("fullYes");
  });

  it("resumes WAIT_FOR_EVENT on the contact's event, or on timeout", async () => {
    const p = await newProject();
    const event = uniqueName("wait");
    const paid = uniqueName("paid");
    const { id } = await buildWorkflow(p.api, event, [
      { type: "WAIT_FOR_EVENT", config: { eventName: paid, timeout: 3 } },
      { type: "UPDATE_CONTACT", config: { data: { outcome: "event" } }, after: 0 },
      { type: "UPDATE_CONTACT", config: { data: { outcome: "timeout" } }, after: 0 },
    ]);
    const fast = uniqueEmail("fast");
    const slow = uniqueEmail("slow");
    await track(p.api, fast, event, { first: 1 });
    await track(p.api, slow, event);
    await executionsWhen(p.api, id, (l) => l.length === 2 && l.every((e) => e.status === "WAITING"));
    // another contact's event of that name resumes nobody else
    await track(p.api, uniqueEmail("other"), paid);
    await track(p.api, fast, paid, { amount: 42 });
    const list = await executionsWhen(p.api, id, (l) => l.every((e) => e.status === "COMPLETED"), 15_000);
    const fastContact = await contactData(p.api, fast);
    expect(fastContact.data.outcome).toBe("event");
    expect((await contactData(p.api, slow)).data.outcome).toBe("timeout");
    expect(list.find((e) => e.contactId === fastContact.id).context.event).toEqual({ first: 1, amount: 42 });
  });

  it("honours allowReentry both ways", async () => {
    const p = await newProject();
    const once = await buildWorkflow(p.api, uniqueName("once"), [{ type: "EXIT" }]);
    const email = uniqueEmail();
    const onceEvent = (await p.api.get(`/workflows/${once.id}`)).body.triggerConfig.eventName;
    await track(p.api, email, onceEvent);
    await executionsWhen(p.api, once.id, (l) => l.length === 1 && l[0].status === "EXITED");
    await track(p.api, email, onceEvent);
    await triggersHandled();
    expect((await p.api.get(`/workflows/${once.id}/executions`)).body.data).toHaveLength(1);

    const event = uniqueName("again");
    const again = await buildWorkflow(p.api, event, [{ type: "WAIT_FOR_EVENT", config: { eventName: "never" } }], { allowReentry: true });
    await track(p.api, email, event);
    await executionsWhen(p.api, again.id, (l) => l.length === 1 && l[0].status === "WAITING");
    await track(p.api, email, event); // never two active at once
    await triggersHandled();
    const [first] = (await p.api.get(`/workflows/${again.id}/executions`)).body.data;
    expect((await p.api.get(`/workflows/${again.id}/executions`)).body.data).toHaveLength(1);
    const cancelled = await p.api.post(`/workflows/${again.id}/executions/${first.id}/cancel`);
    expect(cancelled.body.status).toBe("CANCELLED");
    expectError(await p.api.post(`/workflows/${again.id}/executions/${first.id}/cancel`), 409, "INVALID_STATE");
    await track(p.api, email, event);
    // The new execution is RUNNING for a moment before its first step parks it: wait for WAITING.
    const statuses = (l: Array<{ status: string }>) => l.map((e) => e.status).sort().join();
    const both = await executionsWhen(p.api, again.id, (l) => l.length === 2 && statuses(l) === "CANCELLED,WAITING");
    expect(statuses(both)).toBe("CANCELLED,WAITING");
    expect((await p.api.get(`/workflows/${again.id}/executions?status=CANCELLED`)).body.data).toHaveLength(1);
    await p.api.post(`/workflows/${again.id}/executions/cancel-all`);
  });

  it("starts workflows from system events: contact.unsubscribed, email.open, segment entry", async () => {
    const p = await newProject();
    const slug = uniqueName("vip");
    const flows = await Promise.all(
      ["contact.unsubscribed", "email.open", `segment.${slug}.entry`].map((name) => buildWorkflow(p.api, name, [{ type: "EXIT", config: { reason: name } }])),
    );
    const email = uniqueEmail();
    const created = await p.api.post("/contacts", { email });
    expect((await p.api.patch(`/contacts/${created.body.id}`, { subscribed: false })).status).toBe(200);
    const { env, prefix } = sharedPlatform();
    const base = { projectId: p.id, contactId: created.body.id, email };
    await publishEvent(env.NATS_URL!, prefix, { ...base, name: "email.open", data: { emailId: "e1", isFirstOpen: true } });
    await publishEvent(env.NATS_URL!, prefix, { ...base, name: `segment.${slug}.entry`, data: { segmentId: "s1", segmentName: slug } });
    for (const [i, f] of flows.entries()) {
      const done = await executionIn(p.api, f.id, ["EXITED"]);
      expect(done.contactId).toBe(created.body.id);
      if (i === 1) expect(done.context.event).toMatchObject({ emailId: "e1" });
      if (i === 2) expect(done.context.event).toMatchObject({ segmentName: slug });
    }
  });

  it("does not start a disabled workflow, and cancel-all stops waiting executions and their timers", async () => {
    const p = await newProject();
    const event = uniqueName("off");
    const off = await buildWorkflow(p.api, event, [{ type: "EXIT" }], { enable: false });
    const on = await buildWorkflow(p.api, event, [{ type: "DELAY", config: { amount: 1, unit: "minutes" } }, { type: "EXIT" }]);
    const emails = [uniqueEmail(), uniqueEmail()];
    for (const e of emails) await track(p.api, e, event);
    await executionsWhen(p.api, on.id, (l) => l.length === 2 && l.every((e) => e.status === "WAITING"));
    expect((await p.api.get(`/workflows/${off.id}/executions`)).body.data).toEqual([]);
    expect((await p.api.post(`/workflows/${on.id}/executions/cancel-all`)).body).toEqual({ cancelled: 2 });
    const list = await waitFor(async () => (await p.api.get(`/workflows/${on.id}/executions`)).body.data as any[]);
    expect(list.every((e) => e.status === "CANCELLED" && e.finishedAt)).toBe(true);
    const detail = (await p.api.get(`/workflows/${on.id}/executions/${list[0].id}`)).body;
    expect(detail.steps.at(-1)).toMatchObject({ status: "CANCELLED" });
  });
});
