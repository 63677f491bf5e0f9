import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type postgres from "postgres";
import { ErrorBody, SessionInfo } from "@mailroom/contracts";
import { Platform, apiClient } from "@mailroom/testkit";
import { fakeService } from "./fake-service.js";
import { browser, cliCreateUser, createUser, gatewayDb, login, sessionCookie, signedIn } from "./sessions-helpers.js";

const PASSWORD = "correct horse battery";
const platform = new Platform({
  services: ["gateway"],
  // every test client is 127.0.0.1: the per-client count must not end the other tests
  env: { SESSION_CACHE_MS: "0", LOGIN_MAX_FAILURES_PER_CLIENT: "1000", SESSION_IDLE_MS: "3600000", SESSION_MAX_MS: "86400000" },
});
let project: Awaited<ReturnType<Platform["createProject"]>>;
let other: Awaited<ReturnType<Platform["createProject"]>>;
let fake: Awaited<ReturnType<typeof fakeService>>;
let db: postgres.Sql;
const seen: Array<string | null> = [];

beforeAll(async () => {
  await platform.start();
  project = await platform.createProject("sessions");
  other = await platform.createProject("someone else's");
  const echo = async (input: { projectId: string | null }) => {
    seen.push(input.projectId);
    return { status: 200, body: { projectId: input.projectId } };
  };
  fake = await fakeService(platform.prefix, "contacts", { "contacts.list": echo, "contacts.create": echo });
  db = gatewayDb(platform);
  await createUser(platform, "owner@example.com", project.id, "owner", PASSWORD);
  await createUser(platform, "Viewer@Example.com", project.id, "viewer", PASSWORD);
  await createUser(platform, "editor@example.com", project.id, "editor", PASSWORD);
});
afterAll(async () => {
  await db?.end();
  await fake?.stop();
  await platform.destroy();
});

const errorOf = (body: unknown) => ErrorBody.parse(body);

describe("sign-in", () => {
  it("answers SessionInfo and a HttpOnly, SameSite=Lax session cookie (emails match whatever their case)", async () => {
    const res = await login(platform, "VIEWER@example.com", PASSWORD);
    expect(res.status).toBe(200);
    const info = SessionInfo.parse(res.body);
    expect(info.user.email).toBe("Viewer@Example.com");
    expect(info.projects).toEqual([{ id: project.id, name: "sessions", role: "viewer" }]);
    expect(res.body.user).not.toHaveProperty("passwordHash");
    const set = res.headers.get("set-cookie")!;
    expect(set).toMatch(/HttpOnly/);
    expect(set).toMatch(/SameSite=Lax/);
    expect(set).toMatch(/Path=\//);
    expect(set).not.toMatch(/Secure/); // PUBLIC_URL is http here
    const me = await browser(platform, sessionCookie(res)).get("/auth/me");
    expect(me.status).toBe(200);
    expect(SessionInfo.parse(me.body)).toEqual(info);
  });

  it("gives a wrong password and an unknown user the same 401", async () => {
    const wrong = await login(platform, "editor@example.com", "not the password");
    const unknown = await login(platform, "nobody@example.com", "not the password");
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    const { time: _a, ...a } = errorOf(wrong.body);
    const { time: _b, ...b } = errorOf(unknown.body);
    expect(a).toEqual(b);
    expect(wrong.headers.get("set-cookie")).toBeNull();
  });

  it("refuses bad bodies with the Error object", async () => {
    const api = apiClient(platform.url);
    for (const body of [{}, { email: "owner@example.com" }, { email: "not-an-email", password: "x" }, { email: "owner@example.com", password: "x".repeat(201) }, "[", 42]) {
      const res = await api.post("/auth/login", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(errorOf(res.body).error).toBe("VALIDATION_ERROR");
    }
  });

  it("answers 429 after 10 failures for one address, even with the right password, and leaves other addresses alone", async () => {
    await createUser(platform, "target@example.com", project.id, "viewer", PASSWORD);
    for (let i = 0; i < 10; i++) expect((await login(platform, "target@example.com", `guess number ${i}`)).status).toBe(401);
    const blocked = await login(platform, "target@example.com", PASSWORD);
    expect(blocked.status).toBe(429);
    expect(errorOf(blocked.body).error).toBe("RATE_LIMITED");
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(60);
    expect((await login(platform, "owner@example.com", PASSWORD)).status).toBe(200);
  });

  it("limits parallel wrong passwords for one address exactly as serial ones", async () => {
    await createUser(platform, "parallel@example.com", project.id, "viewer", PASSWORD);
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => login(platform, "parallel@example.com", `parallel guess ${i}`)));
    const got = answers.map((a) => a.status).sort();
    // ten judged (and hashed), as ten serial guesses would be; the other thirty refused before the hash
    expect(got.filter((s) => s === 401)).toHaveLength(10);
    expect(got.filter((s) => s === 429)).toHaveLength(30);
    expect(Number(answers.find((a) => a.status === 429)!.headers.get("retry-after"))).toBeGreaterThan(60);
    expect((await login(platform, "parallel@example.com", PASSWORD)).status).toBe(429);
  });

  it("refuses a sign-in posted from another origin", async () => {
    const res = await apiClient(platform.url).post("/auth/login", { email: "owner@example.com", password: PASSWORD }, { origin: "https://evil.example" });
    expect(res.status).toBe(403);
    expect(errorOf(res.body).error).toBe("FORBIDDEN");
  });
});

