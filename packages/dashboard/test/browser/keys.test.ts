import { describe, expect, it } from "vitest";
import { apiClient, waitFor } from "@mailroom/testkit";
import { a11yViolations, } from "@mailroom/testkit/browser";
import { browserAndOwner } from "./fixture.js";

const fx = browserAndOwner();
const { platform } = fx;

describe("the API keys page", () => {
  it("creates a key by keyboard alone, shows it once, and revoking it makes the API refuse it", async () => {
    const page = await fx.open("/app/api-keys");
    await page.getByRole("table", { name: "API keys" }).waitFor();
    expect(await a11yViolations(page)).toEqual([]);

    await page.getByRole("button", { name: "Create key" }).focus();
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog", { name: "Create an API key" });
    await dialog.waitFor();
    await page.getByLabel("Name").focus();
    await page.keyboard.type("Backend");
    await page.keyboard.press("Enter");
    const shown = page.getByLabel("New API key");
    await shown.waitFor();
    expect(await a11yViolations(page)).toEqual([]);
    const key = (await shown.textContent())!.trim();
    expect(key).toMatch(/^sk_[A-Za-z0-9_-]{43}$/);
    await page.getByRole("button", { name: "Done" }).click();

    // shown once: the list has the prefix only
    const row = page.getByRole("row").filter({ hasText: "Backend" });
    await row.waitFor();
    expect(await page.getByText(key).count()).toBe(0);
    expect(await apiClient(platform.url, key).get("/contacts")).toMatchObject({ status: 200 });

    await row.getByRole("button", { name: "Revoke Backend" }).click();
    await page.getByRole("dialog", { name: "Revoke this key?" }).getByRole("button", { name: "Revoke key" }).click();
    await row.getByText(/^Revoked/).waitFor();
    await waitFor(async () => (await apiClient(platform.url, key).get("/contacts")).status === 401, { timeoutMs: 5000, what: "the revoked key refused" });
    await page.context().close();
  });

  it("shows a bad rate limit at its field and creates nothing", async () => {
    const page = await fx.open("/app/api-keys");
    const context = page.context();
    await page.getByRole("button", { name: "Create key" }).click();
    await page.getByLabel("Name").fill("Too fast");
    await page.getByLabel(/^Rate limit/).fill("1000000");
    await page.getByRole("dialog").getByRole("button", { name: "Create key" }).click();
    await page.getByText(/less than or equal to 100000|too big|100000/i).waitFor();
    const listed = await context.request.get(`${platform.url}/projects/${fx.owner.projectId}/keys`, { headers: { "x-mailroom-project": fx.owner.projectId } });
    expect((await listed.json()).data.map((k: { name: string }) => k.name)).not.toContain("Too fast");
    await context.close();
  });
});
