import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { BrowserContext, Download, Page } from "playwright-core";
import { apiClient } from "@mailroom/testkit";
import { a11yViolations, createDashboardUser, signedInContext, type DashboardUser } from "@mailroom/testkit/browser";
import { browserAndOwner } from "./fixture.js";
import { selectBox, selectOption } from "./select.js";
import { sharedOperator } from "@mailroom/testkit/shared";

const fx = browserAndOwner({ members: ["viewer"] });
const { platform } = fx;
const tag = randomBytes(4).toString("hex");
const ada = `ada-${tag}@example.com`;
const carl = `carl-${tag}@example.com`;
/** Two good rows around a bad address (row 3, as a spreadsheet numbers it). */
const CSV = `email,subscribed,plan,First Name\n${ada},yes,pro,Ada\nnot-an-address,,free,Bad\n${carl},no,,"Carl, Jr."\n`;

/** A signed-in context whose browser has no save picker, so an export goes through a download. */
async function withoutPicker(user: DashboardUser): Promise<BrowserContext> {
  const context = await signedInContext(fx.browser, platform.url, user);
  await context.addInitScript({ content: "delete window.showSaveFilePicker;" });
  return context;
}

async function downloaded(download: Download): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of await download.createReadStream()) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** The Export CSV button clicked, and the file the browser saved. */
async function exportFrom(page: Page): Promise<{ name: string; text: string }> {
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export CSV" }).click()]);
  return { name: download.suggestedFilename(), text: await downloaded(download) };
}


