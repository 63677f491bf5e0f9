import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { LinkSigner, signToken, verifyToken, type LinkKind } from "./links.js";
import { parseTemplate, renderTemplate } from "./render.js";

const SECRET = "s".repeat(32);
const EMAIL = "01890a5d-ac96-774b-bcce-b302099a8057";
const PROJECT = "01890a5d-ac96-774b-bcce-b302099a8058";
const OTHER = "01890a5d-ac96-774b-bcce-b302099a8059";

describe("link tokens", () => {
  it("carry the email, the project and the link index", () => {
    const t = signToken(SECRET, { kind: "c", emailId: EMAIL, projectId: PROJECT, index: 7 });
    expect(verifyToken(SECRET, "c", t)).toEqual({ kind: "c", emailId: EMAIL, projectId: PROJECT, index: 7 });
    expect(t).toMatch(/^[A-Za-z0-9_-]{70}$/);
  });

  it("verify only with the same secret and kind", () => {
    const t = signToken(SECRET, { kind: "u", emailId: EMAIL, projectId: PROJECT, index: 0 });
    expect(verifyToken(SECRET, "s", t)).toBeNull();
    expect(verifyToken("x".repeat(32), "u", t)).toBeNull();
  });

  it("refuse every single-character change", () => {
    const t = signToken(SECRET, { kind: "c", emailId: EMAIL, projectId: PROJECT, index: 1 });
    for (let i = 0; i < t.length; i++) {
      const c = t[i] === "A" ? "B" : "A";
      expect(verifyToken(SECRET, "c", t.slice(0, i) + c + t.slice(i + 1))).toBeNull();
    }
  });

  it("refuse another spelling of the same bytes (the unused bits of the last character; found by the proof suite)", () => {
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const t = signToken(SECRET, { kind: "u", emailId: EMAIL, projectId: PROJECT, index: 0 });
    const last = alphabet.indexOf(t.at(-1)!);
    const respelled = t.slice(0, -1) + alphabet[last ^ 1];
    expect(Buffer.from(respelled, "base64url").equals(Buffer.from(t, "base64url"))).toBe(true);
    expect(verifyToken(SECRET, "u", respelled)).toBeNull();
  });

  it("cannot be moved to another project or link by editing the payload", () => {
    const t = signToken(SECRET, { kind: "c", emailId: EMAIL, projectId: PROJECT, index: 0 });
    const raw = Buffer.from(t, "base64url");
    Buffer.from(OTHER.replace(/-/g, ""), "hex").copy(raw, 18);
    expect(verifyToken(SECRET, "c", raw.toString("base64url"))).toBeNull();
  });

  it("still verify the version-0 subscription tokens of mail already sent", () => {
    const v0 = `${EMAIL}.${createHmac("sha256", SECRET).update(`u:${EMAIL}`).digest("base64url")}`;
    expect(verifyToken(SECRET, "u", v0)).toEqual({ kind: "u", emailId: EMAIL, projectId: null, index: 0 });
    expect(verifyToken(SECRET, "s", v0)).toBeNull();
    expect(verifyToken(SECRET, "c", v0)).toBeNull();
  });

  it("build URLs under PUBLIC_URL, keeping its path", () => {
    const urls = new LinkSigner("https://x.example/mail", SECRET).withSubscriptionUrls({}, EMAIL, PROJECT);
    expect(urls.unsubscribeUrl).toMatch(/^https:\/\/x\.example\/mail\/u\/[A-Za-z0-9_-]{70}$/);
    expect(new LinkSigner("https://x.example/", SECRET).url("o", EMAIL, PROJECT)).toMatch(/^https:\/\/x\.example\/t\/o\//);
  });

  it("join the normalised PUBLIC_URL and the token into the URL that parsing would give", () => {
    for (const base of ["https://X.Example:443/mail", "http://localhost:8080", "https://x.example/a b/", "https://x.example/m%C3%A4il/"]) {
      const signer = new LinkSigner(base, SECRET);
      for (const kind of ["o", "c", "u", "s", "m"] as const) {
        const url = signer.url(kind, EMAIL, PROJECT, 3);
        expect(url).toBe(new URL(url).toString());
        const token = url.slice(url.lastIndexOf("/") + 1);
        expect(verifyToken(SECRET, kind, token)).toEqual({ kind, emailId: EMAIL, projectId: PROJECT, index: 3 });
      }
    }
    expect(() => new LinkSigner("not a url", SECRET)).toThrow();
  });

  it("sign a template's subscription links only when it reads them, each once, to the same URLs", async () => {
    const signed: LinkKind[] = [];
    const signer = new (class extends LinkSigner {
      override url(kind: LinkKind, emailId: string, projectId: string, index = 0) {
        signed.push(kind);
        return super.url(kind, emailId, projectId, index);
      }
    })("https://x.example", SECRET);
    const expected = { unsubscribeUrl: "", subscribeUrl: "", manageUrl: "" };
    for (const [name, kind] of [["unsubscribeUrl", "u"], ["subscribeUrl", "s"], ["manageUrl", "m"]] as const) expected[name] = signer.url(kind, EMAIL, PROJECT);
    signed.length = 0;
    const render = (body: string) =>
      renderTemplate(parseTemplate({ subject: "Hi {{ name }}", body }), signer.withSubscriptionUrls({ name: "Ann" }, EMAIL, PROJECT));

    expect((await render("<p>{{ name }}</p>")).html).toBe("<p>Ann</p>");
    expect(signed).toEqual([]);
    const html = (await render('<a href="{{ unsubscribeUrl }}">x</a>{% if unsubscribeUrl %}<a href="{{ manageUrl }}">{{ unsubscribeUrl }}</a>{% endif %}')).html;
    expect(signed.sort()).toEqual(["m", "u"]);
    expect(html).toContain(`href="${expected.unsubscribeUrl}"`);
    expect(html).toContain(`href="${expected.manageUrl}"`);
    expect(html).not.toContain(expected.subscribeUrl);
  });
});
