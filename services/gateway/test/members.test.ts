import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKeyList, CreatedKey, ErrorBody, Member, MemberList } from "@mailroom/contracts";
import { Platform, apiClient, waitFor } from "@mailroom/testkit";
import { fakeService } from "./fake-service.js";
import { browser, createUser, signedIn, type Browser } from "./sessions-helpers.js";

const PASSWORD = "correct horse battery";
const platform = new Platform({ services: ["gateway"], env: { SESSION_CACHE_MS: "0", LOGIN_MAX_FAILURES_PER_CLIENT: "1000" } });
let project: Awaited<ReturnType<Platform["createProject"]>>;
let other: Awaited<ReturnType<Platform["createProject"]>>;
let fake: Awaited<ReturnType<typeof fakeService>>;
let owner: Browser;
let editor: Browser;
let viewer: Browser;
let ids: Record<string, string>;

beforeAll(async () => {
  await platform.start();
  project = await platform.createProject("members");
  other = await platform.createProject("other");
  fake = await fakeService(platform.prefix, "contacts", { "contacts.list": async () => ({ status: 200, body: { data: [] } }) });
  ids = {};
  for (const role of ["owner", "editor", "viewer"] as const) ids[role] = (await createUser(platform, `${role}@example.com`, project.id, role, PASSWORD)).user.id;
  ids.stranger = (await createUser(platform, "stranger@example.com", other.id, "owner", PASSWORD)).user.id;
  [owner, editor, viewer] = await Promise.all(["owner", "editor", "viewer"].map((r) => signedIn(platform, `${r}@example.com`, PASSWORD)));
});
afterAll(async () => {
  await fake?.stop();
  await platform.destroy();
});

const errorOf = (body: unknown) => ErrorBody.parse(body).error;
const P = () => `/projects/${project.id}`;

describe("members", () => {
  it("are listed to every member, and to nobody else", async () => {
    const res = await viewer.get(`${P()}/members`);
    expect(res.status).toBe(200);
    const list = MemberList.parse(res.body).data;
    expect(list.map((m) => [m.email, m.role, m.pending]).sort()).toEqual([
      ["editor@example.com", "editor", false],
      ["owner@example.com", "owner", false],
      ["viewer@example.com", "viewer", false],
    ]);
    const stranger = await signedIn(platform, "stranger@example.com", PASSWORD);
    expect((await stranger.get(`${P()}/members`)).status).toBe(404);
    expect((await stranger.get(`/projects/not-an-id/members`)).status).toBe(404);
    expect((await browser(platform, "mailroom_session=nothing").get(`${P()}/members`)).status).toBe(401);
    expect((await apiClient(platform.url, project.secretKey).get(`${P()}/members`)).status).toBe(401);
  });

  it("change role only by an owner, with the project header, and never leave a project without an owner", async () => {
    expect(errorOf((await editor.patch(`${P()}/members/${ids.viewer}`, { role: "editor" }, project.id)).body)).toBe("FORBIDDEN");
    expect(errorOf((await owner.patch(`${P()}/members/${ids.viewer}`, { role: "editor" })).body)).toBe("FORBIDDEN");
    const up = await owner.patch(`${P()}/members/${ids.viewer}`, { role: "editor" }, project.id);
    expect(up.status).toBe(200);
    expect(Member.parse(up.body)).toMatchObject({ userId: ids.viewer, role: "editor", pending: false });
    // the new role applies at once (no cache in this platform)
    expect((await viewer.patch(`${P()}/members/${ids.viewer}`, { role: "viewer" }, project.id)).status).toBe(403);
    await owner.patch(`${P()}/members/${ids.viewer}`, { role: "viewer" }, project.id);

    const last = await owner.patch(`${P()}/members/${ids.owner}`, { role: "editor" }, project.id);
    expect(last.status).toBe(409);
    expect(errorOf(last.body)).toBe("CONFLICT");
    expect((await owner.delete(`${P()}/members/${ids.owner}`, project.id)).status).toBe(409);
  });

  it("refuse bad inputs", async () => {
    const cases: Array<[Promise<{ status: number; body: unknown }>, number]> = [
      [owner.patch(`${P()}/members/${ids.viewer}`, { role: "admin" }, project.id), 400],
      [owner.patch(`${P()}/members/${ids.viewer}`, {}, project.id), 400],
      [owner.patch(`${P()}/members/not-an-id`, { role: "viewer" }, project.id), 404],
      [owner.delete(`${P()}/members/not-an-id`, project.id), 404],
      [owner.patch(`${P()}/members/${ids.stranger}`, { role: "viewer" }, project.id), 404],
      [owner.delete(`${P()}/members/${ids.stranger}`, project.id), 404],
      [owner.post(`${P()}/members`, { email: "nope", role: "viewer" }, project.id), 400],
      [owner.post(`${P()}/members`, { email: "x@example.com", role: "root" }, project.id), 400],
      [owner.post(`${P()}/members`, { email: "editor@example.com", role: "viewer" }, project.id), 409],
      [owner.post(`${P()}/members`, "not json", project.id, { "content-type": "application/json" }), 400],
      [owner.post(`/projects/${other.id}/members`, { email: "x@example.com", role: "viewer" }, other.id), 404],
      [owner.patch(`${P()}/members/${ids.viewer}`, { role: "viewer" }, project.id, { origin: "https://evil.example" }), 403],
    ];
    for (const [i, [call, status]] of cases.entries()) {
      const res = await call;
      expect(res.status, `case ${i}: ${JSON.stringify(res.body)}`).toBe(status);
      expect(ErrorBody.safeParse(res.body).success, `case ${i}`).toBe(true);
    }
  });

  it("removal takes the project away, and only that", async () => {
    const extra = await createUser(platform, "leaving@example.com", project.id, "editor", PASSWORD);
    await createUser(platform, "leaving@example.com", other.id, "viewer");
    const leaving = await signedIn(platform, "leaving@example.com", PASSWORD);
    expect((await leaving.get("/contacts", project.id)).status).toBe(200);
    expect((await owner.delete(`${P()}/members/${extra.user.id}`, project.id)).status).toBe(204);
    expect((await leaving.get("/contacts", project.id)).status).toBe(404);
    expect((await leaving.get("/contacts", other.id)).status).toBe(200);
    const me = await leaving.get("/auth/me");
    expect(me.body.projects.map((p: { id: string }) => p.id)).toEqual([other.id]);
    expect((await owner.delete(`${P()}/members/${extra.user.id}`, project.id)).status).toBe(404);
  });
});

