import { describe, expect, it } from "vitest";
import { a11yViolations, signIn, signedInContext } from "@mailroom/testkit/browser";
import { browserAndOwner } from "./fixture.js";

const fx = browserAndOwner();
const { platform } = fx;

describe("signing in to the dashboard", () => {
  it("sends / to the app, and a signed-out visitor to sign-in, then back to the page asked for", async () => {
    const page = await fx.open("/", { user: null });
    await page.getByRole("button", { name: "Sign in" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/app/sign-in");
    expect(await a11yViolations(page)).toEqual([]);

    await page.goto(`${platform.url}/app/emails`);
    await page.getByRole("textbox", { name: /^Email/ }).fill(fx.owner.email);
    await page.getByLabel(/^Password/).fill(fx.owner.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("navigation", { name: "Main" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/app/emails");
    await page.context().close();
  });

  it("shows a wrong password at the form and lets the right one in, by keyboard alone", async () => {
    const page = await fx.open("/app/sign-in", { user: null });
    await page.getByRole("textbox", { name: /^Email/ }).focus();
    await page.keyboard.type(fx.owner.email);
    await page.keyboard.press("Tab");
    await page.keyboard.type("not the password");
    await page.keyboard.press("Enter");
    await expect.poll(() => page.getByRole("alert").filter({ hasText: /password/i }).count()).toBeGreaterThan(0);
    expect(await a11yViolations(page)).toEqual([]);

    await page.getByLabel(/^Password/).fill(fx.owner.password);
    await page.getByLabel(/^Password/).press("Enter");
    await page.getByRole("navigation", { name: "Main" }).waitFor();
    expect(await a11yViolations(page)).toEqual([]);
    await page.context().close();
  });

  it("signs out: back to sign-in, and the old cookie no longer opens a session", async () => {
    const context = await fx.browser.newContext();
    const page = await context.newPage();
    await signIn(page, platform.url, fx.owner);
    const [cookie] = (await context.cookies()).filter((c) => c.name === "mailroom_session");
    expect(cookie).toBeDefined();

    await page.getByRole("button", { name: new RegExp(fx.owner.email.split("@")[0]!, "i") }).click();
    await page.getByRole("menuitem", { name: "Sign out", exact: true }).click();
    await page.getByRole("button", { name: "Sign in" }).waitFor();

    const me = await fetch(`${platform.url}/auth/me`, { headers: { cookie: `mailroom_session=${cookie!.value}` } });
    expect(me.status).toBe(401);
    await context.close();
  });

  it("signs out everywhere: every browser signed in as the user is signed out, not only this one", async () => {
    const here = await fx.browser.newContext();
    const page = await here.newPage();
    await signIn(page, platform.url, fx.owner);
    // the same account signed in elsewhere (another browser, a lost laptop)
    const elsewhere = await signedInContext(fx.browser, platform.url, fx.owner);
    const cookieOf = async (c: typeof here) => (await c.cookies()).find((k) => k.name === "mailroom_session")!.value;
    const me = (cookie: string) => fetch(`${platform.url}/auth/me`, { headers: { cookie: `mailroom_session=${cookie}` } });
    const [mine, theirs] = [await cookieOf(here), await cookieOf(elsewhere)];
    expect((await me(theirs)).status).toBe(200);

    await page.getByRole("button", { name: new RegExp(fx.owner.email.split("@")[0]!, "i") }).click();
    await page.getByRole("menuitem", { name: "Sign out everywhere" }).click();
    await page.getByRole("button", { name: "Sign in" }).waitFor();

    expect((await me(mine)).status).toBe(401);
    expect((await me(theirs)).status).toBe(401);
    await here.close();
    await elsewhere.close();
  });
});

