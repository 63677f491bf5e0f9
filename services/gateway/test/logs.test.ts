import { describe, expect, it } from "vitest";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT, sleep } from "@mailroom/testkit";
import { newProject, sharedPlatform } from "@mailroom/testkit/shared";

describe("logs", () => {
  it("never contain API keys, the secret, or request bodies, even for failing requests", async () => {
    const p = await newProject("logs");
    const marker = `body-marker-${Date.now()}`;
    await p.api.post("/contacts", { email: `logs-${Date.now()}@example.com`, data: { note: marker } });
    await p.publicApi.post("/v1/track", { email: `logs-${Date.now()}@example.com`, event: "seen", data: { note: marker } });
    await p.api.post("/contacts", { email: "not-an-email", data: { note: marker } });
    await p.api.post("/contacts", `{"broken": "${marker}`, { "content-type": "application/json" });
    await p.anon.get("/contacts", { authorization: `Bearer ${p.secretKey}x` });
    await sleep(500); // let the processes flush their log lines

    const { prefix, env } = sharedPlatform();
    const dir = join(REPO_ROOT, ".mailroom", "test-logs", prefix);
    const files = readdirSync(dir).filter((f) => f.endsWith(".log"));
    expect(files.length).toBeGreaterThanOrEqual(6);
    const text = files.map((f) => readFileSync(join(dir, f), "utf8")).join("\n");
    expect(text.length).toBeGreaterThan(0);
    for (const secret of [p.secretKey, p.publicKey, env.MAILROOM_SECRET!, marker]) {
      expect(text.includes(secret), `log contains ${secret.slice(0, 12)}…`).toBe(false);
    }
    // Every line is JSON (structured logs), so a collector can parse them.
    for (const line of text.split("\n").filter(Boolean)) expect(() => JSON.parse(line), line.slice(0, 120)).not.toThrow();
  });
});
