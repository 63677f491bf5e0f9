import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Platform, apiClient, rawRequest } from "@mailroom/testkit";

/**
 * The blob store, where uploads wait to be imported, holds at most BLOBS_MAX_BYTES in all
 * (decisions.md §15), so uploads cannot fill the NATS server's disk. A platform of its own, with a
 * store of 1 MiB and uploads allowed up to 4 MiB (sending answers the double opt-in setting an import reads).
 */
const platform = new Platform({
  services: ["gateway", "contacts", "sending"],
  env: { BLOBS_MAX_BYTES: String(1024 * 1024), CONTACT_IMPORT_MAX_BYTES: String(4 * 1024 * 1024) },
  // nothing is mailed here
  serviceEnv: { sending: { SMTP_URL: "smtp://127.0.0.1:1" } },
});
let project: Awaited<ReturnType<Platform["createProject"]>>;

beforeAll(async () => {
  await platform.start();
  project = await platform.createProject("store");
});
afterAll(async () => {
  await platform.destroy();
});

describe("the upload store", () => {
  it("refuses an upload past its byte bound with 503, keeps nothing of it, and takes one that fits", async () => {
    const tooBig = await rawRequest(platform.url, {
      method: "POST",
      path: "/contacts/imports",
      headers: { authorization: `Bearer ${project.secretKey}`, "content-type": "text/csv" },
      bytes: 2 * 1024 * 1024,
    });
    expect(tooBig.status).toBe(503);
    expect(JSON.parse(tooBig.body)).toMatchObject({ error: "SERVICE_UNAVAILABLE", reason: "upload_store_full" });
    expect(Number(tooBig.headers["retry-after"])).toBeGreaterThan(0);
    // what was stored of it is gone, and its place among the project's imports is free again
    const csv = `email\n${Array.from({ length: 2000 }, (_, i) => `fits${i}@example.com`).join("\n")}\n`;
    for (let i = 0; i < 3; i++) expect((await apiClient(platform.url, project.secretKey).post("/contacts/imports", csv, { "content-type": "text/csv" })).status).toBe(202);
  });
});
