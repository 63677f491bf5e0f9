import { beforeAll, describe, expect, it } from "vitest";
import { connect } from "@nats-io/transport-node";
import { addZones, newProject, sharedPlatform } from "@mailroom/testkit/shared";
import { uniqueDomain, verifiedDomain } from "./helpers.js";

type Project = Awaited<ReturnType<typeof newProject>>;

describe("sending domains", () => {
  let p: Project;
  beforeAll(async () => {
    p = await newProject("domains");
  });

  it("generates a 2048-bit DKIM key and the records to publish", async () => {
    const domain = uniqueDomain();
    const res = await p.api.post("/domains", { domain: domain.toUpperCase() });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ domain, status: "PENDING", verifiedAt: null });
    const purposes = res.body.records.map((r: any) => r.purpose).sort();
    expect(purposes).toEqual(["dkim", "dmarc", "spf"]);
    const dkim = res.body.records.find((r: any) => r.purpose === "dkim");
    expect(dkim.name).toMatch(new RegExp(`^[a-z0-9]+\\._domainkey\\.${domain.replace(/\./g, "\\.")}$`));
    const key = /p=([A-Za-z0-9+/=]+)/.exec(dkim.value)![1]!;
    const { createPublicKey } = await import("node:crypto");
    const pub = createPublicKey({ key: Buffer.from(key, "base64"), format: "der", type: "spki" });
    expect(pub.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect((await p.api.post("/domains", { domain })).status).toBe(409);
  });

  it("stays pending until the DKIM record is published, then verifies", async () => {
    const domain = uniqueDomain();
    const created = await p.api.post("/domains", { domain });
    const first = await p.api.post(`/domains/${created.body.id}/verify`);
    expect(first.body.status).toBe("PENDING");
    expect(first.body.records.every((r: any) => r.found === false)).toBe(true);

    const dkim = created.body.records.find((r: any) => r.purpose === "dkim");
    const spf = created.body.records.find((r: any) => r.purpose === "spf");
    addZones(sharedPlatform().zonesFile, { [dkim.name]: { TXT: [dkim.value] }, [domain]: { TXT: [spf.value] } });
    const second = await p.api.post(`/domains/${created.body.id}/verify`);
    expect(second.body.status).toBe("VERIFIED");
    expect(second.body.verifiedAt).not.toBeNull();
    const found = Object.fromEntries(second.body.records.map((r: any) => [r.purpose, r.found]));
    expect(found).toEqual({ dkim: true, spf: true, dmarc: false });
    expect((await p.api.get(`/domains/${created.body.id}`)).body.status).toBe("VERIFIED");
  });

  it("does not verify with somebody else's key", async () => {
    const domain = uniqueDomain();
    const created = await p.api.post("/domains", { domain });
    const dkim = created.body.records.find((r: any) => r.purpose === "dkim");
    addZones(sharedPlatform().zonesFile, { [dkim.name]: { TXT: ["v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAwrong"] } });
    expect((await p.api.post(`/domains/${created.body.id}/verify`)).body.status).toBe("PENDING");
  });

  it("lists, hides other projects' domains and deletes", async () => {
    const other = await newProject("domains-other");
    const d = await verifiedDomain(p.api);
    expect((await p.api.get("/domains")).body.data.map((x: any) => x.id)).toContain(d.id);
    expect((await other.api.get("/domains")).body.data).toEqual([]);
    expect((await other.api.get(`/domains/${d.id}`)).status).toBe(404);
    expect((await other.api.post(`/domains/${d.id}/verify`)).status).toBe(404);
    expect((await other.api.delete(`/domains/${d.id}`)).status).toBe(404);
    expect((await p.api.delete(`/domains/${d.id}`)).status).toBe(204);
    expect((await p.api.get(`/domains/${d.id}`)).status).toBe(404);
  });

  it("refuses a sender at once after its domain is deleted, though it was just used", async () => {
    const d = await verifiedDomain(p.api);
    const send = () => p.api.post("/v1/send", { to: "someone@example.com", from: `hi@${d.domain}`, subject: "s", body: "<p>b</p>" });
    // the sending service reuses a VERIFIED answer for a moment; its own deletion must end that
    expect((await send()).status).toBe(200);
    expect((await p.api.delete(`/domains/${d.id}`)).status).toBe(204);
    const refused = await send();
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe("DOMAIN_NOT_VERIFIED");
  });

  it("answers the domain RPCs (forceVerify for the CLI, domainVerified for other services)", async () => {
    const { prefix } = sharedPlatform();
    const nc = await connect({ servers: process.env.NATS_URL ?? "nats://127.0.0.1:4222" });
    const call = async (op: string, body: unknown) =>
      JSON.parse(new TextDecoder().decode((await nc.request(`${prefix}.rpc.${op}`, JSON.stringify(body), { timeout: 5000 })).data));
    try {
      const domain = uniqueDomain("force");
      const before = await call("sending.domainVerified", { projectId: p.id, email: `a@${domain}` });
      expect(before).toEqual({ ok: true, result: { verified: false } });
      const forced = await call("sending.domains.forceVerify", { projectId: p.id, domain });
      expect(forced.result.domain).toMatchObject({ domain, status: "VERIFIED" });
      expect((await call("sending.domainVerified", { projectId: p.id, email: `a@${domain}` })).result.verified).toBe(true);
      const again = await call("sending.domains.forceVerify", { projectId: p.id, domain });
      expect(again.result.domain.id).toBe(forced.result.domain.id);
    } finally {
      await nc.close();
    }
  });
});
