import { beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { a11yViolations, } from "@mailroom/testkit/browser";
import { sendEmail, uniqueAddress } from "./sent-emails.js";
import { browserAndOwner } from "./fixture.js";

const fx = browserAndOwner({ sending: true, members: ["viewer"] });
const { platform } = fx;
const to = uniqueAddress("ada");
const other = uniqueAddress("grace");
const subject = "Your receipt";
let contactId: string;

/** Presses Tab until the element focused has `name` as its accessible name (what a keyboard user does). */
async function tabTo(page: Page, name: string, max = 40): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press("Tab");
    const focused = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      if (!el) return "";
      const labelled = el.id ? document.querySelector(`label[for="${el.id}"]`)?.textContent : null;
      return (labelled ?? el.getAttribute("aria-label") ?? el.textContent ?? "").trim();
    });
    if (focused.startsWith(name)) return;
  }
  throw new Error(`${name} not reached with Tab`);
}

/** The data editor started again from the saved contact: nothing to save, and no save running. */
async function editorReset(page: Page): Promise<void> {
  const save = page.getByRole("button", { name: "Save data" });
  await expect.poll(async () => (await save.isDisabled()) && (await save.getAttribute("data-loading")) === null).toBe(true);
}

beforeAll(async () => {
  ({ contactId } = await sendEmail(fx.api, { from: fx.from, to, subject }));
  expect((await fx.api.post("/v1/track", { email: to, event: "signed_up" })).status).toBe(200);
  expect((await fx.api.post("/contacts", { email: other })).status).toBe(201);
});
describe("the Contacts pages", () => {
  it("finds a contact by keyboard alone and shows its email and tracked event", async () => {
    const page = await fx.open("/app/contacts");
    await page.getByRole("link", { name: other }).waitFor();
    expect(await page.getByText("2 contacts").count()).toBe(1);
    expect(await a11yViolations(page)).toEqual([]);

    await tabTo(page, "Search contacts");
    await page.keyboard.type(to.split("@")[0]!);
    await expect.poll(() => page.getByRole("link", { name: other }).count()).toBe(0);
    await page.getByRole("link", { name: to }).waitFor();
    await tabTo(page, to);
    await page.keyboard.press("Enter");

    await page.getByRole("heading", { name: to }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/app/contacts/${contactId}`);
    await page.getByRole("link", { name: subject }).waitFor();
    await page.getByRole("cell", { name: "signed_up" }).waitFor();
    expect(await a11yViolations(page)).toEqual([]);

    await page.getByRole("link", { name: subject }).click();
    await page.getByRole("heading", { name: subject }).waitFor();
    expect(new URL(page.url()).pathname).toMatch(/^\/app\/emails\/.+/);
    await page.context().close();
  });

  it("edits a data key and the subscription, and shows what the API refuses at the form", async () => {
    const page = await fx.open(`/app/contacts/${contactId}`);
    await page.getByRole("heading", { name: to }).waitFor();

    await page.getByRole("button", { name: "Add key" }).click();
    await page.getByRole("textbox", { name: "Key 1", exact: true }).fill("plan");
    await page.getByLabel("Value of plan").fill("42");
    await page.getByRole("button", { name: "Save data" }).click();
    await expect.poll(async () => (await fx.api.get(`/contacts/${contactId}`)).body.data).toEqual({ plan: 42 });
    await editorReset(page);

    // the editor starts again from what was saved: edit the key as text, then remove it
    await page.getByLabel("Value of plan").fill("pro plan");
    await page.getByRole("button", { name: "Save data" }).click();
    await expect.poll(async () => (await fx.api.get(`/contacts/${contactId}`)).body.data).toEqual({ plan: "pro plan" });
    await editorReset(page);

    // refused before sending: an empty key; refused by the API: more data than a contact may hold
    await page.getByRole("button", { name: "Add key" }).click();
    await page.getByRole("button", { name: "Save data" }).click();
    await page.getByText("A key is required").waitFor();
    await page.getByRole("textbox", { name: "Key 2", exact: true }).fill("huge");
    await page.getByLabel("Value of huge").fill("x".repeat(70_000));
    await page.getByRole("button", { name: "Save data" }).click();
    await page.getByRole("alert").filter({ hasText: /larger than/ }).waitFor();
    expect(await a11yViolations(page)).toEqual([]);
    expect((await fx.api.get(`/contacts/${contactId}`)).body.data).toEqual({ plan: "pro plan" });
    await page.getByRole("button", { name: "Remove huge" }).click();

    const toggle = page.getByRole("switch", { name: "Subscribed to marketing email" });
    const before: boolean = (await fx.api.get(`/contacts/${contactId}`)).body.subscribed;
    expect(await toggle.isChecked()).toBe(before);
    await toggle.focus();
    await page.keyboard.press("Space");
    await expect.poll(async () => (await fx.api.get(`/contacts/${contactId}`)).body.subscribed).toBe(!before);
    await expect.poll(() => toggle.isChecked()).toBe(!before);
    await page.context().close();
  });

  it("adds a contact through the modal (a bad address at its field), then deletes it after confirming", async () => {
    const page = await fx.open("/app/contacts");
    await page.getByRole("button", { name: "Add contact" }).click();
    const dialog = page.getByRole("dialog", { name: "Add contact" });
    await dialog.getByLabel(/^Email/).fill("not an address");
    await dialog.getByRole("button", { name: "Add contact" }).click();
    await dialog.getByText("must be a valid email address").waitFor();
    expect(await a11yViolations(page)).toEqual([]);

    const added = uniqueAddress("new");
    await dialog.getByLabel(/^Email/).fill(added);
    await dialog.getByRole("button", { name: "Add contact" }).click();
    await page.getByRole("heading", { name: added }).waitFor();
    const id = new URL(page.url()).pathname.split("/").pop()!;
    expect((await fx.api.get(`/contacts/${id}`)).body.email).toBe(added);

    await page.getByRole("button", { name: "Delete contact" }).click();
    await page.getByRole("dialog", { name: "Delete contact?" }).getByRole("button", { name: "Delete" }).click();
    await page.getByRole("button", { name: "Add contact" }).waitFor();
    expect((await fx.api.get(`/contacts/${id}`)).status).toBe(404);

    // a contact that is gone (or another project's) is "not found", not a broken page
    await page.goto(`${platform.url}/app/contacts/${id}`);
    await page.getByRole("alert").filter({ hasText: "Not found" }).waitFor();
    await page.context().close();
  });

  it("pages forward and back through a search's results, with the total of the first page", async () => {
    const tag = `page${Date.now().toString(36)}`;
    // 30 matches: one full page of 25 and a second of 5
    for (let i = 0; i < 30; i++) expect((await fx.api.post("/contacts", { email: `${tag}-${String(i).padStart(2, "0")}@example.com` })).status).toBe(201);
    const page = await fx.open("/app/contacts");
    await page.getByRole("searchbox", { name: "Search contacts" }).fill(tag);
    await page.getByText("30 contacts found").waitFor();
    const rows = page.getByRole("main").getByRole("cell").filter({ hasText: `${tag}-` });
    await expect.poll(() => rows.count()).toBe(25);
    const first = await rows.allTextContents();

    const pager = page.getByRole("navigation", { name: "Contacts pages" });
    await pager.getByRole("button", { name: "Next" }).click();
    await expect.poll(() => rows.count()).toBe(5);
    const second = await rows.allTextContents();
    expect(second.filter((e) => first.includes(e))).toEqual([]);
    expect(await pager.getByRole("button", { name: "Next" }).isDisabled()).toBe(true);
    // the total stays the first page's, though later pages answer 0
    expect(await page.getByText("30 contacts found").count()).toBe(1);

    await pager.getByRole("button", { name: "Previous" }).click();
    await expect.poll(() => rows.allTextContents()).toEqual(first);
    expect(await pager.getByRole("button", { name: "Previous" }).isDisabled()).toBe(true);
    await page.context().close();
  });

  it("shows a viewer the contact read-only", async () => {
    const page = await fx.open("/app/contacts", { user: fx.viewer });
    await page.getByRole("link", { name: to }).waitFor();
    expect(await page.getByRole("button", { name: "Add contact" }).count()).toBe(0);
    await page.getByRole("link", { name: to }).click();
    await page.getByRole("heading", { name: to }).waitFor();
    await page.getByRole("cell", { name: "plan", exact: true }).waitFor();
    for (const name of ["Delete contact", "Save data", "Add key"]) expect(await page.getByRole("button", { name }).count()).toBe(0);
    expect(await page.getByRole("switch").count()).toBe(0);
    expect(await page.getByRole("textbox").count()).toBe(0);
    expect(await a11yViolations(page)).toEqual([]);
    await page.context().close();
  });
});
