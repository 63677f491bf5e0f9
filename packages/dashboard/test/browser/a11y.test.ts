import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { a11yViolations, DASHBOARD_PAGES, pageRendered, signedInContext } from "@mailroom/testkit/browser";
import { ownerWithDemoData } from "./demo-tour.js";

// The phone-width tour is a11y-phone.test.ts: the two tours are the longest browser files, and as
// files of their own they run beside each other instead of one after the other.
const fx = ownerWithDemoData();
const { platform } = fx;

// One test a page, in one signed-in tab: each page has its own bound (about 2 s on a quiet machine,
// three times that on a loaded one), where one test for the whole tour had to outlast every page
// at once and, as pages were added, came within seconds of its backstop on a loaded machine.
describe("accessibility of every dashboard page", () => {
  let context: BrowserContext;
  let page: Page;
  beforeAll(async () => {
    context = await signedInContext(fx.browser, platform.url, fx.owner);
    page = await context.newPage();
  });
  afterAll(() => context?.close());

  for (const { name, path } of DASHBOARD_PAGES) {
    it(`has no serious or critical axe violation on the ${name} page, signed in as an owner with data`, async () => {
      await page.goto(path(fx.data()));
      await pageRendered(page);
      expect(await a11yViolations(page)).toEqual([]);
    });
  }

  it("signs in with the keyboard alone and reaches every navbar link with Tab", async () => {
    const context = await fx.browser.newContext();
    const page = await context.newPage();
    await page.goto(`${platform.url}/app/sign-in`);
    await page.getByRole("button", { name: "Sign in" }).waitFor();
    // Tab from the top of the document until the email field has the focus
    const email = page.getByRole("textbox", { name: /^Email/ });
    for (let i = 0; i < 10 && !(await email.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press("Tab");
    await expect.poll(() => email.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.type(fx.owner.email);
    await page.keyboard.press("Tab");
    await page.keyboard.type(fx.owner.password);
    await page.keyboard.press("Enter");
    const nav = page.getByRole("navigation", { name: "Main" });
    await nav.waitFor();

    const links = await nav.getByRole("link").allTextContents();
    expect(links.length).toBeGreaterThanOrEqual(8);
    const reached = new Set<string>();
    // a generous bound: the header's controls come before the navbar, each page's after it
    for (let i = 0; i < 60 && reached.size < links.length; i++) {
      await page.keyboard.press("Tab");
      const focused = await page.evaluate(() => {
        const el = document.activeElement;
        return el?.closest("nav") && el.tagName === "A" ? (el.textContent ?? "") : null;
      });
      if (focused !== null) reached.add(focused);
    }
    expect([...reached].sort()).toEqual([...links].sort());

    // and Enter on the focused link opens its page
    await nav.getByRole("link", { name: "Contacts" }).focus();
    await page.keyboard.press("Enter");
    // the area's code loads before the address changes: on a loaded machine that is seconds
    await expect.poll(() => new URL(page.url()).pathname, { timeout: 15_000 }).toBe("/app/contacts");
    await context.close();
  });
});
