import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Browser } from "playwright-core";
import { runCli } from "@mailroom/testkit";
import {
  a11yViolations,
  createDashboardUser,
  DASHBOARD_PAGES,
  type DashboardUser,
  type DemoData,
  demoData,
  launchBrowser,
  pageRendered,
  signedInContext,
} from "@mailroom/testkit/browser";

const platform = inject("platform");
let browser: Browser;
let owner: DashboardUser;
let data: DemoData;

beforeAll(async () => {
  [browser, owner] = await Promise.all([launchBrowser(), createDashboardUser(platform.env)]);
  // the operator's override: the test DNS server publishes no records for this project's domain
  await runCli(["domains", "verify", "--project", owner.projectId, "--domain", "example.com"], platform.env);
  data = await demoData(platform.url, owner.secretKey, { from: "hello@example.com" });
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

// The first two tests visit every page in turn (about 2 s a page on a quiet machine, three times
// that on a loaded one): their backstop is the whole tour's, not one step's.
describe("accessibility of every dashboard page", () => {
  it("has no serious or critical axe violation on any page, signed in as an owner with data", async () => {
    const context = await signedInContext(browser, platform.url, owner);
    const page = await context.newPage();
    const found: Record<string, unknown> = {};
    for (const { name, path } of DASHBOARD_PAGES) {
      await page.goto(path(data));
      await pageRendered(page);
      const violations = await a11yViolations(page);
      if (violations.length) found[name] = violations;
    }
    // every page at once, so one run names all the pages that fail
    expect(found).toEqual({});
    await context.close();
  }, 180_000);

  it("fits a phone's width on every page: wide tables scroll in their own box, the page never scrolls sideways", async () => {
    const context = await signedInContext(browser, platform.url, owner, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const page = await context.newPage();
    const wide: Record<string, number> = {};
    for (const { name, path } of DASHBOARD_PAGES) {
      await page.goto(path(data));
      await pageRendered(page);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      if (overflow > 0) wide[name] = overflow;
    }
    expect(wide).toEqual({});
    await context.close();
  }, 180_000);

  it("signs in with the keyboard alone and reaches every navbar link with Tab", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${platform.url}/app/sign-in`);
    await page.getByRole("button", { name: "Sign in" }).waitFor();
    // Tab from the top of the document until the email field has the focus
    const email = page.getByRole("textbox", { name: /^Email/ });
    for (let i = 0; i < 10 && !(await email.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press("Tab");
    await expect.poll(() => email.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.type(owner.email);
    await page.keyboard.press("Tab");
    await page.keyboard.type(owner.password);
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
    await expect.poll(() => new URL(page.url()).pathname).toBe("/app/contacts");
    await context.close();
  });
});
