// /v1/sends that arrive together share their database work (the gateway coalesces them into one
// NATS message; sending and contacts then group-commit their lookups and writes). Each must still
// be judged and written on its own: its project's domain and settings, its own refusal, its own records.
import { beforeAll, describe, expect, it } from "vitest";
import { newProject } from "@mailroom/testkit/shared";
import { messagesTo, uniqueAddress, verifiedDomain } from "./helpers.js";

type Project = Awaited<ReturnType<typeof newProject>>;

describe("/v1/sends made together", () => {
  let p: Project;
  let q: Project;
  let pDomain: string;
  let qDomain: string;
  beforeAll(async () => {
    [p, q] = await Promise.all([newProject("together-p"), newProject("together-q")]);
    const [pd, qd] = await Promise.all([verifiedDomain(p.api), verifiedDomain(q.api)]);
    [pDomain, qDomain] = [pd.domain, qd.domain];
    expect((await q.api.patch("/settings/sending", { tracking: false })).status).toBe(200);
  });

  it("judges and writes each send on its own: project, domain, settings, refusal", async () => {
    const body = `<p><a href="https://example.org/x">x</a></p>`;
    const cases = [
      ...Array.from({ length: 8 }, (_, i) => ({ kind: "p-ok", api: p.api, to: uniqueAddress(`p${i}`), from: `hi@${pDomain}`, body })),
      ...Array.from({ length: 8 }, (_, i) => ({ kind: "q-ok", api: q.api, to: uniqueAddress(`q${i}`), from: `hi@${qDomain}`, body })),
      // q may not send from p's domain, even in the same breath as p's own sends
      ...Array.from({ length: 3 }, (_, i) => ({ kind: "q-foreign", api: q.api, to: uniqueAddress(`f${i}`), from: `hi@${pDomain}`, body })),
      // a body that cannot render refuses its own send only
      ...Array.from({ length: 2 }, (_, i) => ({ kind: "p-bad", api: p.api, to: uniqueAddress(`b${i}`), from: `hi@${pDomain}`, body: "{% for i in (1..100000000) %}.{% endfor %}" })),
    ];
    const responses = await Promise.all(cases.map((c, i) => c.api.post("/v1/send", { to: c.to, from: c.from, subject: `Together ${i}`, body: c.body })));

    for (const [i, c] of cases.entries()) {
      const res = responses[i]!;
      if (c.kind === "q-foreign") expect(res.body.error, c.kind).toBe("DOMAIN_NOT_VERIFIED");
      else if (c.kind === "p-bad") expect(res.body.error, c.kind).toBe("VALIDATION_ERROR");
      else expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    for (const [i, c] of cases.entries()) {
      if (!c.kind.endsWith("ok")) continue;
      const sent = responses[i]!.body.data.emails[0];
      expect(sent.contact.email).toBe(c.to);
      const record = await c.api.get(`/emails/${sent.email}`);
      expect(record.body).toMatchObject({ id: sent.email, to: c.to, contactId: sent.contact.id, subject: `Together ${i}` });
      // the other project never sees it
      expect((await (c.api === p.api ? q : p).api.get(`/emails/${sent.email}`)).status).toBe(404);
      const [msg] = await messagesTo(c.to);
      expect(msg!.subject).toBe(`Together ${i}`);
      // each project's own tracking setting: p rewrites links, q (tracking off) leaves them alone
      if (c.kind === "p-ok") expect(msg!.html).toContain("/t/c/");
      else expect(msg!.html).toContain(`href="https://example.org/x"`);
    }
    // the refused sends left no email behind (a foreign-domain send not even a contact)
    for (const c of cases.filter((x) => x.kind === "q-foreign")) {
      expect((await q.api.get(`/contacts?search=${encodeURIComponent(c.to)}`)).body.data).toEqual([]);
    }
    for (const c of cases.filter((x) => x.kind === "p-bad")) {
      for (const contact of (await p.api.get(`/contacts?search=${encodeURIComponent(c.to)}`)).body.data) {
        expect((await p.api.get(`/emails?contactId=${contact.id}`)).body.data).toEqual([]);
      }
    }
  });
});
