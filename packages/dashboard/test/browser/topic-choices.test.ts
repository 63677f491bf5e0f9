import { beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "@mailroom/testkit";
import { a11yViolations, } from "@mailroom/testkit/browser";
import { uniqueAddress } from "./sent-emails.js";
import { browserAndOwner } from "./fixture.js";
import { pick, selectBox } from "./select.js";

const fx = browserAndOwner({ sending: true, members: ["viewer"] });
/** Opted in unless a contact says otherwise; and opted out unless it says otherwise. */
let news: { id: string; name: string };
let digest: { id: string; name: string };

beforeAll(async () => {
  const created = [];
  for (const t of [
    { name: "Product news", defaultSubscribed: true },
    { name: "Weekly digest", defaultSubscribed: false },
  ]) {
    const res = await fx.api.post("/topics", t);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    created.push(res.body);
  }
  [news, digest] = created;
}, 60_000);

/** Who a topic campaign reaches, from the contacts as the API lists them: subscribed, and opted into the topic by choice or by its default. */
async function optedInSubscribed(topic: { id: string }, defaultSubscribed: boolean): Promise<number> {
  const res = await fx.api.get("/contacts?limit=100");
  expect(res.body.hasMore).toBe(false);
  return res.body.data.filter((c: { subscribed: boolean; topics: Record<string, boolean> }) => c.subscribed && (c.topics[topic.id] ?? defaultSubscribed)).length;
}

describe("topics on the contact page and in the composer", () => {
  it("shows a contact's topics (its choices, else the defaults, marked) and saves a switch's choice; a viewer reads them", async () => {
    const email = uniqueAddress("topics");
    const contact = await fx.api.post("/contacts", { email });
    expect(contact.status).toBe(201);
    const id: string = contact.body.id;
    const page = await fx.open(`/app/contacts/${id}`);
    await page.getByRole("heading", { name: email }).waitFor();

    // No choice yet: each switch shows its topic's default, marked as such.
    const newsSwitch = page.getByRole("switch", { name: news.name });
    const digestSwitch = page.getByRole("switch", { name: digest.name });
    await newsSwitch.waitFor();
    expect(await newsSwitch.isChecked()).toBe(true);
    expect(await digestSwitch.isChecked()).toBe(false);
    expect(await newsSwitch.getAttribute("aria-describedby")).toBeTruthy();
    await expect.poll(() => page.getByText("Default: follows the topic's setting").count()).toBe(2);
    expect(await a11yViolations(page)).toEqual([]);

    // By keyboard: news off, then digest on; the API reads back the two choices only.
    await newsSwitch.focus();
    await page.keyboard.press("Space");
    await expect.poll(async () => (await fx.api.get(`/contacts/${id}`)).body.topics).toEqual({ [news.id]: false });
    await expect.poll(() => newsSwitch.isChecked()).toBe(false);
    await expect.poll(() => page.getByText("Set for this contact").count()).toBe(1);
    await expect.poll(() => digestSwitch.isDisabled()).toBe(false);
    await digestSwitch.focus();
    await page.keyboard.press("Space");
    await expect.poll(async () => (await fx.api.get(`/contacts/${id}`)).body.topics).toEqual({ [news.id]: false, [digest.id]: true });
    await expect.poll(() => digestSwitch.isChecked()).toBe(true);
    await expect.poll(() => page.getByText("Default: follows the topic's setting").count()).toBe(0);
    await page.context().close();

    // A viewer sees the same values, without a switch.
    const view = await fx.open(`/app/contacts/${id}`, { user: fx.viewer });
    await view.getByRole("heading", { name: email }).waitFor();
    await view.getByText(digest.name, { exact: true }).waitFor();
    expect(await view.getByRole("switch").count()).toBe(0);
    expect(await view.getByText("Opted in", { exact: true }).count()).toBe(1);
    expect(await view.getByText("Opted out", { exact: true }).count()).toBe(1);
    expect(await view.getByText("(default)").count()).toBe(0);
    expect(await a11yViolations(view)).toEqual([]);
    await view.context().close();
  });

  it("composes a topic campaign whose live count is the API's opted-in subscribed contacts, and its sent page names the topic", { timeout: 90_000 }, async () => {
    // Digest (default out): in by choice ×3, out by choice, out by default, in by choice but unsubscribed.
    const contacts = [
      ...[1, 2, 3].map(() => ({ email: uniqueAddress("in"), topics: { [digest.id]: true } })),
      { email: uniqueAddress("out"), topics: { [digest.id]: false } },
      { email: uniqueAddress("default") },
      { email: uniqueAddress("gone"), subscribed: false, topics: { [digest.id]: true } },
    ];
    for (const c of contacts) expect((await fx.api.post("/contacts", c)).status).toBe(201);
    const expected = await optedInSubscribed(digest, false);
    expect(expected).toBeGreaterThanOrEqual(3);

    const page = await fx.open("/app/campaigns/new");
    await page.getByRole("textbox", { name: /^Name/ }).fill("Digest #1");
    await page.getByRole("textbox", { name: /^Subject/ }).fill("This week");
    const count = page.getByTestId("recipient-count");
    const subscribed = (await fx.api.get("/contacts?limit=100")).body.data.filter((c: { subscribed: boolean }) => c.subscribed).length;
    await expect.poll(() => count.textContent()).toBe(`${subscribed} recipients (subscribed contacts) right now`);

    await pick(page, /^Topic/, digest.name);
    await expect.poll(() => count.textContent()).toBe(`${expected} recipients (subscribed contacts opted into ${digest.name}) right now`);
    expect(await a11yViolations(page)).toEqual([]);
    // The other topic counts its defaults in.
    await pick(page, /^Topic/, news.name);
    await expect.poll(() => count.textContent()).toMatch(new RegExp(`^${await optedInSubscribed(news, true)} recipients \\(subscribed contacts opted into`));
    await pick(page, /^Topic/, digest.name);

    await page.getByRole("button", { name: "Create draft" }).click();
    await expect.poll(() => new URL(page.url()).pathname).toMatch(/^\/app\/campaigns\/(?!new$)[^/]+$/);
    const campaignId = new URL(page.url()).pathname.split("/").pop()!;
    expect((await fx.api.get(`/campaigns/${campaignId}`)).body).toMatchObject({ topicId: digest.id, type: "ALL", status: "DRAFT" });
    // The saved draft opens with its topic and the same count.
    await page.reload();
    await expect.poll(() => selectBox(page, /^Topic/).inputValue()).toBe(digest.name);
    await expect.poll(() => count.textContent()).toMatch(new RegExp(`^${expected} recipients`));

    // Sent: exactly the counted contacts receive it, and its page names the topic.
    expect((await fx.api.post(`/campaigns/${campaignId}/send`)).status).toBeLessThan(300);
    await waitFor(async () => (await fx.api.get(`/campaigns/${campaignId}`)).body.status === "SENT", { timeoutMs: 30_000, what: "the topic campaign to be sent" });
    expect((await fx.api.get(`/campaigns/${campaignId}`)).body.stats.recipients).toBe(expected);
    // A draft's page does not poll (nothing changes it but this page): read it again.
    await page.reload();
    await page.getByText("SENT", { exact: true }).waitFor();
    await expect.poll(() => page.getByTestId("campaign-topic").textContent()).toMatch(new RegExp(`^Topic: ${digest.name} `));
    expect(await a11yViolations(page)).toEqual([]);
    await page.context().close();
  });
});
