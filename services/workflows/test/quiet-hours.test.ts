import { newProject, setProjectClock, sharedPlatform } from "@mailroom/testkit/shared";
import { describe, expect, it } from "vitest";
import { buildWorkflow, executionsWhen, expectError, mailTo, track, uniqueEmail, uniqueName, verifiedTemplate } from "./helpers.js";

/**
 * Quiet hours on SEND_EMAIL (decisions.md §18): inside the window, in the contact's zone, the send
 * is held on a durable timer (a DELAY's) until the window ends; outside, it goes at once. The
 * project's clock is the test's (setProjectClock): 22:59:57Z is 07:59:57 in Tokyo (quiet, 3 s to the
 * end) and 17:59:57 in New York (not quiet).
 */
describe("quiet hours", () => {
  it("holds a send inside the window until it ends and sends one outside at once", async () => {
    const p = await newProject("quiet-hours");
    const env = sharedPlatform().env;
    const template = await verifiedTemplate(p.api, sharedPlatform().zonesFile);
    const event = uniqueName("quiet");
    const { id, stepIds } = await buildWorkflow(p.api, event, [
      { type: "SEND_EMAIL", config: { templateId: template.id, quietHours: { from: "21:00", to: "08:00" } } },
    ]);
    const tokyo = uniqueEmail("qh-tokyo");
    const newYork = uniqueEmail("qh-ny");
    for (const [email, timezone] of [[tokyo, "Asia/Tokyo"], [newYork, "America/New_York"]]) {
      expect((await p.api.post("/contacts", { email, data: { timezone } })).status).toBe(201);
    }
    const offsetMs = Date.parse("2026-03-07T22:59:57Z") - Date.now();
    setProjectClock(env, p.id, new Date(Date.now() + offsetMs));
    await track(p.api, tokyo, event);
    await track(p.api, newYork, event);

    const [atNight] = await mailTo(sharedPlatform().mailboxUrl, newYork, 10_000);
    expect(Date.parse(atNight!.receivedAt) + offsetMs).toBeLessThan(Date.parse("2026-03-07T23:00:00Z"));
    const list = await executionsWhen(p.api, id, (l) => l.some((e) => e.status === "WAITING"));
    const heldId = list.find((e) => e.status === "WAITING").id;
    const whileHeld = (await p.api.get(`/workflows/${id}/executions/${heldId}`)).body;
    expect(whileHeld.steps.find((s: any) => s.stepId === stepIds[0])).toMatchObject({ status: "WAITING" });

    const [morning] = await mailTo(sharedPlatform().mailboxUrl, tokyo, 15_000);
    expect(Date.parse(morning!.receivedAt) + offsetMs).toBeGreaterThanOrEqual(Date.parse("2026-03-07T23:00:00Z"));
    await executionsWhen(p.api, id, (l) => l.length === 2 && l.every((e) => e.status === "COMPLETED"));
    // the held run went on when its timer fired: one run of the step, completed once sent
    const after = (await p.api.get(`/workflows/${id}/executions/${heldId}`)).body;
    expect(after.steps.filter((s: any) => s.stepId === stepIds[0]).map((s: any) => s.status)).toEqual(["COMPLETED"]);
    expect(await mailTo(sharedPlatform().mailboxUrl, tokyo)).toHaveLength(1);
  });

  it("refuses quiet hours without `to` or with a bad time, with the field's path, adding no step", async () => {
    const p = await newProject("quiet-hours-bad");
    const template = await verifiedTemplate(p.api, sharedPlatform().zonesFile);
    const { id } = await buildWorkflow(p.api, uniqueName("quiet-bad"), [], { enable: false });
    const bad: Array<[unknown, string]> = [
      [{ from: "21:00" }, "config.quietHours.to"],
      [{ from: "25:00", to: "08:00" }, "config.quietHours.from"],
      [{ from: "9pm", to: "08:00" }, "config.quietHours.from"],
    ];
    for (const [quietHours, path] of bad) {
      const res = await p.api.post(`/workflows/${id}/steps`, { type: "SEND_EMAIL", config: { templateId: template.id, quietHours } });
      expectError(res, 400, "VALIDATION_ERROR");
      expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
    }
    expect((await p.api.get(`/workflows/${id}`)).body.steps).toHaveLength(1);
  });
});
