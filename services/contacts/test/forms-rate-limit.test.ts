import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FORM_HIDDEN, FORM_SUBMISSIONS_PER_MINUTE } from "@mailroom/contracts";
import { Drain, Platform, addZones, apiClient } from "@mailroom/testkit";
import { sharedPlatform } from "@mailroom/testkit/shared";
import { signRenderTime } from "../src/domain/forms.js";
import { expectError } from "./helpers.js";

/**
 * 10 form submissions a minute per client address (decisions.md §17), on a platform of its own: on
 * the shared one every test client is 127.0.0.1 and the limit is raised (testkit Platform). It uses
 * the shared DNS server, where this file gives its domain mail servers.
 */
const platform = new Platform({
  services: ["gateway", "contacts", "verify", "sending"],
  env: { DNS_SERVER: sharedPlatform().dnsAddress, SMTP_URL: sharedPlatform().smtpUrl, FORM_SUBMISSIONS_PER_MINUTE: String(FORM_SUBMISSIONS_PER_MINUTE) },
});
const domain = `limit-${randomUUID().slice(0, 8)}.example`;
let drain: Drain;

beforeAll(async () => {
  addZones(sharedPlatform().zonesFile, { [domain]: { MX: [{ exchange: `mx.${domain}`, priority: 10 }], A: ["192.0.2.12"] } });
  await platform.start();
  drain = await Drain.open(platform.env);
});
afterAll(async () => {
  await drain?.close();
  await platform.destroy();
});

describe("form submissions per client address", () => {
  it("accepts 10 in a minute and refuses the 11th, which changes nothing", async () => {
    const project = await platform.createProject("forms-limit");
    const api = apiClient(platform.url, project.secretKey);
    const form = (await api.post("/forms", { name: "Limit", fields: [{ key: "email", label: "Email", type: "email", required: true }] })).body as { id: string };
    const anon = apiClient(platform.url);
    const post = (address: string) => {
      const at = Date.now() - 3000;
      const body = new URLSearchParams({ email: address, [FORM_HIDDEN.renderedAt]: String(at), [FORM_HIDDEN.signature]: signRenderTime(platform.env.MAILROOM_SECRET!, form.id, at) });
      return anon.post(`/f/${form.id}`, body.toString(), { "content-type": "application/x-www-form-urlencoded" });
    };
    const addresses = Array.from({ length: FORM_SUBMISSIONS_PER_MINUTE + 1 }, (_, i) => `n${i}-${randomUUID().slice(0, 6)}@${domain}`);
    for (const address of addresses.slice(0, -1)) expect((await post(address)).status).toBe(200);
    const refused = await post(addresses.at(-1)!);
    expectError(refused, 429, "RATE_LIMITED");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);

    await drain.through();
    const emails = (await api.get("/contacts?limit=100")).body.data.map((c: { email: string }) => c.email);
    expect(emails.sort()).toEqual(addresses.slice(0, -1).sort());
    expect((await api.get(`/forms/${form.id}`)).body.submissions).toBe(FORM_SUBMISSIONS_PER_MINUTE);
    // the hosted page itself is not a submission
    expect((await anon.get(`/f/${form.id}`)).status).toBe(200);
  });
});
