import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorBody, Member, MemberList, SessionInfo } from "@mailroom/contracts";
import { startMailbox } from "@mailroom/devmailbox";
import { Platform, apiClient, sinkMessages, waitFor } from "@mailroom/testkit";
import { createUser, login, sessionCookie, signedIn, type Browser } from "./sessions-helpers.js";

/** Invitations go out through Mailroom itself: the sending service delivers them to the SMTP sink. */
const PASSWORD = "correct horse battery";
let mailbox: Awaited<ReturnType<typeof startMailbox>>;
let platform: Platform;
let project: Awaited<ReturnType<Platform["createProject"]>>;
let owner: Browser;

beforeAll(async () => {
  mailbox = await startMailbox({ smtpPort: 0, httpPort: 0 });
  platform = new Platform({
    services: ["gateway", "sending"],
    env: { SMTP_URL: mailbox.smtpUrl, SESSION_CACHE_MS: "0", LOGIN_MAX_FAILURES_PER_CLIENT: "1000" },
    serviceEnv: { sending: { SYSTEM_FROM: "invites@mailroom.test" }, gateway: { INVITATION_TTL_MS: String(2 * 86_400_000) } },
  });
  await platform.start();
  project = await platform.createProject("Acme <b>& co</b>");
  await createUser(platform, "owner@example.com", project.id, "owner", PASSWORD);
  owner = await signedIn(platform, "owner@example.com", PASSWORD);
});
afterAll(async () => {
  await platform?.destroy();
  await mailbox?.stop();
});

/** The invitation email to `to`, and the token of its link. */
async function invitationTo(to: string): Promise<{ message: Record<string, any>; token: string }> {
  let found: Record<string, any> | undefined;
  await waitFor(async () => (found = (await sinkMessages(mailbox.webUrl, [to]))[0]) !== undefined, { timeoutMs: 20_000, what: `the invitation to ${to}` });
  const text = JSON.stringify(found);
  const m = /\/app\/invite\?token=([A-Za-z0-9_-]{43})/.exec(text);
  if (!m) throw new Error(`no link in ${text.slice(0, 500)}`);
  return { message: found!, token: m[1]! };
}