describe("sessions", () => {
  it("stop working after logout (revoked on the server, not only the cookie cleared)", async () => {
    const b = await signedIn(platform, "owner@example.com", PASSWORD);
    expect((await b.get("/contacts", project.id)).status).toBe(200);
    const out = await b.post("/auth/logout", {});
    expect(out.status).toBe(204);
    expect(out.headers.get("set-cookie")).toMatch(/Max-Age=0/);
    // the old cookie, replayed
    expect((await b.get("/auth/me")).status).toBe(401);
    expect((await b.get("/contacts", project.id)).status).toBe(401);
  });

  it("end after the idle bound and after the absolute bound", async () => {
    const idle = await signedIn(platform, "owner@example.com", PASSWORD);
    await db`update sessions set last_seen_at = now() - interval '2 hours' where revoked_at is null and expires_at > now() and last_seen_at > now() - interval '1 minute'`;
    expect((await idle.get("/auth/me")).status).toBe(401);

    const old = await signedIn(platform, "owner@example.com", PASSWORD);
    expect((await old.get("/auth/me")).status).toBe(200);
    await db`update sessions set expires_at = now() - interval '1 second' where revoked_at is null and last_seen_at > now() - interval '1 minute'`;
    const res = await old.get("/auth/me");
    expect(res.status).toBe(401);
    expect(errorOf(res.body).error).toBe("UNAUTHORIZED");
  });

  it("refuses forged and malformed cookies", async () => {
    for (const cookie of ["mailroom_session=", `mailroom_session=${"A".repeat(43)}`, "mailroom_session=%00%01", "mailroom_session=x; mailroom_session=y"]) {
      expect((await browser(platform, cookie).get("/auth/me")).status, cookie).toBe(401);
      expect((await browser(platform, cookie).get("/contacts", project.id)).status, cookie).toBe(401);
    }
  });
});

