import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { AxeResults } from "axe-core";
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from "playwright-core";
import type { GatewayOperator } from "./operator.js";
import { closeAtWorkerEnd } from "./worker.js";

/**
 * The dashboard's browser tests drive Debian's `chromium-headless-shell` with playwright-core:
 * browser downloads (`npx playwright install`) are not possible everywhere Mailroom is built, and
 * the distribution's is what `npm test` installs when it is missing (scripts/browser.mjs, which
 * also says why the headless shell rather than the full browser).
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium-headless-shell";
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** The fonts the tests lay pages out with, beside the dashboard's own (scripts/browser.mjs says why). */
const TEST_FONTS_FILE = "/usr/share/fonts/truetype/liberation/LiberationMono-Regular.ttf";

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`Chromium is not at ${CHROMIUM_PATH}: install Debian's chromium-headless-shell package (npm test does so as root) or set CHROMIUM_PATH`);
  }
  // what a layout test measures must not depend on the fonts a machine happens to have
  if (existsSync("/etc/debian_version") && !existsSync(TEST_FONTS_FILE)) {
    throw new Error("The browser tests need the fonts-liberation package: `node scripts/browser.mjs` as root installs it (npm test does so)");
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
}

let kept: Promise<Browser> | undefined;

/**
 * The test worker's Chromium, launched by the first browser file a worker runs and kept for its
 * later files (see worker.ts), so a worker starts one browser process instead of one per file.
 * Files share nothing else: each works in browser contexts of its own (cookies, storage,
 * permissions) and closes them after its tests. A browser that crashed or was closed, or a launch
 * that failed, is replaced at the next call rather than failing every later file.
 */
export async function workerBrowser(): Promise<Browser> {
  const current = kept;
  const browser = current && (await current.catch(() => undefined));
  if (browser?.isConnected()) return browser;
  // another caller may have replaced it while this one waited
  if (kept === current || !kept) kept = launchForWorker();
  return kept;
}

function launchForWorker(): Promise<Browser> {
  const launched = launchBrowser();
  launched.then(
    (browser) => {
      const forget = closeAtWorkerEnd(() => browser.close());
      browser.once("disconnected", forget);
    },
    () => undefined, // the caller gets the error; the next call launches again
  );
  return launched;
}

/** Where the dashboard remembers the project it shows (packages/dashboard). */
export const PROJECT_STORAGE_KEY = "mailroom.project";

export interface DashboardUser {
  projectId: string;
  projectName: string;
  secretKey: string;
  email: string;
  password: string;
}

/**
 * A new project (unless given one) and a member of it with `role`, made as an operator makes them
 * (`mailroom projects create`, `mailroom users create`) by the operator of the platform: the shared
 * platform's `sharedOperator()`, or a Platform's `operator()`.
 */
export async function createDashboardUser(
  operator: GatewayOperator,
  opts: { role?: "owner" | "editor" | "viewer"; project?: { id: string; name: string; secretKey: string } } = {},
): Promise<DashboardUser> {
  const project = opts.project ?? (await operator.createProject(`dash-${Date.now().toString(36)}`));
  const email = `user-${Math.random().toString(36).slice(2, 10)}@mailroom.test`;
  const password = `pw-${Math.random().toString(36).slice(2)}-${Math.random().toString(36).slice(2)}`;
  await operator.createUser({ email, password, projectId: project.id, role: opts.role ?? "owner" });
  return { projectId: project.id, projectName: project.name, secretKey: project.secretKey, email, password };
}

/** Signs in through the sign-in page, as a person does, and waits for the app to show. */
export async function signIn(page: Page, baseUrl: string, user: Pick<DashboardUser, "email" | "password">): Promise<void> {
  await page.goto(`${baseUrl}/app/sign-in`);
  await page.getByRole("textbox", { name: /^Email/ }).fill(user.email);
  await page.getByLabel(/^Password/).fill(user.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("navigation").waitFor();
}

/**
 * A signed-in context without going through the form (the sign-in page has tests of its own):
 * the session cookie lands in the context's jar, and the project is the one the app opens on.
 */
export async function signedInContext(
  browser: Browser,
  baseUrl: string,
  user: Pick<DashboardUser, "projectId" | "email" | "password">,
  options: BrowserContextOptions = {},
): Promise<BrowserContext> {
  const context = await browser.newContext({ ...options, baseURL: baseUrl });
  const res = await context.request.post(`${baseUrl}/auth/login`, { data: { email: user.email, password: user.password } });
  if (res.status() !== 200) throw new Error(`sign-in for ${user.email} answered ${res.status()}: ${await res.text()}`);
  await context.addInitScript({ content: `localStorage.setItem(${JSON.stringify(PROJECT_STORAGE_KEY)}, ${JSON.stringify(user.projectId)})` });
  return context;
}

export interface A11yViolation {
  id: string;
  impact: string;
  help: string;
  /** Each offending element: its selector, its markup's start, and axe's reason. */
  targets: string[];
}

/**
 * axe-core's own build, evaluated in the page being checked (it is not part of the dashboard): read
 * at the first check, not by every importer of this module (the benchmarks, the screenshots).
 */
let axeSource: string | undefined;
const axeSourceText = () => (axeSource ??= readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8"));
/**
 * WCAG 2.1 A and AA rules, violations only. The template preview's frame is left out: what it shows
 * is the template's own markup, not the dashboard's, and axe, which cannot reach into the sandboxed
 * frame, waits on it until its own timeout; the frame element itself (its title) is still checked.
 * It is the dashboard's only frame, so axe is not sent into frames at all.
 */
const AXE_RUN = `axe.run({ exclude: [['iframe[title="Email preview"]']] }, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] }, resultTypes: ["violations"], iframes: false })`;

/**
 * axe-core's serious and critical violations on the page as it is now. axe-core is run in the page
 * itself rather than through @axe-core/playwright, whose builder opens a blank page (a renderer
 * process) for every check to finish its run in: a second of a quiet machine per check, four times
 * what the check itself costs, on a suite that makes some seventy of them.
 */
export async function a11yViolations(page: Page): Promise<A11yViolation[]> {
  // A drawer's overlay fading in changes every colour behind it: contrast is judged at rest, after
  // the running transitions have finished. Endless ones (the editor's blinking caret, an animated
  // workflow edge) never finish and are left running: waiting on them waited out the test.
  await page.evaluate(
    "Promise.all(document.getAnimations().filter((a) => Number.isFinite(a.effect?.getComputedTiming().endTime ?? Infinity)).map((a) => a.finished.catch(() => undefined))).then(() => true)",
  );
  // once per document: a navigation starts a new one, without axe
  if (!(await page.evaluate("typeof window.axe === 'object'"))) await page.evaluate(axeSourceText());
  const result = (await page.evaluate(AXE_RUN)) as AxeResults;
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({ id: v.id, impact: v.impact ?? "", help: v.help, targets: v.nodes.map((n) => `${n.target.join(" ")} ${n.html.slice(0, 160)} ${n.failureSummary ?? ""}`.trim()) }));
}

export * from "./dashboard.js";