describe("invitations", () => {
  it("arrive by email from SYSTEM_FROM, list as pending, and on accepting make an account that signs in", async () => {
    const res = await owner.post(`/projects/${project.id}/members`, { email: "new@example.com", role: "editor" }, project.id);
    expect(res.status).toBe(201);
    const invited = Member.parse(res.body);
    expect(invited).toMatchObject({ email: "new@example.com", role: "editor", pending: true });
    const pending = MemberList.parse((await owner.get(`/projects/${project.id}/members`)).body).data;
    expect(pending.find((m) => m.pending)?.userId).toBe(invited.userId);

    const { message, token } = await invitationTo("new@example.com");
    expect(JSON.stringify(message)).toContain("invites@mailroom.test");
    // the project's name is the owner's text: escaped in the HTML
    expect(message.html).toContain("Acme &#60;b&#62;&#38; co&#60;/b&#62;");
    expect(message.html).not.toContain("<b>& co</b>");
    expect(message.subject).toContain("Acme <b>& co</b>");
    expect(message.html).toContain("works once and for 2 days"); // INVITATION_TTL_MS, as configured
    expect(JSON.stringify(message)).toContain(`${new URL(platform.url).origin}/app/invite?token=`);

    const api = apiClient(platform.url);
    expect((await api.post("/auth/invitations/accept", { token, name: "New Person" })).status).toBe(400); // a new account needs a password
    const accepted = await api.post("/auth/invitations/accept", { token, name: "New Person", password: "a new long password" });
    expect(accepted.status).toBe(200);
    const info = SessionInfo.parse(accepted.body);
    expect(info.projects).toEqual([{ id: project.id, name: project.name, role: "editor" }]);
    expect(info.user.name).toBe("New Person");
    expect((await apiClient(platform.url).get("/auth/me", { cookie: sessionCookie(accepted) })).status).toBe(200);

    // single use
    const again = await api.post("/auth/invitations/accept", { token, name: "Someone", password: "another long password" });
    expect(again.status).toBe(404);
    expect(ErrorBody.parse(again.body).error).toBe("NOT_FOUND");
    expect((await login(platform, "new@example.com", "a new long password")).status).toBe(200);
    const members = MemberList.parse((await owner.get(`/projects/${project.id}/members`)).body).data;
    expect(members.filter((m) => m.pending)).toEqual([]);
    expect(members.find((m) => m.email === "new@example.com")?.role).toBe("editor");
  });

  it("add the membership to an existing account only with its password, which stays its own", async () => {
    const other = await platform.createProject("other");
    await createUser(platform, "existing@example.com", other.id, "owner", PASSWORD);
    expect((await owner.post(`/projects/${project.id}/members`, { email: "Existing@Example.com", role: "viewer" }, project.id)).status).toBe(201);
    const { token } = await invitationTo("Existing@Example.com");
    const api = apiClient(platform.url);
    // holding the mailbox is not holding the account: without its password nothing changes
    for (const password of [undefined, "would replace it"]) {
      const refused = await api.post("/auth/invitations/accept", { token, name: "Ignored", ...(password ? { password } : {}) });
      expect(refused.status).toBe(401);
      expect(ErrorBody.parse(refused.body)).toMatchObject({ error: "UNAUTHORIZED", reason: "account_exists" });
      expect(refused.headers.get("set-cookie")).toBeNull();
    }
    expect(MemberList.parse((await owner.get(`/projects/${project.id}/members`)).body).data.find((m) => m.email === "Existing@Example.com")?.pending).toBe(true);
    const accepted = await api.post("/auth/invitations/accept", { token, name: "Ignored", password: PASSWORD });
    expect(accepted.status).toBe(200);
    expect(SessionInfo.parse(accepted.body).projects.map((p) => p.role).sort()).toEqual(["owner", "viewer"]);
    expect((await login(platform, "existing@example.com", PASSWORD)).status).toBe(200);
    expect((await login(platform, "existing@example.com", "would replace it")).status).toBe(401);
  });

  it("add the membership to an existing account signed in as itself, and not to one signed in as another", async () => {
    const other = await platform.createProject("other again");
    await createUser(platform, "signed-in@example.com", other.id, "owner", PASSWORD);
    await owner.post(`/projects/${project.id}/members`, { email: "signed-in@example.com", role: "editor" }, project.id);
    const { token } = await invitationTo("signed-in@example.com");
    const api = apiClient(platform.url);
    const someoneElse = await signedIn(platform, "owner@example.com", PASSWORD);
    expect((await api.post("/auth/invitations/accept", { token, name: "X" }, { cookie: someoneElse.cookie })).status).toBe(401);
    const itself = await signedIn(platform, "signed-in@example.com", PASSWORD);
    const accepted = await api.post("/auth/invitations/accept", { token, name: "X" }, { cookie: itself.cookie });
    expect(accepted.status).toBe(200);
    expect(SessionInfo.parse(accepted.body).projects.find((p) => p.id === project.id)?.role).toBe("editor");
  });

  it("send one email an hour to an address, however often it is invited", async () => {
    const invite = () => owner.post(`/projects/${project.id}/members`, { email: "flood@example.com", role: "viewer" }, project.id);
    const answers = [await invite(), ...(await Promise.all(Array.from({ length: 7 }, invite)))];
    // every answer is the one pending invitation; one email went out
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(201));
    expect(new Set(answers.map((a) => Member.parse(a.body).userId)).size).toBe(1);
    const emails = await apiClient(platform.url, project.secretKey).get("/emails?to=flood%40example.com");
    expect(emails.body.data).toHaveLength(1);
    const { token } = await invitationTo("flood@example.com");

    // withdrawn and invited again within the hour: refused, and still one email
    expect((await owner.delete(`/projects/${project.id}/members/${Member.parse(answers[0]!.body).userId}`, project.id)).status).toBe(204);
    const again = await invite();
    expect(again.status).toBe(429);
    expect(ErrorBody.parse(again.body)).toMatchObject({ error: "RATE_LIMITED", reason: "invitation_recently_sent" });
    expect(Number(again.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await apiClient(platform.url, project.secretKey).get("/emails?to=flood%40example.com")).body.data).toHaveLength(1);
    expect((await apiClient(platform.url).post("/auth/invitations/accept", { token, name: "X", password: "a long enough password" })).status).toBe(404);
  });

  it("can be withdrawn, and an expired, unknown or malformed token is refused", async () => {
    const res = await owner.post(`/projects/${project.id}/members`, { email: "withdrawn@example.com", role: "viewer" }, project.id);
    const { token } = await invitationTo("withdrawn@example.com");
    expect((await owner.delete(`/projects/${project.id}/members/${Member.parse(res.body).userId}`, project.id)).status).toBe(204);
    const api = apiClient(platform.url);
    for (const t of [token, "A".repeat(43), "x"]) {
      const r = await api.post("/auth/invitations/accept", { token: t, name: "X", password: "a long enough password" });
      expect(r.status, t).toBe(404);
    }
    for (const body of [{}, { token: "", name: "X" }, { token: "x", name: "   " }, { token: "x", name: "X", password: "short" }, { token: "x".repeat(2001), name: "X" }]) {
      const r = await api.post("/auth/invitations/accept", body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(ErrorBody.parse(r.body).error).toBe("VALIDATION_ERROR");
    }
    const forged = await api.post("/auth/invitations/accept", { token, name: "X", password: "a long enough password" }, { origin: "https://evil.example" });
    expect(forged.status).toBe(403);
  });
});
