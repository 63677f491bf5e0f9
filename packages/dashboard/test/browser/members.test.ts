import { describe, expect, it } from "vitest";
import type { BrowserContext } from "playwright-core";
import { sinkMessages, waitFor } from "@mailroom/testkit";
import { a11yViolations, } from "@mailroom/testkit/browser";
import { browserAndOwner } from "./fixture.js";
import { selectOption } from "./select.js";

const fx = browserAndOwner();
const { platform } = fx;

/** The token of the invitation link mailed to `to`. */
async function invitationToken(to: string): Promise<string> {
  let token: string | undefined;
  await waitFor(
    async () => {
      const [message] = await sinkMessages(platform.mailboxUrl, [to]);
      token = message ? /\/app\/invite\?token=([A-Za-z0-9_-]+)/.exec(JSON.stringify(message))?.[1] : undefined;
      return token !== undefined;
    },
    { timeoutMs: 30_000, what: `the invitation to ${to}` },
  );
  return token!;
}

/** A write with the context's session: the same call the pages make. */
async function createContact(context: BrowserContext, email: string) {
  return context.request.post(`${platform.url}/contacts`, {
    data: { email },
    headers: { "x-mailroom-project": fx.owner.projectId, origin: platform.url },
  });
}

describe("members", () => {
  it("invites a viewer who accepts in another browser, sees nothing to change, and is refused a write", async () => {
    const page = await fx.open("/app/members");
    const ownerContext = page.context();
    await page.getByRole("table", { name: "Members" }).waitFor();
    expect(await a11yViolations(page)).toEqual([]);

    const invited = `viewer-${Date.now().toString(36)}@example.com`;
    const form = page.getByRole("form", { name: "Invite a member" });
    await form.getByRole("textbox", { name: /^Email/ }).fill(invited);
    await selectOption(page, form.getByLabel("Role", { exact: true }), "Viewer");
    await form.getByRole("button", { name: "Invite" }).click();
    const pendingRow = page.getByRole("row").filter({ hasText: invited });
    await pendingRow.getByText("Invitation pending").waitFor();

    // the invitee, in a browser of their own
    const token = await invitationToken(invited);
    const guest = await fx.browser.newContext();
    const guestPage = await guest.newPage();
    await guestPage.goto(`${platform.url}/app/invite?token=${token}`);
    await guestPage.getByRole("textbox", { name: /^Name/ }).fill("Vera Viewer");
    await guestPage.getByLabel(/^Password/).fill("a long enough password");
    expect(await a11yViolations(guestPage)).toEqual([]);
    await guestPage.getByRole("button", { name: /accept|join/i }).click();
    await guestPage.getByRole("navigation", { name: "Main" }).waitFor();

    // nothing to change on the pages a viewer opens
    await guestPage.goto(`${platform.url}/app/members`);
    await guestPage.getByRole("table", { name: "Members" }).waitFor();
    expect(await guestPage.getByRole("form", { name: "Invite a member" }).count()).toBe(0);
    expect(await guestPage.getByRole("button", { name: /^Remove / }).count()).toBe(0);
    await guestPage.goto(`${platform.url}/app/settings`);
    await guestPage.getByRole("switch", { name: "Open and click tracking" }).waitFor();
    expect(await guestPage.getByRole("switch", { name: "Open and click tracking" }).isDisabled()).toBe(true);
    await guestPage.goto(`${platform.url}/app/api-keys`);
    await guestPage.getByText("Only a project's owners can see and manage its API keys.").waitFor();
    expect(await guestPage.getByRole("button", { name: "Create key" }).count()).toBe(0);

    // and the API refuses the viewer's write whatever the page shows, while the owner's goes through
    const refused = await createContact(guest, "nope@example.com");
    expect(refused.status()).toBe(403);
    expect((await refused.json()).error).toBe("FORBIDDEN");
    expect((await createContact(ownerContext, "yes@example.com")).status()).toBe(201);

    // the owner sees the member now, and makes them an editor
    await page.reload();
    const memberRow = page.getByRole("row").filter({ hasText: invited });
    await memberRow.getByText("Vera Viewer").waitFor();
    await selectOption(page, memberRow.getByLabel(`Role of ${invited}`, { exact: true }), "Editor");
    await expect.poll(async () => (await createContact(guest, `now-${Date.now()}@example.com`)).status(), { timeout: 10_000 }).toBe(201);

    await guest.close();
    await ownerContext.close();
  });

  it("explains that the last owner cannot be removed", async () => {
    const page = await fx.open("/app/members");
    await page.getByRole("button", { name: `Remove ${fx.owner.email}` }).click();
    await page.getByRole("dialog", { name: "Remove this member?" }).getByRole("button", { name: "Remove" }).click();
    await page.getByText(/at least one owner: make another member owner first/).first().waitFor();
    await page.context().close();
  });
});
