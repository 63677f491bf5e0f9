import { describe, expect, it } from "vitest";
import { newProject, sharedPlatform, waitFor } from "@mailroom/testkit/shared";
import { campaignBody, createContacts, sinkMessagesTo, uniqueAddress, verifiedSender, waitForStatus } from "./helpers.js";

/**
 * The frequency cap of decisions.md §18: `PATCH /settings/sending {frequencyCap: {max, days}}`; a
 * contact that has had `max` marketing emails in `days` days is skipped by the next campaign (reason
 * `frequency_cap`, counted in the campaign's `skipped`), while transactional mail still goes.
 */
describe("frequency cap on marketing mail", () => {
  it("skips the recipients over the cap, counts them in the campaign's stats, and never caps transactional mail", async () => {
    const p = await newProject("frequency-cap");
    const from = await verifiedSender(p.id, sharedPlatform().env);
    const regulars = [uniqueAddress("cap-a"), uniqueAddress("cap-b")];
    await createContacts(p.api, regulars.map((email) => ({ email, subscribed: true })));
    const set = await p.api.patch("/settings/sending", { frequencyCap: { max: 1, days: 7 } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.frequencyCap).toEqual({ max: 1, days: 7 });
    expect((await p.api.get("/settings/sending")).body.frequencyCap).toEqual({ max: 1, days: 7 });

    // the first campaign reaches both: each had none in the last 7 days
    const first = await p.api.post("/campaigns", campaignBody(from, { name: "First" }));
    expect((await p.api.post(`/campaigns/${first.body.data.id}/send`)).status).toBe(200);
    const one = await waitForStatus(p.api, first.body.data.id, "SENT", 30_000);
    expect(one.stats).toMatchObject({ recipients: 2, sent: 2, skipped: 0, failed: 0 });

    // a newcomer since: the second campaign reaches only it
    const newcomer = uniqueAddress("cap-new");
    await createContacts(p.api, [{ email: newcomer, subscribed: true }]);
    const second = await p.api.post("/campaigns", campaignBody(from, { name: "Second", subject: "Second {{ firstName }}" }));
    expect((await p.api.post(`/campaigns/${second.body.data.id}/send`)).status).toBe(200);
    const two = await waitForStatus(p.api, second.body.data.id, "SENT", 30_000);
    expect(two.stats).toMatchObject({ recipients: 3, sent: 1, skipped: 2, failed: 0 });
    const secondMail = await waitFor(
      async () => {
        const got = (await sinkMessagesTo(sharedPlatform().mailboxUrl, [...regulars, newcomer])).filter((m) => m.subject?.startsWith("Second"));
        return got.length >= 1 ? got : null;
      },
      { timeoutMs: 15_000, what: "the second campaign's email" },
    );
    expect(secondMail.map((m) => m.envelope.rcptTo[0])).toEqual([newcomer]);
    const skipped = await p.api.get(`/emails?campaignId=${second.body.data.id}&limit=10`);
    const failures = (skipped.body.data as Array<{ to: string; status: string }>).filter((e) => e.status === "FAILED");
    expect(failures.map((e) => e.to).sort()).toEqual([...regulars].sort());

    // transactional mail is not capped
    const tx = await p.api.post("/v1/send", { to: regulars[0], from, subject: "Your receipt", body: "<p>r</p>" });
    expect(tx.status, JSON.stringify(tx.body)).toBe(200);
    await waitFor(async () => (await sinkMessagesTo(sharedPlatform().mailboxUrl, [regulars[0]!])).some((m) => m.subject === "Your receipt") || null, {
      timeoutMs: 15_000,
      what: "the transactional email",
    });

    // null turns the cap off: a third campaign reaches everyone
    expect((await p.api.patch("/settings/sending", { frequencyCap: null })).body.frequencyCap).toBeNull();
    const third = await p.api.post("/campaigns", campaignBody(from, { name: "Third" }));
    expect((await p.api.post(`/campaigns/${third.body.data.id}/send`)).status).toBe(200);
    expect((await waitForStatus(p.api, third.body.data.id, "SENT", 30_000)).stats).toMatchObject({ recipients: 3, sent: 3, skipped: 0 });
  }, 120_000);

  it.each([
    ["a zero maximum", { max: 0, days: 7 }, "frequencyCap.max"],
    ["a window of no days", { max: 3, days: 0 }, "frequencyCap.days"],
    ["a window past a year", { max: 3, days: 366 }, "frequencyCap.days"],
    ["a fractional maximum", { max: 1.5, days: 7 }, "frequencyCap.max"],
    ["a string", "weekly", "frequencyCap"],
  ])("refuses %s and changes nothing", async (_label, frequencyCap, path) => {
    const p = await newProject("frequency-cap-bad");
    const res = await p.api.patch("/settings/sending", { frequencyCap });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("VALIDATION_ERROR");
    expect(JSON.stringify(res.body.details)).toContain(path);
    expect((await p.api.get("/settings/sending")).body.frequencyCap).toBeNull();
  });
});
