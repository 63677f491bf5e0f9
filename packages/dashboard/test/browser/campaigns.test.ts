import { beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { setProjectClock, sinkMessages } from "@mailroom/testkit";
import { a11yViolations, } from "@mailroom/testkit/browser";
import { uniqueAddress } from "./sent-emails.js";
import { browserAndOwner } from "./fixture.js";
import { pick } from "./select.js";

const fx = browserAndOwner({ sending: true });
const { platform } = fx;
let segmentId: string;
/** Subscribed contacts with plan "pro": the campaign's recipients. Enough that sending lasts past a poll. */
const pros = Array.from({ length: 20 }, () => uniqueAddress("pro"));
const LINK = "https://example.com/spring";

beforeAll(async () => {
  const contacts = [
    ...pros.map((email) => ({ email, subscribed: true, data: { plan: "pro", firstName: "Pro" } })),
    { email: uniqueAddress("gone"), subscribed: false, data: { plan: "pro" } },
    { email: uniqueAddress("free"), subscribed: true, data: { plan: "free" } },
  ];
  for (const c of contacts) expect((await fx.api.post("/contacts", c)).status).toBe(201);
  const segment = await fx.api.post("/segments", { name: "Pros", filters: { logic: "AND", groups: [{ filters: [{ field: "data.plan", operator: "equals", value: "pro" }] }] } });
  expect(segment.status, JSON.stringify(segment.body)).toBe(201);
  segmentId = segment.body.id;
  const template = await fx.api.post("/templates", {
    name: "Spring sale",
    type: "MARKETING",
    subject: "Spring for {{ firstName }}",
    body: `<p>Hi {{ firstName }}, <a href="${LINK}">see the sale</a>.</p>`,
  });
  expect(template.status, JSON.stringify(template.body)).toBeLessThan(300);
}, 60_000);

/** "Schedule" in the send panel's segmented control, by keyboard as a person can: its radios are visually hidden. */
async function chooseSchedule(page: Page) {
  await page.getByRole("radio", { name: "Send now" }).focus();
  await page.keyboard.press("ArrowRight");
  await page.getByLabel("Date and time").waitFor();
}

/** Every status the page was told by GET /campaigns/<id>, in order, repeats folded. */
function statusesSeen(page: Page, id: string): string[] {
  const seen: string[] = [];
  page.on("response", async (res) => {
    if (new URL(res.url()).pathname !== `/campaigns/${id}` || res.request().method() !== "GET" || !res.ok()) return;
    const status = (await res.json().catch(() => null))?.status;
    if (status && seen[seen.length - 1] !== status) seen.push(status);
  });
  return seen;
}

describe("the Campaigns pages", () => {
  it("composes a campaign to a segment, schedules it, watches it send, and counts a click on its link", { timeout: 120_000 }, async () => {
    const page = await fx.open("/app/campaigns");
    await page.getByText(/^No campaign yet/).waitFor();
    expect(await a11yViolations(page)).toEqual([]);

    await page.getByRole("link", { name: "New campaign" }).click();
    await page.getByRole("textbox", { name: /^Name/ }).fill("Spring campaign");
    await pick(page, /^Start from a template/, /^Spring sale/);
    await expect.poll(() => page.getByRole("textbox", { name: /^Subject/ }).inputValue()).toBe("Spring for {{ firstName }}");
    await page.getByRole("textbox", { name: /^From name/ }).fill("Spring Desk");
    // All subscribed contacts first: 21 of the 22 contacts.
    await expect.poll(() => page.getByTestId("recipient-count").textContent()).toMatch(/^21 recipients/);
    await page.getByRole("radio", { name: "A segment" }).check();
    await pick(page, /^Segment/, /^Pros/);
    // The segment has 21 members; one is unsubscribed, so 20 recipients.
    await expect.poll(() => page.getByTestId("recipient-count").textContent()).toMatch(/^20 recipients/);
    expect(await a11yViolations(page)).toEqual([]);
    await page.getByRole("button", { name: "Create draft" }).click();
    await expect.poll(() => new URL(page.url()).pathname).toMatch(/^\/app\/campaigns\/(?!new$)[^/]+$/);
    const id = new URL(page.url()).pathname.split("/").pop()!;
    expect((await fx.api.get(`/campaigns/${id}`)).body).toMatchObject({ type: "SEGMENT", segmentId, fromName: "Spring Desk", status: "DRAFT" });

    // A test copy arrives in the mailbox.
    const tester = uniqueAddress("tester");
    await page.getByRole("textbox", { name: /^Send a test to/ }).fill(tester);
    await page.getByRole("button", { name: "Send test" }).click();
    await page.getByText(`Test sent to ${tester}`).waitFor();
    await expect.poll(async () => (await sinkMessages(platform.mailboxUrl, [tester])).length, { timeout: 20_000 }).toBe(1);

    // Scheduled in Paris an hour ahead: stored in UTC, shown in Paris time; then cancelled.
    await chooseSchedule(page);
    await pick(page, /^Time zone/, "Europe/Paris", { search: "Europe/Paris" });
    const later = new Date(Date.now() + 3_600_000);
    later.setUTCSeconds(0, 0);
    const paris = new Intl.DateTimeFormat("sv-SE", { timeZone: "Europe/Paris", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit" }).format(later).replace(" ", "T");
    await page.getByLabel("Date and time").fill(paris);
    await page.getByRole("button", { name: "Schedule", exact: true }).click();
    await page.getByText(/^Starts .*\(Europe\/Paris\)$/).waitFor();
    expect((await fx.api.get(`/campaigns/${id}`)).body).toMatchObject({ status: "SCHEDULED", scheduledAt: later.toISOString() });
    expect(await a11yViolations(page)).toEqual([]);
    await page.getByRole("button", { name: "Cancel schedule" }).click();
    await page.getByRole("button", { name: "Create draft" }).or(page.getByRole("button", { name: "Save" })).waitFor();
    expect((await fx.api.get(`/campaigns/${id}`)).body).toMatchObject({ status: "DRAFT", scheduledAt: null });

    // Now a few seconds ahead, in UTC, to the second.
    const seen = statusesSeen(page, id);
    await chooseSchedule(page);
    await pick(page, /^Time zone/, "UTC", { search: "UTC" });
    const soon = new Date(Date.now() + 6_000);
    soon.setUTCMilliseconds(0);
    await page.getByLabel("Date and time").fill(soon.toISOString().slice(0, 19));
    await page.getByRole("button", { name: "Schedule", exact: true }).click();
    await page.getByText(/^Starts .*\(UTC\)$/).waitFor();
    expect((await fx.api.get(`/campaigns/${id}`)).body.scheduledAt).toBe(soon.toISOString());

    // The page follows it: SCHEDULED → SENDING → SENT, the counts filling. Twenty emails can go out
    // between two of the page's polls, so SENDING may never be seen; nothing else may be.
    await page.getByText("SENT", { exact: true }).waitFor({ timeout: 60_000 });
    const followed = seen.filter((s) => s !== "DRAFT");
    expect([["SCHEDULED", "SENDING", "SENT"], ["SCHEDULED", "SENT"]]).toContainEqual(followed);
    await expect.poll(() => page.getByTestId("count-recipients").textContent()).toBe("20");
    await expect.poll(() => page.getByTestId("count-sent").textContent(), { timeout: 20_000 }).toBe("20");
    await page.getByRole("table", { name: "Clicks per link" }).or(page.getByText("No link was clicked yet.")).waitFor();
    await page.getByRole("cell", { name: pros[0]! }).or(page.getByRole("cell", { name: pros[1]! })).first().waitFor();

    // A recipient's email in the mailbox; its tracked link fetched as a click is counted on the page.
    const [message] = await sinkMessages(platform.mailboxUrl, [pros[0]!]);
    expect(message!.subject).toBe("Spring for Pro");
    const tracked = /href="([^"]+\/t\/c\/[^"]+)"/.exec(message!.html!)![1]!;
    const click = await fetch(tracked.replace(/^https?:\/\/[^/]+/, platform.url), { redirect: "manual" });
    expect(click.status).toBe(302);
    expect(click.headers.get("location")).toBe(LINK);
    const row = page.getByRole("table", { name: "Clicks per link" }).getByRole("row").filter({ hasText: LINK });
    await row.waitFor({ timeout: 20_000 });
    expect(await row.getByRole("cell").allTextContents()).toEqual([LINK, "1", "1"]);
    expect(await a11yViolations(page)).toEqual([]);

    // The recipients table filters by status; the list filters by status.
    await pick(page, /^Recipient status/, "Failed");
    await page.getByText("No recipient's email has this status.").waitFor();
    await page.goto(`${platform.url}/app/campaigns?status=SENT`);
    await page.getByRole("link", { name: "Spring campaign" }).waitFor();
    await page.getByText("Draft", { exact: true }).first().click();
    await page.getByText("No draft campaign.").waitFor();
    await page.context().close();
  });

  it("sets delivery at each recipient's local time, and shows the recipients waiting for it", async () => {
    const draft = await fx.api.post("/campaigns", { name: "Morning news", subject: "Good morning", body: "<p>Morning</p>", from: fx.from, audienceType: "SEGMENT", segmentId });
    expect(draft.status, JSON.stringify(draft.body)).toBe(200);
    const id = draft.body.data.id;
    const page = await fx.open(`/app/campaigns/${id}`);
    // the draft in the composer, its body's editor loaded (which moves the fields below it down)
    await expect.poll(() => page.getByRole("textbox", { name: /^Name/ }).inputValue()).toBe("Morning news");
    await page.getByText("<p>Morning</p>").waitFor();
    await page.getByRole("checkbox", { name: /^Deliver at recipient's local time/ }).check();
    await page.getByLabel(/^Local time/).fill("09:00");
    await pick(page, /^Fallback time zone/, "Asia/Tokyo", { search: "Asia/Tokyo" });
    expect(await a11yViolations(page)).toEqual([]);
    await page.getByRole("button", { name: "Save" }).click();
    await expect.poll(async () => (await fx.api.get(`/campaigns/${id}`)).body.deliverAt).toEqual({ localTime: "09:00", fallbackTimezone: "Asia/Tokyo" });

    // 05:00 in Tokyo, the pros' zone (they have none of their own): every recipient waits for 09:00
    setProjectClock(platform.env, fx.owner.projectId, new Date("2026-03-07T20:00:00Z"));
    expect((await fx.api.post(`/campaigns/${id}/send`)).status).toBe(200);
    await page.reload();
    await expect.poll(() => page.getByTestId("count-waiting for local time").textContent(), { timeout: 30_000 }).toBe("20");
    await page.getByText("No email yet.").waitFor();
    expect(await a11yViolations(page)).toEqual([]);

    // 09:00 comes in Tokyo: the page, open all along, follows the emails into its recipients table
    setProjectClock(platform.env, fx.owner.projectId, new Date("2026-03-07T23:59:58.500Z"));
    await page.getByText("SENT", { exact: true }).waitFor({ timeout: 60_000 });
    await expect.poll(() => page.getByTestId("count-sent").textContent(), { timeout: 20_000 }).toBe("20");
    await page.getByRole("cell", { name: pros[0]! }).waitFor();
    await page.context().close();
  });
});
