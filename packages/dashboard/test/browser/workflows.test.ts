import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { Locator, Page } from "playwright-core";
import { apiClient, waitFor } from "@mailroom/testkit";
import { a11yViolations, } from "@mailroom/testkit/browser";
import { browserAndOwner } from "./fixture";

const fx = browserAndOwner({ members: ["viewer"] });
const hex = () => randomBytes(4).toString("hex");
const event = `signup-${hex()}`;
const reply = `reply-${hex()}`;
const pro = `pro-${hex()}@example.com`;
const free = `free-${hex()}@example.com`;
const later = `later-${hex()}@example.com`;
let workflowId: string;

const graph = (page: Page) => page.getByRole("application", { name: "Workflow graph" });
/** A step on the canvas, by its accessible name "<step name> (<type>[, <run status>])". */
const node = (scope: Page | Locator, name: string) => scope.getByRole("group", { name: new RegExp(`^${name} \\(`) });

/** Press on one handle, move across the canvas and release on another, as a person connects two steps. */
async function dragBetween(page: Page, from: Locator, to: Locator) {
  const a = (await from.boundingBox())!;
  const b = (await to.boundingBox())!;
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
  await page.mouse.down();
  await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 12 });
  await page.mouse.up();
}

/** Palette → side panel → Add step; the new step appears on the canvas. */
async function addStep(page: Page, type: string, name: string, fill: (panel: Locator) => Promise<void>) {
  await page.getByRole("toolbar", { name: "Add a step" }).getByRole("button", { name: type, exact: true }).click();
  const panel = page.getByRole("form", { name: `New ${type} step` });
  await panel.getByRole("textbox", { name: /^Step name/ }).fill(name);
  await fill(panel);
  await panel.getByRole("button", { name: "Add step" }).click();
  await node(graph(page), name).waitFor();
}

async function connect(page: Page, from: string, output: string, to: string, edgeName: string) {
  // the side panel's buttons may have scrolled the page: the whole canvas in view first
  await graph(page).evaluate((el) => el.scrollIntoView({ block: "center" }));
  await dragBetween(page, node(graph(page), from).getByTestId(`output-${output}`), node(graph(page), to).getByTestId("input"));
  // attached, not visible: a straight vertical edge has a zero-width box, which Playwright calls hidden
  await graph(page).getByRole("group", { name: edgeName }).waitFor({ state: "attached" });
}

