import { apiClient, type ApiClient, Platform, waitFor, type Receiver, startReceiver } from "@mailroom/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildWorkflow, executionIn, track, uniqueEmail, uniqueName } from "./helpers.js";

/**
 * SIGTERM during a slow webhook, on a platform of its own (the default 30 s lease: an execution
 * that is not given back on shutdown would not be taken over within these tests' waits).
 */
let platform: Platform;
let receiver: Receiver;
let api: ApiClient;

/** Answers per path: `/late/…` after 9.3 s (past the old 9 s shutdown bound, within the 10 s webhook timeout); `/held/…` after 8 s the first time, at once after. */
function answer(r: { url: string }) {
  if (r.url.startsWith("/late/")) return { status: 200, delayMs: 9300 };
  if (r.url.startsWith("/held/")) return { status: 200, delayMs: receiver.received.filter((x) => x.url === r.url).length === 1 ? 8000 : 0 };
  return { status: 200 };
}

beforeAll(async () => {
  receiver = await startReceiver((r) => answer(r));
  platform = new Platform({
    services: ["gateway", "contacts", "workflows"],
    env: { WEBHOOK_ALLOWED_HOSTS: `127.0.0.1:${receiver.port}` },
  });
  await platform.start();
  api = apiClient(platform.url, (await platform.createProject()).secretKey);
});

afterAll(async () => {
  await platform?.destroy();
  await receiver?.close();
});

/** SIGTERM to the one workflows process; resolves with its exit code once it has exited. */
async function sigterm(): Promise<number | null> {
  const [proc] = platform.procs.get("workflows") ?? [];
  await platform.stopService("workflows", "SIGTERM");
  return proc!.child.exitCode;
}

describe("shutdown during a webhook", () => {
  it("waits for a webhook under way, records its success, and gives the execution to the next replica", { timeout: 90_000 }, async () => {
    const event = uniqueName("late");
    const path = `/late/${event}`;
    const { id } = await buildWorkflow(api, event, [
      { type: "WEBHOOK", config: { url: `${receiver.url}${path}` } },
      { type: "UPDATE_CONTACT", config: { data: { afterHook: true } } },
    ]);
    const email = uniqueEmail();
    await track(api, email, event);
    await waitFor(() => receiver.received.some((r) => r.url === path), { timeoutMs: 15_000, what: "the webhook request" });

    expect(await sigterm()).toBe(0); // an orderly stop, not the shutdown bound's forced exit
    await platform.startService("workflows");
    const done = await executionIn(api, id, ["COMPLETED", "FAILED"], 15_000);
    expect(done.status).toBe("COMPLETED");
    expect(done.steps.map((s: { status: string }) => s.status)).toEqual(["COMPLETED", "COMPLETED", "COMPLETED"]);
    expect(receiver.received.filter((r) => r.url === path)).toHaveLength(1);
    const contact = (await api.get(`/contacts?search=${encodeURIComponent(email)}`)).body.data[0];
    expect(contact.data).toMatchObject({ afterHook: true });
  });

  it("past its grace, cuts the webhook short and leaves the step to run again: never FAILED", { timeout: 90_000 }, async () => {
    // a shutdown bound shorter than a webhook may take: steps under way get 2 s of it
    await platform.stopService("workflows");
    await platform.startService("workflows", { SHUTDOWN_TIMEOUT_MS: "5000" });
    const event = uniqueName("held");
    const path = `/held/${event}`;
    const { id } = await buildWorkflow(api, event, [{ type: "WEBHOOK", config: { url: `${receiver.url}${path}` } }, { type: "EXIT" }]);
    await track(api, uniqueEmail(), event);
    await waitFor(() => receiver.received.some((r) => r.url === path), { timeoutMs: 15_000, what: "the webhook request" });

    expect(await sigterm()).toBe(0);
    await platform.startService("workflows");
    const done = await executionIn(api, id, ["EXITED", "FAILED"], 15_000);
    expect(done.status).toBe("EXITED");
    expect(done.steps.map((s: { status: string; error: string | null }) => [s.status, s.error])).toEqual([
      ["COMPLETED", null],
      ["COMPLETED", null],
      ["COMPLETED", null],
    ]);
    expect(receiver.received.filter((r) => r.url === path)).toHaveLength(2);
  });
});
