import { beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "@mailroom/testkit";
import { a11yViolations, createDashboardUser } from "@mailroom/testkit/browser";
import { sendEmail, uniqueAddress } from "./sent-emails.js";
import { browserAndOwner } from "./fixture.js";
import { selectOption } from "./select.js";
import { sharedOperator } from "@mailroom/testkit/shared";

const fx = browserAndOwner({ sending: true });
let campaign: { id: string; name: string };

beforeAll(async () => {
  for (const tag of ["one", "two", "three"]) await sendEmail(fx.api, { from: fx.from, to: uniqueAddress(tag), subject: `Hello ${tag}` });
  // and a campaign to two contacts: five sends in all, two of them the campaign's
  for (const tag of ["c1", "c2"]) await fx.api.post("/contacts", { email: uniqueAddress(tag) });
  const created = await fx.api.post("/campaigns", { name: "Autumn news", subject: "Autumn", body: "<p>Hi</p>", from: fx.from, audienceType: "ALL" });
  campaign = created.body.data;
  expect((await fx.api.post(`/campaigns/${campaign.id}/send`)).status).toBe(200);
  // the counters are kept by a consumer of the email events: wait until it has counted the five sends
  const range = new URLSearchParams({ from: new Date(Date.now() - 86_400_000).toISOString(), to: new Date(Date.now() + 60_000).toISOString(), interval: "day" });
  await waitFor(async () => {
    const res = await fx.api.get(`/stats?${range}`);
    return res.body.series.reduce((n: number, p: { sent: number }) => n + p.sent, 0) === 5;
  }, { timeoutMs: 30_000, intervalMs: 200, what: "five sends counted" });
});
describe("the Overview page", () => {
  it("shows the week's sends, the rates over them and the daily charts", async () => {
    const page = await fx.open("/app/overview");
    const sent = page.getByText("Sent in the last 7 days").locator("..");
    await expect.poll(() => sent.textContent()).toContain("5");
    await page.getByText("Delivery rate").first().waitFor();
    await page.getByText(/counted over the emails sent/).waitFor();
    await page.getByRole("figure", { name: "Emails per day" }).waitFor();
    await page.getByRole("figure", { name: "Rates per day" }).waitFor();
    expect(await a11yViolations(page)).toEqual([]);

    // by keyboard: from the page to the email log through the menu
    await page.getByRole("link", { name: "Overview" }).focus();
    for (let i = 0; i < 12 && (await page.evaluate(() => document.activeElement?.textContent)) !== "Emails"; i++) await page.keyboard.press("Tab");
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe("Emails");
    await page.keyboard.press("Enter");
    await page.getByRole("link", { name: "Hello one" }).waitFor();
    await page.context().close();
  });

  it("narrows to one campaign and to hours, and keeps the choice in the address", async () => {
    const page = await fx.open("/app/overview");
    const sent = (period: string) => page.getByText(`Sent in the ${period}`).locator("..");
    await expect.poll(() => sent("last 7 days").textContent()).toContain("5");

    await selectOption(page, page.getByRole("combobox", { name: "Campaign" }), "Autumn news", { search: "Autumn" });
    await expect.poll(() => sent("last 7 days").textContent()).toMatch(/Sent in the last 7 days\s*2/);
    expect(new URL(page.url()).searchParams.get("campaign")).toBe(campaign.id);

    await page.getByText("Hourly").click();
    await page.getByRole("figure", { name: "Emails per hour" }).waitFor();
    await selectOption(page, page.getByRole("combobox", { name: "Period" }), "Last 24 hours");
    await expect.poll(() => sent("last 24 hours").textContent()).toMatch(/2/);
    // a day has no daily points: only hours are offered
    expect(await page.getByRole("radio", { name: "Daily" }).isDisabled()).toBe(true);

    // the address holds the view: reloading shows the same
    await page.reload();
    await expect.poll(() => sent("last 24 hours").textContent()).toMatch(/Sent in the last 24 hours\s*2/);
    await page.getByRole("figure", { name: "Emails per hour" }).waitFor();
    expect(await a11yViolations(page)).toEqual([]);
    await page.context().close();
  });

  it("says so when nothing was sent yet", async () => {
    const fresh = await createDashboardUser(await sharedOperator());
    const page = await fx.open("/app/overview", { user: fresh });
    await page.getByText(/Nothing was sent in the last 7 days/).waitFor();
    expect(await page.getByRole("figure").count()).toBe(0);
    expect(await a11yViolations(page)).toEqual([]);
    await page.context().close();
  });
});