describe("the Workflows area", () => {
  it("draws TRIGGER → CONDITION (yes: WAIT_FOR_EVENT → WEBHOOK, no: EXIT) with the mouse and side panel, and shows each execution's branch", async () => {
    const api = apiClient(fx.platform.url, fx.owner.secretKey);
    const page = await fx.open("/app/workflows");
    await page.getByText(/^No workflow yet/).waitFor();
    expect(await a11yViolations(page)).toEqual([]);

    await page.getByRole("button", { name: "New workflow" }).click();
    const dialog = page.getByRole("dialog", { name: "New workflow" });
    await dialog.getByRole("textbox", { name: /^Name/ }).fill("Onboarding");
    await dialog.getByRole("combobox", { name: /^Trigger event/ }).fill(event);
    await dialog.getByRole("button", { name: "Create workflow" }).click();
    await expect.poll(() => new URL(page.url()).pathname).toMatch(/^\/app\/workflows\/[^/]+$/);
    workflowId = decodeURIComponent(new URL(page.url()).pathname.split("/").pop()!);
    await graph(page).getByRole("group", { name: /\(Trigger\)$/ }).waitFor();

    await addStep(page, "Condition", "Is pro", async (panel) => {
      await panel.getByRole("textbox", { name: /^Field/ }).fill("event.plan");
      await panel.getByRole("textbox", { name: /^Value/ }).fill("pro");
    });
    // the step schema's error is shown at its field before anything is sent
    await page.getByRole("toolbar", { name: "Add a step" }).getByRole("button", { name: "Wait for event", exact: true }).click();
    const waitForm = page.getByRole("form", { name: "New Wait for event step" });
    await waitForm.getByRole("button", { name: "Add step" }).click();
    await expect.poll(() => waitForm.getByRole("combobox", { name: /^Event/ }).getAttribute("aria-invalid")).toBe("true");
    await waitForm.getByRole("button", { name: "Cancel" }).click();
    await addStep(page, "Wait for event", "Wait for reply", async (panel) => {
      await panel.getByRole("combobox", { name: /^Event/ }).fill(reply);
      await panel.getByRole("textbox", { name: /^Timeout/ }).fill("3600");
    });
    await addStep(page, "Webhook", "Notify CRM", async (panel) => {
      await panel.getByRole("textbox", { name: /^URL/ }).fill("https://hooks.example.com/mailroom");
    });
    await addStep(page, "Exit", "Not pro", async (panel) => {
      await panel.getByRole("textbox", { name: /^Reason/ }).fill("free plan");
    });

    const trigger = (await graph(page).getByRole("group", { name: /\(Trigger\)$/ }).getAttribute("aria-label"))!.replace(/ \(Trigger\)$/, "");
    await connect(page, trigger, "next", "Is pro", `${trigger} to Is pro`);
    await connect(page, "Is pro", "yes", "Wait for reply", "Is pro to Wait for reply (yes)");
    await connect(page, "Wait for reply", "EVENT", "Notify CRM", "Wait for reply to Notify CRM (EVENT)");
    await connect(page, "Is pro", "no", "Not pro", "Is pro to Not pro (no)");
    // a second "yes" is refused in the browser, with the rule in words
    await dragBetween(page, node(graph(page), "Is pro").getByTestId("output-yes"), node(graph(page), "Notify CRM").getByTestId("input"));
    await page.getByText("The condition “Is pro” already has a “yes” branch: delete it first.").waitFor();
    expect(await a11yViolations(page)).toEqual([]);

    const saved = (await api.get(`/workflows/${workflowId}`)).body;
    const id = (name: string) => saved.steps.find((s: { name: string }) => s.name === name).id;
    const edges = saved.transitions.map((t: any) => [t.fromStepId, t.toStepId, t.branch, t.waitOutcome]);
    expect(edges).toHaveLength(4);
    expect(edges).toEqual(
      expect.arrayContaining([
        [saved.steps[0].id, id("Is pro"), null, null],
        [id("Is pro"), id("Wait for reply"), "yes", null],
        [id("Wait for reply"), id("Notify CRM"), null, "EVENT"],
        [id("Is pro"), id("Not pro"), "no", null],
      ]),
    );
    expect(saved.steps.find((s: { name: string }) => s.name === "Is pro").config).toEqual({ field: "event.plan", operator: "equals", value: "pro" });
    expect(saved.steps.find((s: { name: string }) => s.name === "Wait for reply").config).toEqual({ eventName: reply, timeout: 3600 });

    const enabled = page.getByRole("switch", { name: "Enabled" });
    expect(await enabled.isChecked()).toBe(false);
    await enabled.click();
    await expect.poll(() => enabled.isChecked()).toBe(true);
    expect((await api.get(`/workflows/${workflowId}`)).body.enabled).toBe(true);

    for (const [email, plan] of [[pro, "pro"], [free, "free"]]) {
      expect((await api.post("/v1/track", { email, event, data: { plan } })).status).toBe(200);
    }
    const executions = await waitFor(
      async () => {
        const list = (await api.get(`/workflows/${workflowId}/executions?limit=10`)).body.data as { id: string; status: string; contactId: string }[];
        return list.length === 2 && list.some((e) => e.status === "WAITING") && list.some((e) => e.status === "EXITED") ? list : null;
      },
      { what: "one execution waiting and one exited", timeoutMs: 20_000 },
    );

    await page.getByRole("tab", { name: "Executions" }).click();
    const table = page.getByRole("table", { name: "Executions" });
    await expect.poll(() => table.getByRole("row").count()).toBe(3);
    expect(await a11yViolations(page)).toEqual([]);

    // the waiting execution went down "yes" and waits; the other down "no" and exited
    await table.getByRole("row").filter({ hasText: "WAITING" }).getByRole("link").first().click();
    const path = page.getByRole("application", { name: "The execution's path on the workflow" });
    await node(path, "Wait for reply").and(page.getByRole("group", { name: /, WAITING\)$/ })).waitFor();
    await path.getByRole("group", { name: "Is pro to Wait for reply (yes), taken" }).waitFor({ state: "attached" });
    expect(await path.getByRole("group", { name: "Is pro to Not pro (no)" }).count()).toBe(1);
    expect(await node(path, "Not pro").getAttribute("aria-label")).toBe("Not pro (Exit)");
    expect(await a11yViolations(page)).toEqual([]);

    const exited = executions.find((e) => e.status === "EXITED")!;
    await page.goto(`${fx.platform.url}/app/workflows/${workflowId}/executions/${exited.id}`);
    await path.getByRole("group", { name: "Is pro to Not pro (no), taken" }).waitFor({ state: "attached" });
    expect(await node(path, "Not pro").getAttribute("aria-label")).toMatch(/^Not pro \(Exit, COMPLETED\)$/);
    expect(await node(path, "Wait for reply").getAttribute("aria-label")).toBe("Wait for reply (Wait for event)");
    await page.getByRole("table", { name: "Step runs" }).getByRole("cell", { name: "Not pro" }).waitFor();
    await page.context().close();
  });

  it("explains the lock while an execution waits, still saves a step's config, cancels all, then edits the graph", async () => {
    const api = apiClient(fx.platform.url, fx.owner.secretKey);
    expect((await api.post("/v1/track", { email: later, event, data: { plan: "pro" } })).status).toBe(200);
    const page = await fx.open(`/app/workflows/${workflowId}`);
    await page.getByText("The graph is locked while executions are active").waitFor();
    await page.getByText(/running, \d+ waiting\. Adding or deleting steps/).waitFor();
    expect(await a11yViolations(page)).toEqual([]);

    // a structural edit is refused by the API, and the page says why and what to do
    await node(graph(page), "Notify CRM").getByText("Notify CRM").click();
    await page.getByRole("button", { name: "Delete step" }).click();
    await page.getByText("The workflow has active executions").waitFor();
    await page.getByText(/Cancel the active executions or wait for them to finish, then edit\./).waitFor();
    await node(graph(page), "Notify CRM").waitFor();

    // a step's config is not structural: it saves
    await node(graph(page), "Not pro").getByText("Not pro").click();
    await page.getByRole("textbox", { name: /^Reason/ }).fill("not on the pro plan");
    await page.getByRole("button", { name: "Save step" }).click();
    await page.getByText("Saved Not pro").waitFor();

    await page.getByRole("button", { name: "Cancel all" }).click();
    await page.getByRole("dialog", { name: "Cancel every active execution?" }).getByRole("button", { name: "Cancel all executions" }).click();
    await page.getByText(/^Cancelled \d+ executions?$/).waitFor();
    await page.getByText("The graph is locked while executions are active").waitFor({ state: "detached" });

    await node(graph(page), "Notify CRM").getByText("Notify CRM").click();
    await page.getByRole("button", { name: "Delete step" }).click();
    await node(graph(page), "Notify CRM").waitFor({ state: "detached" });
    const saved = (await api.get(`/workflows/${workflowId}`)).body;
    expect(saved.steps.map((s: { name: string }) => s.name)).not.toContain("Notify CRM");
    expect(saved.steps.find((s: { name: string }) => s.name === "Not pro").config).toEqual({ reason: "not on the pro plan" });
    const active = (await api.get(`/workflows/${workflowId}/executions?status=WAITING`)).body.data;
    expect(active).toEqual([]);
    await page.context().close();
  });

  it("edits a condition of several filters in the filter builder, and turns a one-filter condition into one", async () => {
    const api = apiClient(fx.platform.url, fx.owner.secretKey);
    const created = (await api.post("/workflows", { name: `Filters ${hex()}`, eventName: `paid-${hex()}` })).body;
    const several = {
      logic: "AND",
      groups: [
        {
          filters: [
            { field: "event.plan", operator: "equals", value: "pro" },
            { field: "contact.subscribed", operator: "equals", value: true },
          ],
        },
      ],
    };
    const addStep = (name: string, config: unknown) => api.post(`/workflows/${created.id}/steps`, { type: "CONDITION", name, config });
    const both = (await addStep("Both", several)).body;
    const single = (await addStep("Single", { field: "event.plan", operator: "equals", value: "team" })).body;
    const page = await fx.open(`/app/workflows/${created.id}`);
    /** Save step in the step's form, then its config as the API stores it. */
    const saveAndRead = async (form: Locator, step: { id: string; name: string }) => {
      await form.getByRole("button", { name: "Save step" }).click();
      await page.getByText(`Saved ${step.name}`).waitFor();
      return (await api.get(`/workflows/${created.id}`)).body.steps.find((s: { id: string }) => s.id === step.id).config;
    };

    // several filters: the builder, with both rows; one value changed, the other kept
    await node(graph(page), "Both").getByText("Both").click();
    const form = page.getByRole("form", { name: "Step Both" });
    const first = form.getByRole("group", { name: "Group 1 filter 1", exact: true });
    await expect.poll(() => first.getByRole("textbox", { name: "Event data key" }).inputValue()).toBe("plan");
    await form.getByRole("group", { name: "Group 1 filter 2", exact: true }).waitFor();
    expect(await a11yViolations(page)).toEqual([]);
    await first.getByRole("textbox", { name: "Value" }).fill("enterprise");
    const stored = await saveAndRead(form, both);
    // (the builder writes a field by its general name: contact.subscribed is subscribed)
    expect(stored).toEqual({
      logic: "AND",
      groups: [{ filters: [{ field: "event.plan", operator: "equals", value: "enterprise" }, { field: "subscribed", operator: "equals", value: true }] }],
    });

    // one filter: its fields, then "Use several filters" and a second filter added in the builder
    await node(graph(page), "Single").getByText("Single").click();
    const singleForm = page.getByRole("form", { name: "Step Single" });
    await singleForm.getByRole("button", { name: "Use several filters" }).click();
    await expect.poll(() => singleForm.getByRole("group", { name: "Group 1 filter 1", exact: true }).getByRole("textbox", { name: "Value" }).inputValue()).toBe("team");
    await singleForm.getByRole("button", { name: "Add filter to Group 1" }).click();
    const added = singleForm.getByRole("group", { name: "Group 1 filter 2", exact: true });
    await added.getByRole("textbox", { name: "Value" }).fill("ada@example.com");
    const converted = await saveAndRead(singleForm, single);
    expect(converted).toEqual({
      logic: "AND",
      groups: [{ filters: [{ field: "event.plan", operator: "equals", value: "team" }, { field: "email", operator: "equals", value: "ada@example.com" }] }],
    });
    await page.context().close();
  });

  it("places a step where it is dragged from the palette onto the canvas", async () => {
    const api = apiClient(fx.platform.url, fx.owner.secretKey);
    const created = (await api.post("/workflows", { name: `Placed ${hex()}`, eventName: `placed-${hex()}` })).body;
    const page = await fx.open(`/app/workflows/${created.id}`);
    await graph(page).getByRole("group", { name: /\(Trigger\)$/ }).waitFor();

    // where the drop lands in the flow's own coordinates, from the view's pan and zoom
    const pane = (await graph(page).boundingBox())!;
    const target = { x: Math.round(pane.width * 0.7), y: Math.round(pane.height * 0.75) };
    const view = await graph(page).locator(".react-flow__viewport").evaluate((el) => new DOMMatrix(getComputedStyle(el).transform));
    const flowAt = { x: (target.x - view.e) / view.a, y: (target.y - view.f) / view.d };

    await page.getByRole("toolbar", { name: "Add a step" }).getByRole("button", { name: "Delay", exact: true }).dragTo(graph(page), { targetPosition: target });
    const panel = page.getByRole("form", { name: "New Delay step" });
    await panel.getByRole("textbox", { name: /^Step name/ }).fill("Placed here");
    await panel.getByRole("button", { name: "Add step" }).click();
    await node(graph(page), "Placed here").waitFor();
    const step = (await api.get(`/workflows/${created.id}`)).body.steps.find((s: { name: string }) => s.name === "Placed here");
    // the pointer is at the middle of the new step's top edge (its input); a node is 220 wide
    expect(Math.abs(step.position.x - (flowAt.x - 110))).toBeLessThanOrEqual(2);
    expect(Math.abs(step.position.y - flowAt.y)).toBeLessThanOrEqual(2);
    await page.context().close();
  });

  it("shows a viewer the graph, the settings and the executions read-only", async () => {
    const page = await fx.open("/app/workflows", { user: fx.viewer });
    await page.getByRole("table", { name: "Workflows" }).getByRole("link", { name: "Onboarding" }).click();
    await node(graph(page), "Is pro").waitFor();
    expect(await page.getByRole("button", { name: "New workflow" }).count()).toBe(0);
    expect(await page.getByRole("toolbar", { name: "Add a step" }).count()).toBe(0);
    expect(await page.getByRole("button", { name: "Save settings" }).count()).toBe(0);
    expect(await page.getByRole("switch", { name: "Enabled" }).isDisabled()).toBe(true);
    expect(await page.getByRole("textbox", { name: /^Name/ }).getAttribute("readonly")).not.toBeNull();

    // a step's panel without Save or Delete, and the node stays where it is when dragged
    await node(graph(page), "Is pro").getByText("Is pro").click();
    await page.getByRole("textbox", { name: /^Field/ }).waitFor();
    expect(await page.getByRole("button", { name: "Save step" }).count()).toBe(0);
    // (a drag may pan the view, which moves every node alike: the distance between two nodes is what must hold)
    const gap = async () => {
      const [a, b] = await Promise.all([node(graph(page), "Is pro").boundingBox(), node(graph(page), "Not pro").boundingBox()]);
      return [Math.round(b!.x - a!.x), Math.round(b!.y - a!.y)];
    };
    const before = await gap();
    const box = (await node(graph(page), "Is pro").boundingBox())!;
    await page.mouse.move(box.x + 30, box.y + 30);
    await page.mouse.down();
    await page.mouse.move(box.x + 130, box.y + 80, { steps: 5 });
    await page.mouse.up();
    expect(await gap()).toEqual(before);

    await page.getByRole("tab", { name: "Executions" }).click();
    await page.getByRole("table", { name: "Executions" }).waitFor();
    expect(await a11yViolations(page)).toEqual([]);
    await page.context().close();
  });
});
