import { afterAll, beforeAll, inject, vi } from "vitest";
import type { Browser, BrowserContextOptions, Page } from "playwright-core";
import { type ApiClient, apiClient } from "@mailroom/testkit";
import { type SharedPlatform, sharedOperator } from "@mailroom/testkit/shared";
import { createDashboardUser, type DashboardUser, signedInContext, workerBrowser } from "@mailroom/testkit/browser";
import { verifiedDomain } from "./sent-emails.js";

export interface BrowserFixture {
  platform: SharedPlatform;
  browser: Browser;
  /** The owner of a fresh project. */
  owner: DashboardUser;
  /** The owner's project through its secret key, as an API user. */
  api: ApiClient;
  /** With `sending`: an address on the project's verified domain, to send from. */
  from: string;
  /** With `members: ["viewer"]`: a viewer of the owner's project. */
  viewer: DashboardUser;
  /** With `members: ["editor"]`: an editor of the owner's project. */
  editor: DashboardUser;
  /**
   * A page at `path` ("/app/emails"), signed in as `user` (the owner unless given; `null`: signed
   * out) in a browser context of its own, with `context`'s options (a phone's viewport, permissions…).
   */
  open(path: string, opts?: { user?: DashboardUser | null; context?: BrowserContextOptions }): Promise<Page>;
}

/** A browser test's backstop: a whole user journey on a loaded machine (see browserAndOwner). */
const BROWSER_TEST_TIMEOUT_MS = 180_000;

/**
 * The shared platform, the worker's Chromium and an owner of a fresh project, set up before the
 * file's tests (and, when asked, a verified sending domain and other members of the project); the
 * file's browser contexts are closed after them. Read its fields inside tests or in the file's own
 * `beforeAll`, which runs after this one.
 */
export function browserAndOwner(opts: { sending?: boolean; members?: readonly ("viewer" | "editor")[] } = {}): BrowserFixture {
  // A browser test is a user's whole journey (a workflow drawn and run, a template written, sent
  // and received): 35 s alone on a quiet 2-core machine, up to three times that beside the other
  // worker's files. The backstop fits the journey; every wait inside keeps its own bound. Set while
  // the file's tests are collected (a test takes its timeout then), reset after them.
  vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT_MS });
  const fx = { platform: inject("platform") } as BrowserFixture;
  fx.open = async (path, { user = fx.owner, context: options } = {}) => {
    const context = user ? await signedInContext(fx.browser, fx.platform.url, user, options) : await fx.browser.newContext(options);
    const page = await context.newPage();
    await page.goto(`${fx.platform.url}${path}`);
    return page;
  };
  beforeAll(async () => {
    const operator = await sharedOperator();
    [fx.browser, fx.owner] = await Promise.all([workerBrowser(), createDashboardUser(operator)]);
    fx.api = apiClient(fx.platform.url, fx.owner.secretKey);
    const project = { id: fx.owner.projectId, name: fx.owner.projectName, secretKey: fx.owner.secretKey };
    await Promise.all([
      opts.sending && verifiedDomain(fx.platform, fx.api).then((domain) => (fx.from = `news@${domain}`)),
      ...(opts.members ?? []).map(async (role) => (fx[role] = await createDashboardUser(operator, { role, project }))),
    ]);
  }, 60_000);
  afterAll(async () => {
    vi.resetConfig();
    // the browser stays for the worker's next file; this file's contexts go (a failed test may have left one)
    await Promise.all((fx.browser?.contexts() ?? []).map((c) => c.close()));
  });
  return fx;
}
