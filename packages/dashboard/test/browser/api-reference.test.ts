import { describe, expect, it } from "vitest";
import { browserAndOwner } from "./fixture.js";

const fx = browserAndOwner();
const { platform } = fx;

/**
 * The interactive API reference at /docs has a Content-Security-Policy like the dashboard's
 * (decisions.md §15): scripts and styles only from the gateway, no framing. It must still work as
 * a reference: authorize with a key, try a route, read the answer.
 */
describe("the API reference", () => {
  it("is served under a strict Content-Security-Policy, and trying a route with a key still works", async () => {
    const context = await fx.browser.newContext();
    const page = await context.newPage();
    const refused: string[] = [];
    page.on("console", (m) => {
      if (/Content Security Policy|Refused to/i.test(m.text())) refused.push(m.text());
    });
    await page.addInitScript(() => document.addEventListener("securitypolicyviolation", (e) => console.error(`Refused to load: ${e.violatedDirective} ${e.blockedURI}`)));

    const answer = await page.goto(`${platform.url}/docs`);
    const policy = answer!.headers()["content-security-policy"] ?? "";
    for (const directive of ["default-src 'self'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'", "object-src 'none'", "base-uri 'none'"]) {
      expect(policy).toContain(directive);
    }
    expect(policy).not.toMatch(/unsafe-inline|unsafe-eval/);

    await page.getByRole("button", { name: "Authorize" }).first().click();
    await page.getByLabel("auth-bearer-value").fill(fx.owner.secretKey);
    await page.getByRole("button", { name: "Apply credentials" }).first().click();
    await page.getByRole("button", { name: "Close" }).first().click();
    await page.getByRole("button", { name: /^GET \/contacts List contacts/ }).click();
    await page.getByRole("button", { name: "Try it out" }).click();
    await page.getByRole("button", { name: "Execute" }).click();
    // the live answer's status, as Swagger UI lays it out
    const status = page.locator(".live-responses-table tbody .response-col_status").first();
    await status.waitFor();
    expect((await status.innerText()).trim()).toBe("200");
    expect(refused).toEqual([]);
    await context.close();
  });
});
