import { afterAll, beforeAll, inject } from "vitest";
import type { Browser } from "playwright-core";
import { createDashboardUser, launchBrowser, type DashboardUser } from "@mailroom/testkit/browser";

/**
 * The shared platform, a Chromium for the file and an owner of a fresh project, set up before the
 * file's tests and the browser closed after them. Read its fields inside tests (they are set in
 * beforeAll).
 */
export function browserAndOwner() {
  const fixture = { platform: inject("platform"), browser: undefined as unknown as Browser, owner: undefined as unknown as DashboardUser };
  beforeAll(async () => {
    [fixture.browser, fixture.owner] = await Promise.all([launchBrowser(), createDashboardUser(fixture.platform.env)]);
  });
  afterAll(async () => {
    await fixture.browser?.close();
  });
  return fixture;
}