describe("the contact import wizard and export", () => {
  it("previews a CSV's columns, uploads it and follows the import to its counts and the bad row's error", async () => {
    const context = await withoutPicker(fx.owner);
    const page = await context.newPage();
    await page.goto(`${platform.url}/app/contacts`);
    await page.getByRole("link", { name: "Import contacts" }).click();
    await page.getByRole("heading", { name: "Import contacts" }).waitFor();
    expect(await a11yViolations(page)).toEqual([]);

    await page.getByLabel("CSV file").setInputFiles({ name: "people.csv", mimeType: "text/csv", buffer: Buffer.from(CSV) });
    const preview = page.getByRole("table", { name: "Column preview" });
    await preview.waitFor();
    await page.getByText("Email address: column “email”.").waitFor();
    await page.getByText("Stored in each contact's data, under the column's name: “plan”, “First Name”.").waitFor();
    expect(await preview.getByRole("row").count()).toBe(4); // the header and the three rows
    await preview.getByRole("cell", { name: "Carl, Jr." }).waitFor(); // a quoted comma stays in its cell
    expect(await a11yViolations(page)).toEqual([]);

    await page.getByRole("button", { name: "Import people.csv" }).click();
    await expect.poll(() => new URL(page.url()).pathname).toMatch(/^\/app\/contacts\/imports\/[^/]+$/);
    const id = new URL(page.url()).pathname.split("/").pop()!;
    await page.getByText("Completed", { exact: true }).waitFor({ timeout: 30_000 });
    const counts = page.getByRole("table", { name: "Counts" });
    const count = (label: string) => counts.getByRole("row", { name: label }).getByRole("cell").textContent();
    expect([await count("Rows read"), await count("Created"), await count("Updated"), await count("Failed")]).toEqual(["3", "2", "0", "1"]);
    const errorRow = page.getByRole("table", { name: "Row errors" }).getByRole("row").nth(1);
    expect(await errorRow.getByRole("cell").allTextContents()).toEqual(["3", "email: must be a valid email address"]);
    expect(await a11yViolations(page)).toEqual([]);
    // the page shows what the API says
    expect((await fx.api.get(`/contacts/imports/${id}`)).body).toMatchObject({ status: "COMPLETED", rows: 3, created: 2, updated: 0, failed: 1 });

    await page.getByRole("link", { name: "Back to contacts" }).click();
    await page.getByRole("link", { name: ada }).waitFor();
    await page.getByRole("link", { name: carl }).waitFor();
    const stored = (await fx.api.get(`/contacts?search=${encodeURIComponent(carl)}`)).body.data[0];
    expect(stored).toMatchObject({ email: carl, subscribed: false, data: { "First Name": "Carl, Jr." } });
    await context.close();
  });

  it("opts the rows into the topics picked, and with double opt-in on says so and counts who must confirm", async () => {
    const user = await createDashboardUser(await sharedOperator());
    const ownApi = apiClient(platform.url, user.secretKey);
    const topic = (await ownApi.post("/topics", { name: "Release notes" })).body;
    expect((await ownApi.patch("/settings/sending", { doubleOptIn: { enabled: true } })).status).toBe(200);
    const [asks, declines] = [`asks-${tag}@example.com`, `declines-${tag}@example.com`];
    const page = await fx.open("/app/contacts/import", { user: user });
    // Without a subscribed column, the preview says the new contacts are asked, not subscribed.
    await page.getByLabel("CSV file").setInputFiles({ name: "plain.csv", mimeType: "text/csv", buffer: Buffer.from(`email\n${asks}\n`) });
    await page.getByText(/^No subscribed column: new contacts are sent a confirmation email and subscribed once they confirm/).waitFor();
    await page.getByLabel("CSV file").setInputFiles({ name: "list.csv", mimeType: "text/csv", buffer: Buffer.from(`email,subscribed\n${asks},\n${declines},no\n`) });
    await page.getByRole("alert").filter({ hasText: "Double opt-in is on" }).waitFor();
    await selectOption(page, selectBox(page, "Topics"), "Release notes");
    await page.keyboard.press("Escape");
    expect(await a11yViolations(page)).toEqual([]);

    await page.getByRole("button", { name: "Import list.csv" }).click();
    await page.getByText("Completed", { exact: true }).waitFor({ timeout: 30_000 });
    const counts = page.getByRole("table", { name: "Counts" });
    expect(await counts.getByRole("row", { name: "Awaiting confirmation" }).getByRole("cell").textContent()).toBe("1");
    await page.getByText("1 contact was sent a confirmation email").waitFor();
    for (const email of [asks, declines]) {
      const stored = (await ownApi.get(`/contacts?search=${encodeURIComponent(email)}`)).body.data[0];
      expect(stored).toMatchObject({ email, subscribed: false, topics: { [topic.id]: true } });
    }
    await page.context().close();
  });

  it("refuses a file without an email column before uploading it", async () => {
    const context = await withoutPicker(fx.owner);
    const page = await context.newPage();
    const uploads: string[] = [];
    page.on("request", (r) => r.method() === "POST" && r.url().includes("/contacts/imports") && uploads.push(r.url()));
    await page.goto(`${platform.url}/app/contacts/import`);
    await page.getByLabel("CSV file").setInputFiles({ name: "mail.csv", mimeType: "text/csv", buffer: Buffer.from("mail,plan\nx@example.com,pro\n") });
    await page.getByRole("alert").filter({ hasText: "The file has no email column" }).waitFor();
    expect(await page.getByRole("button", { name: /^Import / }).count()).toBe(0);
    expect(uploads).toEqual([]);
    expect(await a11yViolations(page)).toEqual([]);
    await context.close();
  });

  it("exports the contacts and a segment's members as the API's CSV, by download and through the save picker", async () => {
    const context = await withoutPicker(fx.owner);
    const page = await context.newPage();
    await page.goto(`${platform.url}/app/contacts`);
    await page.getByRole("link", { name: ada }).waitFor();
    const all = await exportFrom(page);
    expect(all.name).toMatch(/^contacts-\d{4}-\d{2}-\d{2}\.csv$/);
    expect(all.text).toBe((await fx.api.get("/contacts/export")).body);
    expect(all.text.split("\n").filter((l) => l.startsWith(ada) || l.startsWith(carl))).toHaveLength(2);

    const segment = (await fx.api.post("/segments", { name: "Pros", filters: { logic: "AND", groups: [{ filters: [{ field: "data.plan", operator: "equals", value: "pro" }] }] } })).body;
    await page.goto(`${platform.url}/app/segments/${segment.id}`);
    await page.getByRole("heading", { name: "Pros" }).waitFor();
    const pros = await exportFrom(page);
    expect(pros.name).toMatch(/^pros-\d{4}-\d{2}-\d{2}\.csv$/);
    expect(pros.text).toBe((await fx.api.get(`/contacts/export?segmentId=${segment.id}`)).body);
    expect(pros.text).toContain(ada);
    expect(pros.text).not.toContain(carl);
    await context.close();

    // Where the browser has a save picker, the answer streams into the file the person chose.
    const picking = await signedInContext(fx.browser, platform.url, fx.owner);
    await picking.addInitScript({
      content: `window.showSaveFilePicker = async (options) => {
        window.__saved = { name: options.suggestedName, chunks: [], closed: false };
        return { createWritable: async () => new WritableStream({
          write: (chunk) => { window.__saved.chunks.push(new TextDecoder().decode(chunk)); },
          close: () => { window.__saved.closed = true; },
        }) };
      };`,
    });
    const streamed = await picking.newPage();
    await streamed.goto(`${platform.url}/app/contacts`);
    await streamed.getByRole("link", { name: ada }).waitFor();
    await streamed.getByRole("button", { name: "Export CSV" }).click();
    await expect.poll(() => streamed.evaluate(() => (window as unknown as { __saved?: { closed: boolean } }).__saved?.closed)).toBe(true);
    const saved = await streamed.evaluate(() => (window as unknown as { __saved: { name: string; chunks: string[] } }).__saved);
    expect(saved.name).toMatch(/^contacts-/);
    expect(saved.chunks.join("")).toBe(all.text);
    await picking.close();
  });

  it("shows a viewer the Export button and no Import", async () => {
    const context = await withoutPicker(fx.viewer);
    const page = await context.newPage();
    await page.goto(`${platform.url}/app/contacts`);
    await page.getByRole("link", { name: ada }).waitFor();
    await page.getByRole("button", { name: "Export CSV" }).waitFor();
    expect(await page.getByRole("link", { name: "Import contacts" }).count()).toBe(0);
    expect((await exportFrom(page)).text).toContain(ada);
    await page.goto(`${platform.url}/app/contacts/import`);
    await page.getByText("Importing contacts needs the editor role in this project.").waitFor();
    expect(await page.getByLabel("CSV file").count()).toBe(0);
    await context.close();
  });
});
