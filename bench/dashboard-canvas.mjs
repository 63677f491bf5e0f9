// The workflow canvas with 100 steps, in headless Chromium (a part of `npm run bench -- dashboard`;
// `node bench/dashboard-canvas.mjs` runs it alone on a platform of its own). Target < 100 ms each:
// - render: a click on the Graph tab (workflow already loaded, so this is the canvas itself: React
//   Flow laying out and measuring 100 nodes and 99 edges) until the frame in which every node is
//   drawn; also a cold navigation to the page, for scale (scripts and the API included);
// - move: one mouse move of a node being dragged until the frame in which it is drawn at its new
//   place; beside it, the drop until its PATCH of the position has answered.
// Timings are taken in the page (performance.now at the input event, then the next animation frame
// after the DOM shows the change), so the CDP round trips of the driver are not counted.
import { pathToFileURL } from "node:url";
import { apiClient, Platform } from "@mailroom/testkit";
import { createDashboardUser, launchBrowser, signedInContext } from "@mailroom/testkit/browser";

const STEPS = 100;
const RUNS = Number(process.env.BENCH_CANVAS_RUNS ?? 10);
const TARGET_MS = 100;

const PROBE = `
  document.addEventListener("click", () => { window.__inputAt = performance.now(); }, true);
  document.addEventListener("mousemove", () => { window.__inputAt = performance.now(); }, true);
  const nextFrame = (resolve) => requestAnimationFrame(() => resolve(performance.now()));
  /** When at least n nodes are in the DOM and measured (React Flow hides a node until it is). */
  window.__nodesDrawn = (n) => new Promise((resolve) => {
    const done = () => { const ns = document.querySelectorAll(".react-flow__node"); return ns.length >= n && [...ns].every((e) => e.style.visibility !== "hidden"); };
    if (done()) return nextFrame(resolve);
    const obs = new MutationObserver(() => { if (done()) { obs.disconnect(); nextFrame(resolve); } });
    obs.observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["style"] });
  });
  /** When the node's transform next changes. */
  window.__nodeMoved = (id) => new Promise((resolve) => {
    const el = document.querySelector('.react-flow__node[data-id="' + id + '"]');
    const before = el.style.transform;
    const obs = new MutationObserver(() => { if (el.style.transform !== before) { obs.disconnect(); nextFrame(resolve); } });
    obs.observe(el, { attributes: true, attributeFilter: ["style"] });
  });
`;

const p50 = (xs) => (xs.length ? +[...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)].toFixed(1) : null);

/** A chain TRIGGER → 99 DELAY steps, laid out ten to a row. */
async function seedWorkflow(baseUrl, secretKey) {
  const api = apiClient(baseUrl, secretKey);
  const created = await api.post("/workflows", { name: "Canvas bench", eventName: "bench-canvas" });
  if (created.status !== 201) throw new Error(`POST /workflows answered ${created.status}`);
  let after = created.body.steps[0].id;
  const ids = [after];
  for (let i = 1; i < STEPS; i++) {
    const position = { x: (i % 10) * 260, y: Math.floor(i / 10) * 160 };
    const res = await api.post(`/workflows/${created.body.id}/steps`, { type: "DELAY", name: `Delay ${i}`, config: { amount: i, unit: "minutes" }, after, position });
    if (res.status !== 201) throw new Error(`POST steps answered ${res.status}: ${JSON.stringify(res.body)}`);
    after = res.body.id;
    ids.push(after);
  }
  return { id: created.body.id, stepIds: ids };
}

/** Measures on `platform` (gateway, contacts and workflows running) as `user`; returns the figures and their markdown. */
export async function canvasBench({ browser, baseUrl, user }) {
  const workflow = await seedWorkflow(baseUrl, user.secretKey);
  const context = await signedInContext(browser, baseUrl, user);
  await context.addInitScript({ content: PROBE });
  const page = await context.newPage();
  await page.setViewportSize({ width: 1440, height: 900 });
  const url = `/app/workflows/${encodeURIComponent(workflow.id)}`;

  const cold = [];
  for (let i = 0; i < Math.min(RUNS, 5); i++) {
    await page.goto(url);
    cold.push(await page.evaluate((n) => window.__nodesDrawn(n), STEPS));
  }

  const render = [];
  for (let i = 0; i < RUNS; i++) {
    await page.getByRole("tab", { name: "Executions" }).click();
    await page.getByText(/^No execution yet/).waitFor();
    await page.evaluate((n) => { window.__drawn = window.__nodesDrawn(n); }, STEPS);
    await page.getByRole("tab", { name: "Graph" }).click();
    const [drawnAt, clickAt] = await page.evaluate(async () => [await window.__drawn, window.__inputAt]);
    render.push(drawnAt - clickAt);
  }

  const move = [];
  const save = [];
  const stepId = workflow.stepIds[55];
  const node = page.locator(`.react-flow__node[data-id="${stepId}"]`);
  for (let i = 0; i < RUNS; i++) {
    const box = await node.boundingBox();
    // on the node's text, clear of its handles (top and bottom centre)
    const x = box.x + box.width / 4;
    const y = box.y + box.height / 2;
    await page.mouse.move(x, y);
    await page.mouse.down();
    await page.mouse.move(x + 4, y + 4); // past the drag threshold: the drag has started
    await page.evaluate((id) => { window.__moved = window.__nodeMoved(id); }, stepId);
    const dx = i % 2 ? -60 : 60;
    await page.mouse.move(x + dx, y + 30);
    const [movedAt, moveAt] = await page.evaluate(async () => [await window.__moved, window.__inputAt]);
    move.push(movedAt - moveAt);
    const saved = page.waitForResponse((r) => r.request().method() === "PATCH" && r.url().includes(`/steps/${stepId}`));
    const dropped = Date.now();
    await page.mouse.up();
    await saved;
    save.push(Date.now() - dropped);
  }
  await context.close();

  const result = { steps: STEPS, runs: RUNS, renderP50Ms: p50(render), moveP50Ms: p50(move), coldP50Ms: p50(cold), saveP50Ms: p50(save), renderMs: render.map(Math.round), moveMs: move.map((m) => +m.toFixed(1)) };
  const verdict = (ms) => (ms < TARGET_MS ? "within target" : "**over target**");
  const md = [
    `### The workflow canvas with ${STEPS} steps (headless Chromium, 1440×900, ${RUNS} runs)`,
    "",
    "| interaction | p50 ms | target |",
    "|---|---|---|",
    `| render: Graph tab clicked → every node drawn | ${result.renderP50Ms} | < ${TARGET_MS}: ${verdict(result.renderP50Ms)} |`,
    `| move: one drag move → the node drawn at its new place | ${result.moveP50Ms} | < ${TARGET_MS}: ${verdict(result.moveP50Ms)} |`,
    `| (cold navigation → every node drawn, scripts and API included) | ${result.coldP50Ms} | — |`,
    `| (drop → PATCH of the position answered) | ${result.saveP50Ms} | — |`,
  ].join("\n");
  return { result, md };
}

// Alone: a platform of its own, the figures printed (the dashboard benchmark writes the results file).
if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const platform = new Platform({ services: ["gateway", "contacts", "workflows"] });
  await platform.start();
  const browser = await launchBrowser();
  try {
    const project = await platform.createProject("canvas");
    const user = await createDashboardUser(platform.env, { project });
    const { result, md } = await canvasBench({ browser, baseUrl: platform.url, user });
    console.log(md);
    console.log(JSON.stringify(result));
  } finally {
    await browser.close();
    await platform.destroy();
  }
}
