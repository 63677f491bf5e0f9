import { describe, expect, it } from "vitest";
import type { Locator, Page } from "playwright-core";
import { a11yViolations, } from "@mailroom/testkit/browser";
import { browserAndOwner } from "./fixture";
import { selectBox, selectOption } from "./select.js";

const fx = browserAndOwner({ members: ["viewer"] });

/** The contacts the segment is built over: which of them it should hold is worked out below. */
const CONTACTS = [
  { email: "pro-signup@example.com", data: { plan: "pro" }, signup: true }, // group 1 (nested: signed up)
  { email: "pro-senior@example.com", data: { plan: "pro", age: 40 }, signup: false }, // group 1 (nested: age > 30)
  { email: "pro-unsub@example.com", subscribed: false, data: { plan: "pro" }, signup: true }, // group 1
  { email: "pro-young@example.com", data: { plan: "pro", age: 20 }, signup: false }, // neither nested branch
  { email: "free-signup@example.com", data: { plan: "free" }, signup: true }, // no group
  { email: "team@example.com", data: { plan: "team" }, signup: false }, // group 2
];
const EXPECTED = {
  logic: "OR",
  groups: [
    {
      filters: [{ field: "data.plan", operator: "equals", value: "pro" }],
      conditions: {
        logic: "OR",
        groups: [{ filters: [{ field: "event.signup", operator: "triggered" }] }, { filters: [{ field: "data.age", operator: "greaterThan", value: 30 }] }],
      },
    },
    { filters: [{ field: "data.plan", operator: "equals", value: "team" }] },
  ],
};

/** A Mantine Select (or Autocomplete) of `scope` set to `option` from its dropdown. */
const choose = (page: Page, scope: Locator, label: string, option: string) => selectOption(page, selectBox(scope, label, true), option, { exact: true });

const filterRow = (page: Page, name: string) => page.getByRole("group", { name, exact: true });
const count = (page: Page) => page.getByRole("status", { name: "Matching contacts" });

/** The live count once settled (no count under way), as its number. */
async function settledCount(page: Page): Promise<number> {
  await expect.poll(() => count(page).getAttribute("data-settled")).toBe("true");
  const text = (await count(page).textContent()) ?? "";
  const m = text.match(/^(\d+) contacts? match/);
  if (!m) throw new Error(`no count in "${text}"`);
  return Number(m[1]);
}