describe("keys", () => {
  it("are for owners only", async () => {
    expect((await editor.get(`${P()}/keys`)).status).toBe(403);
    expect((await viewer.post(`${P()}/keys`, { kind: "secret", name: "x" }, project.id)).status).toBe(403);
    expect((await owner.get(`/projects/${other.id}/keys`)).status).toBe(404);
  });

  it("created through the route work on the API once, are listed without the key, and stop working after revoke", async () => {
    const res = await owner.post(`${P()}/keys`, { kind: "secret", name: "  CI deploys  ", rateLimit: 50 }, project.id);
    expect(res.status).toBe(201);
    const created = CreatedKey.parse(res.body);
    expect(created).toMatchObject({ kind: "secret", name: "CI deploys", rateLimit: 50, revokedAt: null });
    expect(created.key.startsWith(created.prefix.replace("…", ""))).toBe(true);
    const api = apiClient(platform.url, created.key);
    expect((await api.get("/contacts")).status).toBe(200);

    const list = ApiKeyList.parse((await owner.get(`${P()}/keys`)).body).data;
    expect(list.map((k) => k.name)).toEqual(["secret", "public", "CI deploys"]);
    expect(JSON.stringify(list)).not.toContain(created.key);

    expect((await owner.delete(`${P()}/keys/${created.id}`, project.id)).status).toBe(204);
    await waitFor(async () => (await api.get("/contacts")).status === 401, { timeoutMs: 1000, intervalMs: 20, what: "revocation" });
    const after = ApiKeyList.parse((await owner.get(`${P()}/keys`)).body).data.find((k) => k.id === created.id);
    expect(after?.revokedAt).toBeTruthy();
  });

  it("refuse bad inputs, and another project's key is 404", async () => {
    const foreign = JSON.parse(await platform.cli(["keys", "create", "--project", other.id, "--kind", "secret", "--json"]));
    const cases: Array<[Promise<{ status: number; body: unknown }>, number]> = [
      [owner.post(`${P()}/keys`, { kind: "root", name: "x" }, project.id), 400],
      [owner.post(`${P()}/keys`, { kind: "secret" }, project.id), 400],
      [owner.post(`${P()}/keys`, { kind: "secret", name: "   " }, project.id), 400],
      [owner.post(`${P()}/keys`, { kind: "secret", name: "x".repeat(101) }, project.id), 400],
      [owner.post(`${P()}/keys`, { kind: "secret", name: "x", rateLimit: 0 }, project.id), 400],
      [owner.post(`${P()}/keys`, { kind: "secret", name: "nul\u0000" }, project.id), 400],
      [owner.post(`${P()}/keys`, { kind: "secret", name: "x" }), 403],
      [owner.delete(`${P()}/keys/${foreign.id}`, project.id), 404],
      [owner.delete(`${P()}/keys/not-an-id`, project.id), 404],
    ];
    for (const [i, [call, status]] of cases.entries()) {
      const res = await call;
      expect(res.status, `case ${i}: ${JSON.stringify(res.body)}`).toBe(status);
      expect(ErrorBody.safeParse(res.body).success, `case ${i}`).toBe(true);
    }
    expect((await apiClient(platform.url, foreign.key).get("/contacts")).status).toBe(200);
  });
});

describe("the OpenAPI document", () => {
  it("lists the account routes with the cookie scheme", async () => {
    const doc = (await apiClient(platform.url).get("/openapi.json")).body;
    expect(doc.components.securitySchemes.sessionCookie).toMatchObject({ type: "apiKey", in: "cookie", name: "mailroom_session" });
    expect(doc.paths["/projects/{id}/members"].get.security).toEqual([{ sessionCookie: [] }]);
    expect(doc.paths["/auth/login"].post.security).toEqual([]);
    expect(doc.paths["/contacts"].get.security).toEqual([{ bearerAuth: [] }, { sessionCookie: [] }]);
  });
});
