import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startMailbox, type Mailbox } from "../src/index.js";
import { sample, transportFor } from "./helpers.js";

let mailbox: Mailbox;
beforeAll(async () => {
  mailbox = await startMailbox();
});
afterAll(() => mailbox.stop());
beforeEach(() => mailbox.clear());

const get = (path: string, init?: RequestInit) => fetch(`${mailbox.webUrl}${path}`, init);

async function sendOne(overrides: Record<string, unknown> = {}) {
  await transportFor(mailbox).sendMail({ ...sample, ...overrides });
  const message = mailbox.messages().at(-1);
  if (!message) throw new Error("message not stored");
  return message;
}

describe("devmailbox web", () => {
  it("lists messages newest first with links to each", async () => {
    const older = await sendOne({ subject: "older" });
    const newer = await sendOne({ subject: "newer" });
    const res = await get("/");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const html = await res.text();
    expect(html).toContain('<html lang="en">');
    expect(html.indexOf(">newer</a>")).toBeGreaterThan(0);
    expect(html.indexOf(">newer</a>")).toBeLessThan(html.indexOf(">older</a>"));
    expect(html).toContain(`href="/messages/${newer.id}"`);
    expect(html).toContain(`href="/messages/${older.id}"`);
  });

  it("escapes mail content on the inbox and message pages", async () => {
    const message = await sendOne({ subject: '<script>alert("x")</script>', text: "<b>&</b>" });
    for (const path of ["/", `/messages/${message.id}`]) {
      const html = await (await get(path)).text();
      expect(html).not.toContain("<script>");
      expect(html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
    }
    expect(await (await get(`/messages/${message.id}`)).text()).toContain("&lt;b&gt;&amp;&lt;/b&gt;");
  });

  it("shows the message page with a sandboxed frame, text part and headers", async () => {
    const message = await sendOne();
    const res = await get(`/messages/${message.id}`);
    const html = await res.text();
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(html).toMatch(/<iframe [^>]*sandbox="allow-popups allow-popups-to-escape-sandbox"[^>]*src="\/messages\/[^"]+\/html"/);
    expect(html).not.toMatch(/sandbox="[^"]*allow-scripts/);
    expect(html).toContain("plain body");
    expect(html).toContain("subject: Hello");
    expect(html).toContain(`href="/messages/${message.id}/raw"`);
  });

  it("serves the mail HTML under a CSP that forbids scripts", async () => {
    const message = await sendOne({ html: '<!DOCTYPE html><p>hi</p><script>alert(1)</script>' });
    const res = await get(`/messages/${message.id}/html`);
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toMatch(/^sandbox allow-popups allow-popups-to-escape-sandbox;/);
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain("script-src");
    expect(await res.text()).toMatch(/^<!DOCTYPE html><base target="_blank"><p>hi<\/p>/);
  });

  it("serves the raw source as plain text", async () => {
    const message = await sendOne();
    const res = await get(`/messages/${message.id}/raw`);
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(Buffer.from(await res.arrayBuffer())).toEqual(message.raw);
  });

  it("lists messages as JSON without the raw source, and deletes them", async () => {
    const message = await sendOne();
    const list = (await (await get("/api/messages")).json()) as Array<Record<string, unknown>>;
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ id: message.id, subject: "Hello", to: ["rcpt@example.com"], size: message.raw.length });
    expect(list[0]).not.toHaveProperty("raw");
    expect((await get(`/api/messages/${message.id}`)).status).toBe(200);

    expect((await get("/api/messages", { method: "DELETE" })).status).toBe(204);
    expect(mailbox.messages()).toEqual([]);
    expect(await (await get("/api/messages")).json()).toEqual([]);
  });

  it("filters the JSON list by recipient: envelope or To header, any case, several at once", async () => {
    await sendOne({ to: "ann@example.com", subject: "to ann" });
    await sendOne({ to: "bob@example.com", subject: "to bob" });
    await transportFor(mailbox).sendMail({ ...sample, to: "list@example.com", envelope: { from: "s@example.com", to: ["cat@example.com"] }, subject: "bcc cat" });
    const subjects = async (query: string) =>
      ((await (await get(`/api/messages${query}`)).json()) as Array<{ subject: string }>).map((m) => m.subject);
    expect(await subjects("?to=ANN@example.com")).toEqual(["to ann"]);
    expect(await subjects("?to=cat@example.com")).toEqual(["bcc cat"]);
    expect(await subjects("?to=list@example.com")).toEqual(["bcc cat"]);
    expect(await subjects("?to=ann@example.com&to=bob@example.com")).toEqual(["to ann", "to bob"]);
    expect(await subjects("?to=nobody@example.com")).toEqual([]);
    expect(await subjects("")).toHaveLength(3);
  });

  it("filters the inbox page by recipient, keeping the search escaped and the form same-origin", async () => {
    await sendOne({ to: "ann@example.com", subject: "for ann" });
    await sendOne({ to: "bob@example.com", subject: "for bob" });
    const res = await get("/?to=Ann%40example.com");
    expect(res.headers.get("content-security-policy")).toContain("form-action 'self'");
    const html = await res.text();
    expect(html).toContain("for ann");
    expect(html).not.toContain("for bob");
    expect(html).toContain('value="Ann@example.com"');
    expect(html).toContain('<a href="/">Show all</a>');
    const both = await (await get("/?to=ann%40example.com+bob%40example.com")).text();
    expect(both).toContain("for ann");
    expect(both).toContain("for bob");
    const hostile = await (await get(`/?to=${encodeURIComponent('"><script>x</script>')}`)).text();
    expect(hostile).not.toContain("<script>");
    expect(hostile).toContain("No messages to &quot;&gt;&lt;script&gt;x&lt;/script&gt;.");
    expect(await (await get("/")).text()).not.toContain("Show all");
  });

  it("answers 404 for unknown messages and 405 for wrong methods", async () => {
    expect((await get("/messages/nope")).status).toBe(404);
    expect((await get("/messages/%E0%A4%A/raw")).status).toBe(404);
    expect((await get("/api/messages/nope")).status).toBe(404);
    const res = await get("/api/messages", { method: "POST" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, DELETE");
  });
});
