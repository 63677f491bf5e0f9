import { describe, expect, it } from "vitest";
import { a11yViolations, } from "@mailroom/testkit/browser";
import { browserAndOwner } from "./fixture.js";

const fx = browserAndOwner();

describe("the settings page", () => {
  it("turns tracking off and on, and the API says so", async () => {
    const { api } = fx;
    const page = await fx.open("/app/settings");
    const tracking = page.getByRole("switch", { name: "Open and click tracking" });
    await tracking.waitFor();
    expect(await tracking.isChecked()).toBe(true);
    expect(await a11yViolations(page)).toEqual([]);

    await tracking.focus();
    await page.keyboard.press("Space");
    await expect.poll(async () => (await api.get("/settings/sending")).body.tracking).toBe(false);
    await page.reload();
    await page.getByRole("switch", { name: "Open and click tracking" }).waitFor();
    expect(await page.getByRole("switch", { name: "Open and click tracking" }).isChecked()).toBe(false);

    await page.getByRole("switch", { name: "Open and click tracking" }).click();
    await expect.poll(async () => (await api.get("/settings/sending")).body.tracking).toBe(true);
    await page.context().close();
  });
});