describe("the Segments area", () => {
  it("builds a segment of two groups with nested OR conditions whose live count is the saved memberCount; a bad value shows at its field", async () => {
    const { api } = fx;
    for (const { signup, ...c } of CONTACTS) {
      expect((await api.post("/contacts", c)).status).toBeLessThan(300);
      if (signup) expect((await api.post("/v1/track", { email: c.email, event: "signup" })).status).toBe(200);
    }
    expect((await api.post("/segments/count", { filters: EXPECTED })).body).toEqual({ count: 4 });

    const page = await fx.open("/app/segments");
    await page.getByText("No segments yet.").waitFor();
    expect(await a11yViolations(page)).toEqual([]);
    await page.getByRole("link", { name: "New segment" }).click();
    await page.getByRole("textbox", { name: /^Name/ }).fill("Pro or team");

    // Group 1: data.plan equals "pro" (the starter filter, turned into a data filter)
    const g1f1 = filterRow(page, "Group 1 filter 1");
    await choose(page, g1f1, "Field", "Contact data");
    await g1f1.getByRole("combobox", { name: "Data key" }).fill("plan");
    await choose(page, g1f1, "Type", "Text");
    await g1f1.getByRole("textbox", { name: "Value" }).fill("pro");

    // … and its nested conditions: signed up OR age > 30
    await page.getByRole("button", { name: "Add nested conditions to Group 1" }).click();
    const n1 = filterRow(page, "Group 1.1 filter 1");
    await choose(page, n1, "Field", "Event");
    await n1.getByRole("combobox", { name: "Event name" }).fill("signup");
    await page.getByRole("button", { name: "Add group in the conditions of Group 1" }).click();
    const n2 = filterRow(page, "Group 1.2 filter 1");
    await choose(page, n2, "Field", "Contact data");
    await n2.getByRole("combobox", { name: "Data key" }).fill("age");
    await choose(page, n2, "Operator", "greater than");
    await choose(page, n2, "Type", "Number");
    // a value that is not a number is refused at its field, and nothing is counted meanwhile
    await n2.getByRole("textbox", { name: "Value" }).fill("thirty");
    await n2.getByText("Enter a number").waitFor();
    await count(page).getByText("Complete the filter to see how many match.").waitFor();
    expect(await n2.getByRole("textbox", { name: "Value" }).getAttribute("aria-invalid")).toBe("true");
    await n2.getByRole("textbox", { name: "Value" }).fill("30");
    await expect.poll(() => n2.getByText("Enter a number").count()).toBe(0);

    // Group 2: data.plan equals "team"; the groups are ORed
    await choose(page, page.getByRole("form", { name: "Segment" }), "Join groups with", "OR: any group matches");
    await page.getByRole("button", { name: "Add group", exact: true }).click();
    const g2 = filterRow(page, "Group 2 filter 1");
    await choose(page, g2, "Field", "Contact data");
    await g2.getByRole("combobox", { name: "Data key" }).fill("plan");
    await g2.getByRole("textbox", { name: "Value" }).fill("team");

    await expect.poll(() => settledCount(page)).toBe(4);
    expect(await a11yViolations(page)).toEqual([]);
    await page.getByRole("button", { name: "Save" }).click();
    await expect.poll(() => new URL(page.url()).pathname).toMatch(/^\/app\/segments\/(?!new$)[^/]+$/);
    const id = decodeURIComponent(new URL(page.url()).pathname.split("/").pop()!);

    const saved = (await api.get(`/segments/${id}`)).body;
    expect(saved).toMatchObject({ name: "Pro or team", trackMembership: false, filters: EXPECTED });
    // the saved segment's page counts its filter again: the builder's count is the API's memberCount
    expect(await settledCount(page)).toBe(saved.memberCount);
    expect(saved.memberCount).toBe(4);

    // the members, each linking to its contact
    const members = page.getByRole("table", { name: "Members" });
    await expect.poll(() => members.getByRole("link").count()).toBe(4);
    const link = members.getByRole("link", { name: "team@example.com" });
    const contactId = (await api.get("/contacts?search=team@example.com")).body.data[0].id;
    expect(await link.getAttribute("href")).toBe(`/app/contacts/${contactId}`);
    expect(await a11yViolations(page)).toEqual([]);

    await page.goto(`${fx.platform.url}/app/segments`);
    const row = page.getByRole("table", { name: "Segments" }).getByRole("row").filter({ hasText: "Pro or team" });
    await row.getByText("Not tracked").waitFor();
    expect(await row.getByRole("cell").allTextContents()).toEqual(expect.arrayContaining(["Pro or team", saved.slug, "4"]));
    await page.context().close();
  });

  it("shows the API's refusal (a cycle of segments) at the filter's field, tracks membership, deletes with confirmation", async () => {
    const { api } = fx;
    const a = (await api.post("/segments", { name: "Alpha", filters: { logic: "AND", groups: [{ filters: [{ field: "subscribed", operator: "equals", value: true }] }] } })).body;
    const b = (await api.post("/segments", { name: "Beta", filters: { logic: "AND", groups: [{ filters: [{ field: `segment.${a.id}`, operator: "memberOfSegment" }] }] } })).body;

    const page = await fx.open(`/app/segments/${a.id}`);
    await page.getByRole("button", { name: "Add filter to Group 1" }).click();
    const row = filterRow(page, "Group 1 filter 2");
    await choose(page, row, "Field", "Segment");
    // Alpha itself is not offered: a segment cannot contain itself
    await row.getByRole("combobox", { name: "Segment" }).click();
    await expect.poll(() => page.getByRole("option").allTextContents()).not.toContain("Alpha");
    await page.getByRole("option", { name: "Beta", exact: true }).click();
    await page.getByRole("button", { name: "Save" }).click();
    await row.getByText(/segment references form a cycle/).waitFor();
    expect(await a11yViolations(page)).toEqual([]);

    // remove the filter, track membership, save
    await row.getByRole("button", { name: "Remove Group 1 filter 2" }).click();
    await page.getByRole("switch", { name: /^Track membership/ }).check();
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByText("Saved Alpha").waitFor();
    await expect.poll(async () => (await api.get(`/segments/${a.id}`)).body.trackMembership).toBe(true);

    // Alpha is used by Beta: the API refuses; Beta deletes
    await page.getByRole("button", { name: "Delete segment" }).click();
    await page.getByRole("dialog", { name: "Delete Alpha?" }).getByRole("button", { name: "Delete" }).click();
    await page.getByText(/used by the filters of "Beta"/).waitFor();
    await page.goto(`${fx.platform.url}/app/segments/${b.id}`);
    await page.getByRole("button", { name: "Delete segment" }).click();
    await page.getByRole("dialog", { name: "Delete Beta?" }).getByRole("button", { name: "Delete" }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe("/app/segments");
    expect((await api.get(`/segments/${b.id}`)).status).toBe(404);
    await page.context().close();
  });

  it("lets a viewer read a segment, its count and members, but not edit", async () => {
    const { api } = fx;
    const segments = (await api.get("/segments")).body as { id: string; name: string; memberCount: number }[];
    const segment = segments.find((s) => s.name === "Pro or team")!;
    const page = await fx.open("/app/segments", { user: fx.viewer });
    await page.getByRole("link", { name: "Pro or team" }).click();
    await page.getByRole("heading", { name: "Pro or team" }).waitFor();
    expect(await settledCount(page)).toBe(segment.memberCount);
    await expect.poll(() => page.getByRole("table", { name: "Members" }).getByRole("link").count()).toBe(4);

    expect(await page.getByRole("link", { name: "New segment" }).count()).toBe(0);
    for (const name of ["Save", "Delete segment", "Add group", "Add filter to Group 1", "Remove Group 1 filter 1"]) {
      expect(await page.getByRole("button", { name, exact: true }).count(), name).toBe(0);
    }
    expect(await page.getByRole("textbox", { name: /^Name/ }).getAttribute("readonly")).not.toBeNull();
    expect(await page.getByRole("switch", { name: /^Track membership/ }).isDisabled()).toBe(true);
    expect(await filterRow(page, "Group 1 filter 1").getByRole("textbox", { name: "Value" }).getAttribute("readonly")).not.toBeNull();
    expect(await a11yViolations(page)).toEqual([]);
    await page.context().close();
  });
});
