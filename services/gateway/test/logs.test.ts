import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Platform, apiClient } from "@mailroom/testkit";

// A platform of its own, so that the test can stop it: once the processes have exited, every line
// they wrote is in their files (they log asynchronously, so a line may trail the answer it belongs to).
const platform = new Platform({ services: ["gateway", "contacts"] });

beforeAll(() => platform.start());
afterAll(() => platform.destroy());

describe("logs", () => {
  it("never contain API keys, the secret, or request bodies, even for failing requests", async () => {
    const project = await platform.createProject("logs");
    const [api, publicApi, anon] = [apiClient(platform.url, project.secretKey), apiClient(platform.url, project.publicKey), apiClient(platform.url)];
    const marker = `body-marker-${Date.now()}`;
    await api.post("/contacts", { email: `logs-${Date.now()}@example.com`, data: { note: marker } });
    await publicApi.post("/v1/track", { email: `logs-${Date.now()}@example.com`, event: "seen", data: { note: marker } });
    await api.post("/contacts", { email: "not-an-email", data: { note: marker } });
    await api.post("/contacts", `{"broken": "${marker}`, { "content-type": "application/json" });
    await anon.get("/contacts", { authorization: `Bearer ${project.secretKey}x` });
    await platform.stop();

    const files = readdirSync(platform.logDir).filter((f) => f.endsWith(".log"));
    expect(files.sort()).toEqual(["contacts-0.log", "gateway-0.log"]);
    const text = files.map((f) => readFileSync(join(platform.logDir, f), "utf8")).join("\n");
    // at least each process's start and stop lines: the files are the ones the processes wrote
    expect(text).toContain('"msg":"gateway stopped"');
    expect(text).toContain('"msg":"contacts stopped"');
    for (const secret of [project.secretKey, project.publicKey, platform.env.MAILROOM_SECRET!, marker]) {
      expect(text.includes(secret), `log contains ${secret.slice(0, 12)}…`).toBe(false);
    }
    // Every line is JSON (structured logs), so a collector can parse them.
    for (const line of text.split("\n").filter(Boolean)) expect(() => JSON.parse(line), line.slice(0, 120)).not.toThrow();
  });
});
