import { describe, expect, it } from "vitest";
import { a11yViolations, DASHBOARD_PAGES, pageRendered, signedInContext } from "@mailroom/testkit/browser";
import { ownerWithDemoData } from "./demo-tour.js";

// The phone-width tour is a11y-phone.test.ts: the two tours are the longest browser files, and as
// files of their own they run beside each other instead of one after the other.
const fx = ownerWithDemoData();
const { platform } = fx;

// The first test visits every page in turn (about 2 s a page on a quiet machine, three times that
// on a loaded one): its backstop is the whole tour's, not one step's.
describe("accessibility of every dashboard page", () => {
  it("has no serious or critical axe violation on any page, signed in as an owner with data", async () => {
    const context = await signedInContext(fx.browser, platform.url, fx.owner);
    const page = await context.newPage();
    const found: Record<string, unknown> = {};
    for (const { name, path } of DASHBOARD_PAGES) {
      await page.goto(path(fx.data()));
      await pageRendered(page);
      const violations = await a11yViolations(page);
      if (violations.length) found[name] = violations;
    }
    // every page at once, so one run names all the pages that fail
    expect(found).toEqual({});
    await context.close();
  }, 180_000);

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
