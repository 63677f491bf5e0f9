import { describe, expect, it } from "vitest";
import { workerBrowser } from "@mailroom/testkit/browser";

// The browser files of a worker share its Chromium (packages/testkit/src/browser.ts): one that
// crashed must not fail every file the worker runs after it.
describe("the test worker's Chromium", () => {
  it("is one browser for every caller, and one that crashed is replaced by a working one", async () => {
    const first = await workerBrowser();
    expect(await workerBrowser()).toBe(first);

    const gone = new Promise((resolve) => first.once("disconnected", resolve));
    const cdp = await first.newBrowserCDPSession();
    // the browser process dies on its main thread, so the call itself is never answered
    await cdp.send("Browser.crash").catch(() => undefined);
    await gone;

    const next = await workerBrowser();
    expect(next).not.toBe(first);
    expect(next.isConnected()).toBe(true);
    const context = await next.newContext();
    const page = await context.newPage();
    await page.setContent("<h1>still here</h1>");
    expect(await page.getByRole("heading").textContent()).toBe("still here");
    await context.close();
  });
});