describe("ending sessions", () => {
  const NEW_PASSWORD = "a brand new passphrase";

  it("a password change needs the current password and ends every other session of the user", async () => {
    await createUser(platform, "changer@example.com", project.id, "editor", PASSWORD);
    const here = await signedIn(platform, "changer@example.com", PASSWORD);
    const elsewhere = await signedIn(platform, "changer@example.com", PASSWORD);

    const wrong = await here.post("/auth/password", { currentPassword: "not the password", newPassword: NEW_PASSWORD });
    expect(wrong.status).toBe(400);
    expect(errorOf(wrong.body).details).toEqual([{ path: "currentPassword", message: "The current password is wrong" }]);
    expect((await here.post("/auth/password", { currentPassword: PASSWORD, newPassword: "short" })).status).toBe(400);
    expect((await elsewhere.get("/auth/me")).status).toBe(200);

    const changed = await here.post("/auth/password", { currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    expect(changed.status).toBe(204);
    expect((await elsewhere.get("/auth/me")).status).toBe(401);
    expect((await elsewhere.get("/contacts", project.id)).status).toBe(401);
    expect((await here.get("/auth/me")).status).toBe(200);
    expect((await login(platform, "changer@example.com", PASSWORD)).status).toBe(401);
    expect((await login(platform, "changer@example.com", NEW_PASSWORD)).status).toBe(200);
  });

  it("signing out everywhere ends every session of the user, this one included, and no one else's", async () => {
    await createUser(platform, "everywhere@example.com", project.id, "viewer", PASSWORD);
    const [laptop, phone] = [await signedIn(platform, "everywhere@example.com", PASSWORD), await signedIn(platform, "everywhere@example.com", PASSWORD)];
    const bystander = await signedIn(platform, "editor@example.com", PASSWORD);
    const out = await phone.post("/auth/logout-everywhere", {});
    expect(out.status).toBe(204);
    expect(out.headers.get("set-cookie")).toMatch(/Max-Age=0/);
    expect((await laptop.get("/auth/me")).status).toBe(401);
    expect((await phone.get("/auth/me")).status).toBe(401);
    expect((await bystander.get("/auth/me")).status).toBe(200);
    // from another site, it is refused like every other change
    const again = await signedIn(platform, "everywhere@example.com", PASSWORD);
    expect((await again.post("/auth/logout-everywhere", {}, undefined, { origin: "https://evil.example" })).status).toBe(403);
    expect((await again.get("/auth/me")).status).toBe(200);
  });

  it("the operator setting a new password ends the user's sessions", async () => {
    await createUser(platform, "reset@example.com", project.id, "viewer", PASSWORD);
    const b = await signedIn(platform, "reset@example.com", PASSWORD);
    await createUser(platform, "reset@example.com", project.id, "viewer", NEW_PASSWORD);
    expect((await b.get("/auth/me")).status).toBe(401);
    expect((await login(platform, "reset@example.com", NEW_PASSWORD)).status).toBe(200);
  });
});

describe("API routes with a session", () => {
  it("forward with the header's project, as a key of that project would", async () => {
    const b = await signedIn(platform, "viewer@example.com", PASSWORD);
    const res = await b.get("/contacts", project.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ projectId: project.id });
  });

  it("answer 404 for a project the user is not a member of, and for ids that are no id", async () => {
    const b = await signedIn(platform, "owner@example.com", PASSWORD);
    for (const id of [other.id, "00000000-0000-7000-8000-000000000000", "not-a-uuid", "' or 1=1 --"]) {
      const res = await b.get("/contacts", id);
      expect(res.status, id).toBe(404);
      expect(errorOf(res.body).error).toBe("NOT_FOUND");
      expect((await b.post("/contacts", { email: "a@example.com" }, id)).status, id).toBe(404);
    }
  });

  it("need the project header: 400 on a read, 403 on a change", async () => {
    const b = await signedIn(platform, "owner@example.com", PASSWORD);
    const read = await b.get("/contacts");
    expect(read.status).toBe(400);
    expect(errorOf(read.body).details?.[0]?.path).toBe("headers.x-mailroom-project");
    const write = await b.post("/contacts", { email: "a@example.com" });
    expect(write.status).toBe(403);
    expect(errorOf(write.body).error).toBe("FORBIDDEN");
  });

  it("refuse a change from a foreign Origin and accept one from PUBLIC_URL's", async () => {
    const b = await signedIn(platform, "owner@example.com", PASSWORD);
    const forged = await b.post("/contacts", { email: "a@example.com" }, project.id, { origin: "https://evil.example" });
    expect(forged.status).toBe(403);
    expect(errorOf(forged.body).error).toBe("FORBIDDEN");
    const own = await b.post("/contacts", { email: "a@example.com" }, project.id, { origin: new URL(platform.url).origin });
    expect(own.status).toBe(200);
    // a read from anywhere is harmless (the answer is not readable cross-origin without CORS)
    expect((await b.get("/contacts", project.id, { origin: "https://evil.example" })).status).toBe(200);
  });

  it("let a viewer read but not write, and an editor write but not use an owner route", async () => {
    const viewer = await signedIn(platform, "viewer@example.com", PASSWORD);
    expect((await viewer.get("/contacts", project.id)).status).toBe(200);
    const denied = await viewer.post("/contacts", { email: "a@example.com" }, project.id);
    expect(denied.status).toBe(403);
    expect(errorOf(denied.body).error).toBe("FORBIDDEN");

    const editor = await signedIn(platform, "editor@example.com", PASSWORD);
    expect((await editor.post("/contacts", { email: "a@example.com" }, project.id)).status).toBe(200);
    const owners = await editor.post("/domains", { domain: "example.org" }, project.id);
    expect(owners.status).toBe(403);
    expect(errorOf(owners.body).error).toBe("FORBIDDEN");
  });

  it("let a key decide when Authorization is given beside a cookie", async () => {
    const viewer = await signedIn(platform, "viewer@example.com", PASSWORD);
    const withKey = await apiClient(platform.url, project.secretKey).post("/contacts", { email: "a@example.com" }, { cookie: viewer.cookie });
    expect(withKey.status).toBe(200);
    const badKey = await apiClient(platform.url, `sk_${"B".repeat(43)}`).get("/contacts", { cookie: viewer.cookie, "x-mailroom-project": project.id });
    expect(badKey.status).toBe(401);
  });
});

describe("mailroom users create", () => {
  it("prints a generated password that signs in, and adds a membership to an existing user", async () => {
    const made = await cliCreateUser(platform, "cli@example.com", project.id, "editor");
    expect(made.password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(made.role).toBe("editor");
    const res = await login(platform, "cli@example.com", made.password);
    expect(res.status).toBe(200);
    const again = await cliCreateUser(platform, "CLI@example.com", other.id, "owner");
    expect(again.user.id).toBe(made.user.id);
    expect(again.password).toBeUndefined();
    const info = SessionInfo.parse((await login(platform, "cli@example.com", made.password)).body);
    expect(info.projects.map((p) => p.role).sort()).toEqual(["editor", "owner"]);
  });

  it("refuses bad arguments with a usage error", async () => {
    for (const args of [
      ["--email", "nope", "--project", project.id, "--role", "owner"],
      ["--email", "a@example.com", "--project", project.id, "--role", "admin"],
      ["--email", "a@example.com", "--project", "00000000-0000-7000-8000-000000000000", "--role", "owner"],
      ["--email", "a@example.com", "--project", project.id, "--role", "owner", "--password", "short"],
    ]) {
      await expect(platform.cli(["users", "create", ...args])).rejects.toThrow(/exited 2/);
    }
  });
});

describe("OpenID Connect sign-in", () => {
  it("is 404 when not configured", async () => {
    for (const path of ["/auth/oidc/start", "/auth/oidc/callback?code=x&state=y"]) {
      const res = await apiClient(platform.url).get(path);
      expect(res.status, path).toBe(404);
      expect(errorOf(res.body).error).toBe("NOT_FOUND");
    }
  });
});
