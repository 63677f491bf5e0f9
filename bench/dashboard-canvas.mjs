// The workflow canvas with 100 steps, in headless Chromium (a part of `npm run bench -- dashboard`;
// `node bench/dashboard-canvas.mjs` runs it alone on a platform of its own). Target < 100 ms each:
// - render: a click on the Graph tab (workflow already loaded, so this is the canvas itself: React
//   Flow laying out 100 nodes and 99 edges) until the frame in which every node and edge is drawn; also a cold navigation to the page, for scale (scripts and the API included);
// - move: one mouse move of a node being dragged until the frame in which it is drawn at its new
//   place; beside it, the drop until its PATCH of the position has answered.
// Timings are taken in the page (performance.now at the input event, then the next animation frame
// after the DOM shows the change), so the CDP round trips of the driver are not counted.
import { cpus, loadavg } from "node:os";
import { pathToFileURL } from "node:url";
import { apiClient, Platform } from "@mailroom/testkit";
import { createDashboardUser, launchBrowser, signedInContext } from "@mailroom/testkit/browser";
import { size } from "./lib.mjs";

const STEPS = 100;
const RUNS = size("BENCH_CANVAS_RUNS", 10, 2);
const TARGET_MS = 100;

const PROBE = `
  document.addEventListener("click", () => { window.__inputAt = performance.now(); }, true);
  document.addEventListener("mousemove", () => { window.__inputAt = performance.now(); }, true);
  const nextFrame = (resolve) => requestAnimationFrame(() => resolve(performance.now()));
  /** When n nodes are in the DOM and shown (React Flow hides a node until it knows its size), and the n - 1 edges of the chain. */
  window.__nodesDrawn = (n) => new Promise((resolve) => {
    const done = () => {
      const ns = document.querySelectorAll(".react-flow__node");
      return ns.length >= n && [...ns].every((e) => e.style.visibility !== "hidden") && document.querySelectorAll(".react-flow__edge path").length >= n - 1;
    };
    if (done()) return nextFrame(resolve);
    const obs = new MutationObserver(() => { if (done()) { obs.disconnect(); nextFrame(resolve); } });
    obs.observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["style"] });
  });
  /** When the node's transform next changes. */
  window.__nodeMoved = (id) => new Promise((resolve, reject) => {
    const el = document.querySelector('.react-flow__node[data-id="' + id + '"]');
    const before = el.style.transform;
    const obs = new MutationObserver(() => { if (el.style.transform !== before) { obs.disconnect(); nextFrame(resolve); } });
    obs.observe(el, { attributes: true, attributeFilter: ["style"] });
    setTimeout(() => reject(new Error("the node was not redrawn within 10 s (still " + before + ")")), 10000);
  });
`;

const busyText = (b) => `${b.task} (${b.script} / ${b.style} / ${b.layout})`;
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
  // The renderer's main-thread time (script, style, layout) spent on an interaction: on a machine
  // shared with other work, wall time measures the neighbours as much as the canvas.
  const cdp = await context.newCDPSession(page);
  await cdp.send("Performance.enable");
  const busy = async () => {
    const { metrics } = await cdp.send("Performance.getMetrics");
    const m = Object.fromEntries(metrics.map((x) => [x.name, x.value]));
    return { task: m.TaskDuration * 1000, script: m.ScriptDuration * 1000, style: m.RecalcStyleDuration * 1000, layout: m.LayoutDuration * 1000 };
  };
  const since = (a, b) => Object.fromEntries(Object.keys(a).map((k) => [k, b[k] - a[k]]));
  const url = `/app/workflows/${encodeURIComponent(workflow.id)}`;

  const cold = [];
  for (let i = 0; i < Math.min(RUNS, 5); i++) {
    await page.goto(url);
    cold.push(await page.evaluate((n) => window.__nodesDrawn(n), STEPS));
  }

  const render = [];
  const renderBusy = [];
  for (let i = 0; i < RUNS; i++) {
    await page.getByRole("tab", { name: "Executions" }).click();
    await page.getByText(/^No execution yet/).waitFor();
    await page.evaluate((n) => { window.__drawn = window.__nodesDrawn(n); }, STEPS);
    const before = await busy();
    await page.getByRole("tab", { name: "Graph" }).click();
    const [drawnAt, clickAt] = await page.evaluate(async () => [await window.__drawn, window.__inputAt]);
    renderBusy.push(since(before, await busy()));
    render.push(drawnAt - clickAt);
  }

  const move = [];
  const moveBusy = [];
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
    // back and forth, so the node stays in view however many runs
    const sign = i % 2 ? -1 : 1;
    await page.mouse.move(x + 4 * sign, y + 4 * sign); // past the drag threshold: the drag has started
    await page.evaluate((id) => { window.__moved = window.__nodeMoved(id); }, stepId);
    const before = await busy();
    await page.mouse.move(x + 60 * sign, y + 30 * sign);
    const [movedAt, moveAt] = await page.evaluate(async () => [await window.__moved, window.__inputAt]);
    moveBusy.push(since(before, await busy()));
    move.push(movedAt - moveAt);
    const saved = page.waitForResponse((r) => r.request().method() === "PATCH" && r.url().includes(`/steps/${stepId}`));
    const dropped = Date.now();
    await page.mouse.up();
    await saved;
    save.push(Date.now() - dropped);
  }
  await context.close();

  const parts = (xs) => Object.fromEntries(Object.keys(xs[0]).map((k) => [k, p50(xs.map((x) => x[k]))]));
  const result = {
    steps: STEPS,
    runs: RUNS,
    loadAverage: +loadavg()[0].toFixed(1),
    renderP50Ms: p50(render),
    moveP50Ms: p50(move),
    renderMainThreadP50Ms: parts(renderBusy),
    moveMainThreadP50Ms: parts(moveBusy),
    coldP50Ms: p50(cold),
    saveP50Ms: p50(save),
    renderMs: render.map(Math.round),
    moveMs: move.map((m) => +m.toFixed(1)),
  };
  const verdict = (ms) => (ms < TARGET_MS ? "within target" : "**over target**");
  const md = [
    `### The workflow canvas with ${STEPS} steps (headless Chromium, 1440×900, ${RUNS} runs, load average ${result.loadAverage} on ${cpus().length} cores)`,
    "",
    "| interaction | p50 ms (wall) | p50 ms renderer main thread busy in the window, driver calls included (script / style / layout) | target |",
    "|---|---|---|---|",
    `| render: Graph tab clicked → every node and edge drawn | ${result.renderP50Ms} | ${busyText(result.renderMainThreadP50Ms)} | < ${TARGET_MS}: ${verdict(result.renderP50Ms)} |`,
    `| move: one drag move → the node drawn at its new place | ${result.moveP50Ms} | ${busyText(result.moveMainThreadP50Ms)} | < ${TARGET_MS}: ${verdict(result.moveP50Ms)} |`,
    `| (cold navigation → every node and edge drawn, scripts and API included) | ${result.coldP50Ms} | | — |`,
    `| (drop → PATCH of the position answered) | ${result.saveP50Ms} | | — |`,
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
    const user = await createDashboardUser(await platform.operator(), { project });
    const { result, md } = await canvasBench({ browser, baseUrl: platform.url, user });
    console.log(md);
    console.log(JSON.stringify(result));
  } finally {
    await browser.close();
    await platform.destroy();
  }
}
