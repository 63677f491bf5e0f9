import { describe, expect, it } from "vitest";
import { signIn } from "@mailroom/testkit/browser";
import { browserAndOwner } from "./fixture.js";

const fx = browserAndOwner();
const { platform } = fx;

describe("a session that ends while the app is open", () => {
  it("returns to sign-in, and after signing in again to the page the user was on", async () => {
    const context = await fx.browser.newContext();
    const page = await context.newPage();
    await signIn(page, platform.url, fx.owner);
    await page.goto(`${platform.url}/app/members`);
    await page.getByRole("table", { name: "Members" }).waitFor();

    // revoked on the server (as an expiry or a sign-out elsewhere would end it)
    const [cookie] = (await context.cookies()).filter((c) => c.name === "mailroom_session");
    const out = await fetch(`${platform.url}/auth/logout`, { method: "POST", headers: { cookie: `mailroom_session=${cookie!.value}`, origin: platform.url } });
    expect(out.status).toBe(204);

    // the next call the page makes is a 401: back to sign-in, remembering where the user was
    await page.getByRole("link", { name: "Settings" }).click();
    await page.getByRole("button", { name: "Sign in" }).waitFor();
    expect(new URL(page.url()).searchParams.get("next")).toMatch(/settings/);
    await page.getByRole("textbox", { name: /^Email/ }).fill(fx.owner.email);
    await page.getByLabel(/^Password/).fill(fx.owner.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("switch", { name: "Open and click tracking" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/app/settings");
    await context.close();
  });
});
