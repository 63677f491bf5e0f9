import { beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "@mailroom/testkit";
import { mailboxMessages, newProject } from "@mailroom/testkit/shared";
import { unique, uniqueAddress, verifiedSender, type Project } from "./support/tenant.js";
import { expectLogsFreeOf } from "./support/logs.js";

/**
 * Header and SMTP smuggling through /v1/send: a line break in any field that ends up in a header is
 * refused (400) or neutralised, and no body can end the SMTP DATA early and start a second message.
 * Every case has its own recipient and its own "evil" address, so the sink can be read exactly.
 */
type SinkMessage = { to: string[]; subject: string; html: string | null; envelope: { rcptTo: string[] }; headers: Array<{ name: string; value: string }> };

let p: Project;
let sender: string;
const marker = unique("smuggle-body");

beforeAll(async () => {
  p = await newProject("smuggling");
  sender = await verifiedSender(p.id);
}, 60_000);

const sinkFor = async (address: string) =>
  ((await mailboxMessages([address])) as SinkMessage[]).filter((m) => m.envelope.rcptTo.includes(address) || m.to.includes(address));

/**
 * The one message to `rcpt`, checked whole first: it holds `end`, the last text of the body sent, so
 * the relay read the DATA to its true end. A smuggled second message can only begin after an earlier
 * end of DATA, which would have cut this one short; with none, there is nothing to wait for.
 */
async function deliveredOnce(rcpt: string, evil: string, end: string) {
  await waitFor(async () => (await sinkFor(rcpt)).length > 0, { timeoutMs: 15_000, what: `a message to ${rcpt}` });
  const mine = await sinkFor(rcpt);
  expect(mine[0]!.html, `the message to ${rcpt} ends where the body did`).toContain(end);
  expect(mine, `messages to ${rcpt}`).toHaveLength(1);
  expect(mine[0]!.envelope.rcptTo).toEqual([rcpt]);
  expect(mine[0]!.to).toEqual([rcpt]);
  expect(await sinkFor(evil), `messages to ${evil}`).toHaveLength(0);
  const names = mine[0]!.headers.map((h) => h.name);
  expect(names).not.toContain("x-injected");
  expect(names).not.toContain("bcc");
  return mine[0]!;
}

/** A refusal, or a message that arrived once, to the right recipient, without the injected header. */
async function refusedOrNeutralised(res: { status: number; body: any }, rcpt: string, evil: string, end: string) {
  if (res.status === 400) {
    expect(res.body.error).toBe("VALIDATION_ERROR");
    return "refused";
  }
  expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
  await deliveredOnce(rcpt, evil, end);
  return "neutralised";
}

const BREAKS = { crlf: "\r\n", lf: "\n", cr: "\r" };

describe("header injection in every header-bearing field of /v1/send", () => {
  const fields: Record<string, (inj: string, rcpt: string) => Record<string, unknown>> = {
    subject: (inj) => ({ subject: `Hi${inj}` }),
    "from name": (inj) => ({ from: { email: sender, name: `Proof${inj}` } }),
    "deprecated name": (inj) => ({ name: `Proof${inj}` }),
    reply: (inj) => ({ reply: `reply@example.com${inj}` }),
    "header name": (inj) => ({ headers: { [`X-Custom${inj.replace(/: /g, "-")}`]: "v" } }),
    "header value": (inj) => ({ headers: { "X-Custom": `v${inj}` } }),
    "attachment filename": (inj) => ({ attachments: [{ filename: `a.txt${inj}`, content: "aGk=", contentType: "text/plain" }] }),
    "attachment contentType": (inj) => ({ attachments: [{ filename: "a.txt", content: "aGk=", contentType: `text/plain${inj}` }] }),
    "attachment contentId": (inj) => ({ attachments: [{ filename: "a.png", content: "aGk=", contentType: "image/png", disposition: "inline", contentId: `cid${inj}` }] }),
    "to name": (inj, rcpt) => ({ to: { email: rcpt, name: `Rcpt${inj}` } }),
    "to address": (inj, rcpt) => ({ to: `${rcpt}${inj}` }),
  };

  for (const [field, build] of Object.entries(fields)) {
    it(`refuses or neutralises line breaks in ${field}`, async () => {
      const outcomes: string[] = [];
      for (const [kind, br] of Object.entries(BREAKS)) {
        const rcpt = uniqueAddress("hdr");
        const evil = uniqueAddress("evil");
        const inj = `x${br}Bcc: ${evil}${br}X-Injected: yes`;
        const end = unique("end");
        const body = { to: rcpt, from: { email: sender, name: "Proof" }, subject: "Hello", body: `<p>${marker}</p><p>${end}</p>`, ...build(inj, rcpt) };
        outcomes.push(`${kind}: ${await refusedOrNeutralised(await p.api.post("/v1/send", body), rcpt, evil, end)}`);
      }
      console.info(`[smuggling] ${field}: ${outcomes.join(", ")}`);
    }, 60_000);
  }

  it("removes line breaks that template variables bring into the subject", async () => {
    const end = unique("end");
    const tpl = await p.api.post("/templates", { name: "inj", subject: "Hi {{ who }}", body: `<p>${marker} {{ who }}</p><p>${end}</p>`, type: "TRANSACTIONAL", from: sender });
    expect(tpl.status).toBe(201);
    const rcpt = uniqueAddress("tplhdr");
    const evil = uniqueAddress("evil");
    const res = await p.api.post("/v1/send", { to: rcpt, template: tpl.body.id, data: { who: `Ada\r\nBcc: ${evil}\r\nX-Injected: yes` } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const msg = await deliveredOnce(rcpt, evil, end);
    expect(msg.subject).not.toMatch(/[\r\n]/);
  }, 30_000);

  it("refuses line breaks in a template's sender fields", async () => {
    for (const field of ["fromName", "replyTo", "from"]) {
      const value = field === "fromName" ? "Proof\r\nBcc: evil@example.com" : "a@example.com\r\nBcc: evil@example.com";
      const res = await p.api.post("/templates", { name: "inj", subject: "s", body: "b", type: "TRANSACTIONAL", [field]: value });
      expect(res.status, `${field}: ${JSON.stringify(res.body).slice(0, 200)}`).toBe(400);
    }
  });
});

describe("SMTP smuggling through the body", () => {
  const ENDINGS = { "\\n.\\n": "\n.\n", "\\r.\\r": "\r.\r", "\\n.\\r\\n": "\n.\r\n", "\\r\\n.\\r\\n": "\r\n.\r\n", "\\r\\n.\\n": "\r\n.\n", "\\n..\\n": "\n..\n" };

  for (const [name, end] of Object.entries(ENDINGS)) {
    it(`sends exactly one message, to the one recipient, when the body holds ${name}`, async () => {
      const rcpt = uniqueAddress("dot");
      const evil = uniqueAddress("evil");
      const smuggled = [
        `MAIL FROM:<attacker@example.com>`,
        `RCPT TO:<${evil}>`,
        "DATA",
        "From: attacker@example.com",
        `To: ${evil}`,
        "Subject: smuggled",
        "",
        "smuggled",
      ].join("\r\n");
      const last = unique("after");
      const body = `<p>${marker} before</p>${end}${smuggled}${end}<p>${last}</p>`;
      const res = await p.api.post("/v1/send", { to: rcpt, from: sender, subject: "Dots", body });
      expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
      // the whole body, past the would-be terminator, arrived in the one message
      const msg = await deliveredOnce(rcpt, evil, last);
      expect(msg.subject).toBe("Dots");
    }, 30_000);
  }
});

describe("logs", () => {
  it("hold neither the key nor the bodies sent", async () => {
    await expectLogsFreeOf({ "secret key": p.secretKey, "body marker": marker });
  });
});
