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

  it("caps marketing mail: on with a limit, the limit changed, then off, and the API says so each time", async () => {
    const { api } = fx;
    const page = await fx.open("/app/settings");
    const cap = page.getByRole("switch", { name: "Frequency cap" });
    await cap.waitFor();
    expect(await cap.isChecked()).toBe(false);

    await cap.click();
    await expect.poll(async () => (await api.get("/settings/sending")).body.frequencyCap).toEqual({ max: 3, days: 7 });
    const max = page.getByRole("textbox", { name: "Emails at most" });
    await max.fill("5");
    await page.getByRole("textbox", { name: "In days" }).fill("30");
    await page.getByRole("button", { name: "Save cap" }).click();
    await expect.poll(async () => (await api.get("/settings/sending")).body.frequencyCap).toEqual({ max: 5, days: 30 });
    expect(await a11yViolations(page)).toEqual([]);

    await page.reload();
    await page.getByRole("textbox", { name: "Emails at most" }).waitFor();
    expect(await page.getByRole("textbox", { name: "Emails at most" }).inputValue()).toBe("5");
    await page.getByRole("switch", { name: "Frequency cap" }).click();
    await expect.poll(async () => (await api.get("/settings/sending")).body.frequencyCap).toBeNull();
    await page.context().close();
  });
});
