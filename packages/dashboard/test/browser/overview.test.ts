import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Browser } from "playwright-core";
import { waitFor } from "@mailroom/testkit";
import { a11yViolations, createDashboardUser, launchBrowser, signedInContext, type DashboardUser } from "@mailroom/testkit/browser";
import { sendEmail, sendingProject, uniqueAddress } from "./sent-emails.js";

const platform = inject("platform");
let browser: Browser;
let owner: DashboardUser;

beforeAll(async () => {
  browser = await launchBrowser();
  const project = await sendingProject(platform);
  owner = project.owner;
  for (const tag of ["one", "two", "three"]) await sendEmail(project.api, { from: project.from, to: uniqueAddress(tag), subject: `Hello ${tag}` });
  // the counters are kept by a consumer of the email events: wait until it has counted the three sends
  const range = new URLSearchParams({ from: new Date(Date.now() - 86_400_000).toISOString(), to: new Date(Date.now() + 60_000).toISOString(), interval: "day" });
  await waitFor(async () => {
    const res = await project.api.get(`/stats?${range}`);
    return res.body.series.reduce((n: number, p: { sent: number }) => n + p.sent, 0) === 3;
  }, { timeoutMs: 20_000, intervalMs: 200, what: "three sends counted" });
});
afterAll(async () => {
  await browser?.close();
});

describe("the Overview page", () => {
  it("shows the week's sends, the rates over them and the daily chart", async () => {
    const context = await signedInContext(browser, platform.url, owner);
    const page = await context.newPage();
    await page.goto(`${platform.url}/app/overview`);
    const sent = page.getByText("Sent in the last 7 days").locator("..");
    await expect.poll(() => sent.textContent()).toContain("3");
    await page.getByText("Delivery rate").waitFor();
    await page.getByText(/counted over the emails sent/).waitFor();
    await page.getByRole("figure", { name: "Emails per day" }).waitFor();
    expect(await a11yViolations(page)).toEqual([]);

    // by keyboard: from the page to the email log through the menu
    await page.getByRole("link", { name: "Overview" }).focus();
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe("Emails");
    await page.keyboard.press("Enter");
    await page.getByRole("link", { name: "Hello one" }).waitFor();
    await context.close();
  });

  it("says so when nothing was sent yet", async () => {
    const fresh = await createDashboardUser(platform.env);
    const context = await signedInContext(browser, platform.url, fresh);
    const page = await context.newPage();
    await page.goto(`${platform.url}/app/overview`);
    await page.getByText(/Nothing was sent in the last 7 days/).waitFor();
    expect(await page.getByRole("figure").count()).toBe(0);
    expect(await a11yViolations(page)).toEqual([]);
    await context.close();
  });
});
