import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { DASHBOARD_PAGES, pageRendered, signedInContext } from "@mailroom/testkit/browser";
import { ownerWithDemoData } from "./demo-tour.js";

const fx = ownerWithDemoData();
const { platform } = fx;

const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };
/**
 * Every text in a monospace face with extra spacing, about a third wider than the dashboard's own:
 * a page that fits a phone only because its typeface is narrow would fail on a machine, or with a
 * user's font settings, that lays text out wider (it once did, by 3 px, on a fresh machine).
 */
const WIDER_TEXT = '*, *::before, *::after { font-family: "DejaVu Sans Mono", "Liberation Mono", monospace !important; letter-spacing: 0.04em !important; }';

// Every page at phone width, measured in its own font and then with the wider one added to the same
// document (about 2 s a page on a quiet machine, three times that on a loaded one): the backstop is
// the whole tour's, not one step's.
describe("every dashboard page at a phone's width", () => {
  it("fits a phone's width on every page, in its own font and in a much wider one: wide tables scroll in their own box, the page never scrolls sideways", async () => {
    const wide: Record<string, number> = {};
    const overflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    // bypassCSP: the test's own <style> carries no nonce
    const context = await signedInContext(fx.browser, platform.url, fx.owner, { ...PHONE, bypassCSP: true });
    const page = await context.newPage();
    for (const { name, path } of DASHBOARD_PAGES) {
      await page.goto(path(fx.data()));
      await pageRendered(page);
      const own = await overflow(page);
      if (own > 0) wide[name] = own;
      await page.addStyleTag({ content: WIDER_TEXT });
      // the wider face's glyphs load before the page is laid out in them
      await page.evaluate("document.fonts.ready.then(() => true)");
      const wider = await overflow(page);
      if (wider > 0) wide[`${name} (wider text)`] = wider;
    }
    await context.close();
    expect(wide).toEqual({});
  }, 300_000);
});
