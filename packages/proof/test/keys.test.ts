import { beforeAll, describe, expect, it } from "vitest";
import { ErrorBody } from "@mailroom/contracts";
import { apiClient, runCli, waitFor } from "@mailroom/testkit";
import { newProject, sharedPlatform } from "@mailroom/testkit/shared";
import { fillPath, label, loadApi, type ApiDocument, type Operation } from "./support/openapi.js";
import { expectLogsFreeOf } from "./support/logs.js";

/**
 * API keys, generated from the served document: a pk_ key is refused on every route but the ones the
 * document marks (only /v1/track), and every kind of bad key gets one identical 401 body, so an
 * attacker learns nothing about which keys exist or were revoked.
 */
let api: ApiDocument;
let project: Awaited<ReturnType<typeof newProject>>;
let revokedKey: string;
const { url, env } = sharedPlatform();

beforeAll(async () => {
  api = await loadApi();
  project = await newProject("keys");
  const created = JSON.parse(await runCli(["keys", "create", "--project", project.id, "--kind", "secret", "--json"], env));
  await runCli(["keys", "revoke", created.id], env);
  revokedKey = created.key;
  const client = apiClient(url, revokedKey);
  await waitFor(async () => (await client.get("/contacts")).status === 401, { timeoutMs: 5000, what: "revocation" });
}, 60_000);

const anyPath = (op: Operation) => fillPath(op.path, Object.fromEntries(op.pathParams.map((p) => [p, "01a1fd16-7867-76a6-891d-2ca844d378f3"])));
const bodyFor = (op: Operation) => (op.method === "GET" || op.method === "DELETE" ? undefined : {});
const withoutTime = (body: unknown) => {
  const { time: _t, ...rest } = ErrorBody.parse(body);
  return rest;
};

describe("API keys on every route of the document", () => {
  it("accepts a pk_ key on /v1/track only", () => {
    expect(api.operations.filter((op) => op.secured && op.acceptsPublicKey).map(label)).toEqual(["POST /v1/track"]);
  });

  it("refuses a pk_ key, and missing, malformed, unknown and revoked keys, with one identical 401 body", async () => {
    const variants: Record<string, string | undefined> = {
      missing: undefined,
      "empty bearer": "Bearer ",
      "wrong scheme": `Basic ${project.secretKey}`,
      "no scheme": project.secretKey,
      malformed: "Bearer sk_short",
      "unknown secret": `Bearer sk_${"A".repeat(43)}`,
      "unknown public": `Bearer pk_${"A".repeat(43)}`,
      "unknown prefix": `Bearer xk_${project.secretKey.slice(3)}`,
      "secret with a flipped char": `Bearer ${project.secretKey.slice(0, -1)}${project.secretKey.endsWith("A") ? "B" : "A"}`,
      revoked: `Bearer ${revokedKey}`,
      public: `Bearer ${project.publicKey}`,
    };
    const bodies = new Map<string, unknown>();
    const failures: string[] = [];
    const anon = apiClient(url);
    for (const op of api.operations.filter((o) => o.secured)) {
      for (const [name, header] of Object.entries(variants)) {
        if (name === "public" && op.acceptsPublicKey) continue;
        const res = await anon.call(op.method, anyPath(op), bodyFor(op), header === undefined ? {} : { authorization: header });
        if (res.status !== 401) failures.push(`${label(op)} with a ${name} key: ${res.status}`);
        else bodies.set(`${label(op)} ${name}`, withoutTime(res.body));
      }
    }
    expect(failures).toEqual([]);
    const distinct = new Set([...bodies.values()].map((b) => JSON.stringify(b)));
    expect([...distinct]).toEqual([JSON.stringify({ code: 401, error: "UNAUTHORIZED", message: "Missing or invalid API key" })]);
  }, 120_000);

  it("accepts the pk_ key where the document says so", async () => {
    for (const op of api.operations.filter((o) => o.acceptsPublicKey)) {
      const res = await project.publicApi.call(op.method, anyPath(op), { email: "keys-probe@example.com", event: "keys_probe" });
      expect(res.status, `${label(op)}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    }
  });

  it("logs none of the keys", async () => {
    await expectLogsFreeOf({ "secret key": project.secretKey, "public key": project.publicKey, "revoked key": revokedKey });
  });
});
