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

// Every page twice at phone width (about 2 s a page on a quiet machine, three times that on a
// loaded one): the backstop is the whole tour's, not one step's.
describe("every dashboard page at a phone's width", () => {
  it("fits a phone's width on every page, in its own font and in a much wider one: wide tables scroll in their own box, the page never scrolls sideways", async () => {
    const wide: Record<string, number> = {};
    for (const widerText of [false, true]) {
      // bypassCSP for the wider pass only: the test's own <style> carries no nonce
      const context = await signedInContext(fx.browser, platform.url, fx.owner, { ...PHONE, bypassCSP: widerText });
      const page = await context.newPage();
      for (const { name, path } of DASHBOARD_PAGES) {
        await page.goto(path(fx.data()));
        if (widerText) await page.addStyleTag({ content: WIDER_TEXT });
        await pageRendered(page);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        if (overflow > 0) wide[widerText ? `${name} (wider text)` : name] = overflow;
      }
      await context.close();
    }
    expect(wide).toEqual({});
  }, 300_000);
});
