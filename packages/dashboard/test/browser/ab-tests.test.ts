import { beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { a11yViolations, } from "@mailroom/testkit/browser";
import { uniqueAddress } from "./sent-emails.js";
import { browserAndOwner } from "./fixture.js";
import { pick, selectBox } from "./select.js";

const fx = browserAndOwner({ sending: true });

beforeAll(async () => {
  // four recipients: a 50 % sample is one per variant, the other two get the winner
  for (let i = 0; i < 4; i++) expect((await fx.api.post("/contacts", { email: uniqueAddress("ab"), subscribed: true })).status).toBe(201);
}, 60_000);
const box = (page: Page, name: string | RegExp) => page.getByRole("textbox", { name });
/** A Mantine Select, whichever role its input has. */

/**
 * The composer's variant editor and a sent A/B campaign's results. The test platform's minute
 * lasts a second (CAMPAIGNS_AB_MINUTE_MS), so the 5-minute wait is 5 s.
 */
describe("A/B tests in the Campaigns pages", () => {
  it("composes an A/B campaign, reads it back, sends it and shows each variant's results with the winner", { timeout: 120_000 }, async () => {
    const page = await fx.open("/app/campaigns/new");
    await box(page, /^Name/).fill("Subject test");
    await box(page, /^Subject/).fill("Spring is here");

    await page.getByRole("switch", { name: /^A\/B test/ }).check();
    // two variants to start with, the first with the campaign's subject
    expect(await box(page, /^Variant A subject/).inputValue()).toBe("Spring is here");
    // an empty variant subject is refused at its field, by the same schema the API checks
    await page.getByRole("button", { name: "Create draft" }).click();
    await expect.poll(() => box(page, /^Variant B subject/).getAttribute("aria-invalid")).toBe("true");
    await box(page, /^Variant B subject/).fill("Don't miss spring");
    await page.getByRole("checkbox", { name: /^Variant B has a body of its own/ }).check();
    await box(page, /^Variant B body/).fill("<p>Version B</p>");
    // a third, then removed again: back to two
    await page.getByRole("button", { name: "Add variant" }).click();
    await box(page, /^Variant C subject/).fill("Third");
    await page.getByRole("button", { name: "Remove variant C" }).click();
    await expect.poll(() => box(page, /^Variant C subject/).count()).toBe(0);
    await page.getByRole("textbox", { name: /^Sample/ }).fill("50");
    await pick(page, /^Winner by/, "Click rate");
    await page.getByRole("textbox", { name: /^Wait/ }).fill("5");
    expect(await a11yViolations(page)).toEqual([]);
    await page.getByRole("button", { name: "Create draft" }).click();
    await expect.poll(() => new URL(page.url()).pathname).toMatch(/^\/app\/campaigns\/(?!new$)[^/]+$/);
    const id = new URL(page.url()).pathname.split("/").pop()!;
    expect((await fx.api.get(`/campaigns/${id}`)).body).toMatchObject({
      variants: [{ subject: "Spring is here" }, { subject: "Don't miss spring", body: "<p>Version B</p>" }],
      abTest: { samplePercent: 50, metric: "clicked", waitMinutes: 5 },
      winnerVariant: null,
    });

    // read back after a reload
    await page.reload();
    await box(page, /^Variant B subject/).waitFor();
    expect(await page.getByRole("switch", { name: /^A\/B test/ }).isChecked()).toBe(true);
    expect(await box(page, /^Variant A subject/).inputValue()).toBe("Spring is here");
    expect(await box(page, /^Variant B body/).inputValue()).toBe("<p>Version B</p>");
    expect(await page.getByRole("checkbox", { name: /^Variant A has a body of its own/ }).isChecked()).toBe(false);
    expect(await page.getByRole("textbox", { name: /^Sample/ }).inputValue()).toBe("50");
    expect(await selectBox(page, /^Winner by/).inputValue()).toBe("Click rate");

    // sent: the table of variants fills, the wait's end is shown, then the winner (no clicks: a tie, so A)
    // by keyboard: the lazily loaded editor and preview can still move the button under a pointer
    const sent = page.waitForResponse((r) => r.url().endsWith(`/campaigns/${id}/send`));
    await page.getByRole("button", { name: "Send now" }).focus();
    await page.keyboard.press("Enter");
    // it asks first, naming the four recipients
    await page.getByRole("dialog", { name: "Send Subject test now?" }).getByRole("button", { name: "Send to 4 recipients" }).click();
    expect((await sent).status()).toBe(200);
    const table = page.getByRole("table", { name: "Results per variant" });
    await table.waitFor({ timeout: 30_000 });
    await page.getByTestId("ab-state").filter({ hasText: /is picked at/ }).waitFor({ timeout: 30_000 });
    const rows = table.getByRole("row");
    await expect.poll(async () => (await rows.nth(2).getByRole("cell").allTextContents()).slice(1, 4), { timeout: 20_000 }).toEqual(["Don't miss spring", "1", "1"]);
    await page.getByText("SENT", { exact: true }).waitFor({ timeout: 60_000 });
    await page.getByTestId("ab-state").filter({ hasText: "Variant A won on click rate" }).waitFor();
    expect(await rows.nth(1).getByRole("cell").first().textContent()).toMatch(/^A\s*Winner$/);
    expect(await rows.nth(2).getByRole("cell").first().textContent()).toBe("B ");
    expect((await fx.api.get(`/campaigns/${id}`)).body).toMatchObject({ status: "SENT", winnerVariant: 0, stats: { recipients: 4, sent: 4 } });
    expect(await a11yViolations(page)).toEqual([]);
    await page.context().close();
  });
});
