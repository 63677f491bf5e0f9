import { describe, expect, it } from "vitest";
import type { ApiClient } from "@mailroom/testkit";
import { newProject, setProjectClock, sharedPlatform, waitFor } from "@mailroom/testkit/shared";
import { campaignBody, createContacts, expectError, type SinkMessage, sinkMessagesTo, uniqueAddress, verifiedSender, waitForStatus } from "./helpers.js";

/**
 * Local-time delivery (decisions.md §18): `deliverAt {localTime, fallbackTimezone}` mails each
 * recipient at the next `localTime` in its contact's `data.timezone` (the fallback zone without
 * one). The project's clock is the test's (setProjectClock): it starts at 08:59:57 in Tokyo on
 * 2026-03-08, the day New York springs forward, then jumps to just before London's and New York's
 * 09:00, so a day of local times passes in seconds.
 */
/** The campaign once `n` of its recipients are still waiting for their local time. */
const waitingAt = (api: ApiClient, id: string, n: number) =>
  waitFor(async () => {
    const c = (await api.get(`/campaigns/${id}`)).body;
    return c.stats.waiting === n ? c : null;
  }, { timeoutMs: 15_000, intervalMs: 100, what: `${n} recipient(s) waiting` });

const paths = (res: { body: any }) => (res.body.details ?? []).map((d: { path: string }) => d.path);

describe("local-time delivery", () => {
  it("mails each recipient at 09:00 in its own zone, never before, and ends SENT", async () => {
    const p = await newProject("local-time");
    const env = sharedPlatform().env;
    const from = await verifiedSender(p.id, env);
    const tokyo = uniqueAddress("lt-tokyo");
    const newYork = uniqueAddress("lt-ny");
    const plain = uniqueAddress("lt-fallback");
    await createContacts(p.api, [
      { email: tokyo, subscribed: true, data: { timezone: "Asia/Tokyo" } },
      { email: newYork, subscribed: true, data: { timezone: "America/New_York" } },
      { email: plain, subscribed: true },
    ]);
    const created = await p.api.post("/campaigns", campaignBody(from, { deliverAt: { localTime: "09:00", fallbackTimezone: "Europe/London" } }));
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.data.deliverAt).toEqual({ localTime: "09:00", fallbackTimezone: "Europe/London" });
    const id = created.body.data.id;

    // the project's time of each arrival, from the sink's (real) time and the clock's offset then
    let offsetMs = 0;
    const setClock = (iso: string) => {
      offsetMs = Date.parse(iso) - Date.now();
      setProjectClock(env, p.id, new Date(iso));
    };
    const arrived = async (to: string) => {
      const m: SinkMessage | undefined = (await sinkMessagesTo(sharedPlatform().mailboxUrl, [to]))[0];
      return m ? new Date(Date.parse(m.receivedAt) + offsetMs) : null;
    };
    const arrival = (to: string, what: string) => waitFor(() => arrived(to), { timeoutMs: 15_000, intervalMs: 100, what });

    setClock("2026-03-07T23:59:57Z"); // 08:59:57 in Tokyo
    expect((await p.api.post(`/campaigns/${id}/send`)).status).toBe(200);
    const atTokyo = await arrival(tokyo, "the Tokyo recipient's email");
    expect(atTokyo.getTime()).toBeGreaterThanOrEqual(Date.parse("2026-03-08T00:00:00Z"));
    expect(atTokyo.getTime()).toBeLessThan(Date.parse("2026-03-08T00:00:10Z"));
    expect(await arrived(newYork)).toBeNull();
    expect(await arrived(plain)).toBeNull();
    // the fan-out settles a released recipient just after sending took it, so the count follows the arrival
    const holding = await waitingAt(p.api, id, 2);
    expect(holding.status).toBe("SENDING");
    expect(holding.stats).toMatchObject({ recipients: 3, waiting: 2 });

    setClock("2026-03-08T08:59:58.500Z"); // 08:59:58.5 in London, the fallback zone (GMT until the 29th)
    const atLondon = await arrival(plain, "the fallback recipient's email");
    expect(atLondon.getTime()).toBeGreaterThanOrEqual(Date.parse("2026-03-08T09:00:00Z"));
    expect(atLondon.getTime()).toBeLessThan(Date.parse("2026-03-08T09:00:10Z"));
    expect(await arrived(newYork)).toBeNull();
    expect((await waitingAt(p.api, id, 1)).stats.waiting).toBe(1);

    setClock("2026-03-08T12:59:58.500Z"); // 08:59:58.5 EDT in New York: its clocks sprang forward at 02:00
    const atNewYork = await arrival(newYork, "the New York recipient's email");
    expect(atNewYork.getTime()).toBeGreaterThanOrEqual(Date.parse("2026-03-08T13:00:00Z"));
    expect(atNewYork.getTime()).toBeLessThan(Date.parse("2026-03-08T13:00:10Z"));

    const sent = await waitForStatus(p.api, id, "SENT", 15_000);
    expect(sent.stats).toMatchObject({ recipients: 3, sent: 3, failed: 0, skipped: 0, waiting: 0 });
    expect((await sinkMessagesTo(sharedPlatform().mailboxUrl, [tokyo, newYork, plain])).length).toBe(3);
  }, 60_000);

  it("refuses a bad time or zone, and an A/B test with it, with the field's path, creating nothing", async () => {
    const p = await newProject("local-time-bad");
    const from = await verifiedSender(p.id, sharedPlatform().env);
    const bad: Array<[unknown, string]> = [
      [{ localTime: "25:00", fallbackTimezone: "UTC" }, "deliverAt.localTime"],
      [{ localTime: "9am", fallbackTimezone: "UTC" }, "deliverAt.localTime"],
      [{ localTime: "09:00", fallbackTimezone: "Mars/Olympus" }, "deliverAt.fallbackTimezone"],
      [{ localTime: "09:00" }, "deliverAt.fallbackTimezone"],
    ];
    for (const [deliverAt, path] of bad) {
      const res = await p.api.post("/campaigns", campaignBody(from, { deliverAt }));
      expectError(res, 400, "VALIDATION_ERROR");
      expect(paths(res)).toContain(path);
    }
    const ab = await p.api.post(
      "/campaigns",
      campaignBody(from, {
        deliverAt: { localTime: "09:00", fallbackTimezone: "UTC" },
        variants: [{ subject: "A" }, { subject: "B" }],
        abTest: { samplePercent: 20, metric: "opened", waitMinutes: 60 },
      }),
    );
    expectError(ab, 400, "VALIDATION_ERROR");
    expect(paths(ab)).toContain("deliverAt");
    expect((await p.api.get("/campaigns")).body.total).toBe(0);

    // an edit is checked the same way, and leaves the draft as it was
    const draft = await p.api.post("/campaigns", campaignBody(from));
    const edit = await p.api.patch(`/campaigns/${draft.body.data.id}`, { deliverAt: { localTime: "24:00", fallbackTimezone: "UTC" } });
    expectError(edit, 400, "VALIDATION_ERROR");
    expect(paths(edit)).toContain("deliverAt.localTime");
    expect((await p.api.get(`/campaigns/${draft.body.data.id}`)).body.deliverAt).toBeNull();
  });
});
