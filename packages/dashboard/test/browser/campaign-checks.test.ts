import { beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { a11yViolations } from "@mailroom/testkit/browser";
import { uniqueAddress } from "./sent-emails.js";
import { browserAndOwner } from "./fixture.js";

const fx = browserAndOwner({ sending: true, members: ["viewer"] });
const recipients = Array.from({ length: 3 }, () => uniqueAddress("checks"));

beforeAll(async () => {
  // three subscribed contacts and one unsubscribed: the campaign goes to three
  for (const email of recipients) expect((await fx.api.post("/contacts", { email, subscribed: true })).status).toBe(201);
  expect((await fx.api.post("/contacts", { email: uniqueAddress("gone"), subscribed: false })).status).toBe(201);
}, 60_000);

/** The row of one check in the composer's list, by the API's check name. */
const row = (page: Page, check: string) => page.getByRole("list", { name: "Pre-send checks" }).locator(`li[data-check="${check}"]`);

/** Pre-send checks in the composer and the "Send now" confirmation (decisions.md §18). */
describe("pre-send checks in the campaign composer", () => {
  it("shows each check's status and detail, checks again after a fix, and asks before sending with the recipient count", async () => {
    const created = await fx.api.post("/campaigns", {
      name: "Checked news",
      subject: "News",
      body: '<p>News</p><img src="https://cdn.example.com/a.png">',
      from: fx.from,
      audienceType: "ALL",
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const id: string = created.body.data.id;
    const page = await fx.open(`/app/campaigns/${id}`);

    await page.getByRole("heading", { name: "Pre-send checks" }).waitFor();
    await row(page, "unsubscribe_link").waitFor();
    expect(await row(page, "unsubscribe_link").textContent()).toMatch(/^✕FailUnsubscribe link.*no unsubscribe link/);
    expect(await row(page, "image_alt").textContent()).toMatch(/^!WarningImage alt text1 of 1 image has no alt text/);
    // the fixture's domain has its DKIM key published, and no SPF or DMARC record
    expect(await row(page, "dkim").getAttribute("data-status")).toBe("pass");
    expect(await row(page, "spf").getAttribute("data-status")).toBe("fail");
    expect(await row(page, "html_size").getAttribute("data-status")).toBe("pass");
    expect(await row(page, "spam_score").getAttribute("data-status")).toBe("pass");
    expect(await a11yViolations(page)).toEqual([]);

    // a viewer reads the checks too (the role of reading the campaign), and has nothing to send with
    const viewerPage = await fx.open(`/app/campaigns/${id}`, { user: fx.viewer });
    await row(viewerPage, "unsubscribe_link").waitFor();
    expect(await row(viewerPage, "unsubscribe_link").getAttribute("data-status")).toBe("fail");
    expect(await viewerPage.getByRole("button", { name: "Send now" }).count()).toBe(0);
    await viewerPage.context().close();

    // fixed elsewhere (another tab, the API): "Check again" asks again
    const fixed = await fx.api.patch(`/campaigns/${id}`, { body: '<p>News</p><img src="https://cdn.example.com/a.png" alt="News"><a href="{{ unsubscribeUrl }}">Unsubscribe</a>' });
    expect(fixed.status).toBe(200);
    await page.getByRole("button", { name: "Check again" }).click();
    await expect.poll(() => row(page, "unsubscribe_link").getAttribute("data-status")).toBe("pass");
    expect(await row(page, "image_alt").getAttribute("data-status")).toBe("pass");

    // "Send now" asks first, naming the recipients; Cancel sends nothing
    await page.getByRole("button", { name: "Send now" }).click();
    const dialog = page.getByRole("dialog", { name: "Send Checked news now?" });
    await expect.poll(() => dialog.getByTestId("confirm-recipients").textContent()).toBe("It goes to 3 recipients now, and cannot be called back.");
    await dialog.getByText(/^\d+ pre-send checks? fails?\.$/).waitFor();
    expect(await a11yViolations(page)).toEqual([]);
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "hidden" });
    expect((await fx.api.get(`/campaigns/${id}`)).body.status).toBe("DRAFT");

    const sent = page.waitForResponse((r) => r.url().endsWith(`/campaigns/${id}/send`));
    await page.getByRole("button", { name: "Send now" }).click();
    await dialog.getByRole("button", { name: "Send to 3 recipients" }).click();
    expect((await sent).status()).toBe(200);
    expect(["SENDING", "SENT"]).toContain((await fx.api.get(`/campaigns/${id}`)).body.status);
    await page.context().close();
  });
});
