import { beforeAll, describe, expect, it } from "vitest";
import { verifyDomain } from "@mailroom/testkit";
import {
  a11yViolations,
  DASHBOARD_PAGES,
  type DemoData,
  demoData,
  pageRendered,
  signedInContext,
} from "@mailroom/testkit/browser";
import { browserAndOwner } from "./fixture.js";

const fx = browserAndOwner();
const { platform } = fx;
let data: DemoData;

beforeAll(async () => {
  // the operator's override: the test DNS server publishes no records for this project's domain
  await verifyDomain(platform.env, fx.owner.projectId, "example.com");
  data = await demoData(platform.url, fx.owner.secretKey, { from: "hello@example.com" });
}, 60_000);

const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };
/**
 * Every text in a monospace face with extra spacing, about a third wider than the dashboard's own:
 * a page that fits a phone only because its typeface is narrow would fail on a machine, or with a
 * user's font settings, that lays text out wider (it once did, by 3 px, on a fresh machine).
 */
const WIDER_TEXT = '*, *::before, *::after { font-family: "DejaVu Sans Mono", "Liberation Mono", monospace !important; letter-spacing: 0.04em !important; }';

// The first two tests visit every page in turn (about 2 s a page on a quiet machine, three times
// that on a loaded one; the second test does so twice): their backstop is the whole tour's, not one step's.
describe("accessibility of every dashboard page", () => {
  it("has no serious or critical axe violation on any page, signed in as an owner with data", async () => {
    const context = await signedInContext(fx.browser, platform.url, fx.owner);
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

  it("fits a phone's width on every page, in its own font and in a much wider one: wide tables scroll in their own box, the page never scrolls sideways", async () => {
    const wide: Record<string, number> = {};
    for (const widerText of [false, true]) {
      // bypassCSP for the wider pass only: the test's own <style> carries no nonce
      const context = await signedInContext(fx.browser, platform.url, fx.owner, { ...PHONE, bypassCSP: widerText });
      const page = await context.newPage();
      for (const { name, path } of DASHBOARD_PAGES) {
        await page.goto(path(data));
        if (widerText) await page.addStyleTag({ content: WIDER_TEXT });
        await pageRendered(page);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        if (overflow > 0) wide[widerText ? `${name} (wider text)` : name] = overflow;
      }
      await context.close();
    }
    expect(wide).toEqual({});
  }, 300_000);

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
