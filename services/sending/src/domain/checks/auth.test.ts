import { describe, expect, it } from "vitest";
import { aligned, dkimCheck, dkimPublicKey, dmarcCheck, organizationalDomain, parseDmarc, spfCheck } from "./auth.js";

const RPD = "bounces.mailroom.test";

describe("spfCheck", () => {
  it("passes one record that includes the return-path domain", () => {
    expect(spfCheck("acme.com", ["google-site-verification=x", `v=spf1 include:${RPD} ~all`], RPD).status).toBe("pass");
  });
  it("fails without a record or with two", () => {
    expect(spfCheck("acme.com", [], RPD).status).toBe("fail");
    expect(spfCheck("acme.com", ["v=spf1 -all", `v=spf1 include:${RPD} ~all`], RPD)).toMatchObject({ status: "fail", detail: expect.stringContaining("2 SPF records") });
  });
  it("warns when Mailroom is not included, or every host may send", () => {
    expect(spfCheck("acme.com", ["v=spf1 include:_spf.google.com ~all"], RPD)).toMatchObject({ status: "warn", detail: expect.stringContaining(`include:${RPD}`) });
    expect(spfCheck("acme.com", [`v=spf1 include:${RPD} +all`], RPD).status).toBe("warn");
  });
});

describe("dkimCheck", () => {
  const name = "mr20260101._domainkey.acme.com";
  it("reads p= with folded white space", () => expect(dkimPublicKey("v=DKIM1; k=rsa; p=MIIB AQ\tAB")).toBe("MIIBAQAB"));
  it("passes the key Mailroom signs with, fails another or none", () => {
    expect(dkimCheck(name, ["v=DKIM1; k=rsa; p=KEY1"], "KEY1").status).toBe("pass");
    expect(dkimCheck(name, ["v=DKIM1; k=rsa; p=OLD"], "KEY1")).toMatchObject({ status: "fail", detail: expect.stringContaining("not the one") });
    expect(dkimCheck(name, [], "KEY1").status).toBe("fail");
  });
});

describe("DMARC alignment", () => {
  it("parses tags and ignores what is not DMARC", () => {
    expect(parseDmarc("v=DMARC1; p=Reject; adkim=s")?.get("p")).toBe("reject");
    expect(parseDmarc("v=spf1 -all")).toBeNull();
    expect(parseDmarc("v=DMARC1; rua=mailto:x@y")).toBeNull();
  });
  it("aligns relaxed on the organizational domain, strict on the name", () => {
    expect(organizationalDomain("news.acme.co.uk")).toBe("acme.co.uk");
    expect(aligned("bounces.acme.com", "news.acme.com", "r")).toBe(true);
    expect(aligned("bounces.acme.com", "news.acme.com", "s")).toBe(false);
    expect(aligned("bounces.mailroom.test", "acme.com", "r")).toBe(false);
  });

  const base = { fromDomain: "acme.com", recordDomain: "acme.com", returnPathDomain: RPD };
  it("fails without a record", () => expect(dmarcCheck({ ...base, txt: [], dkimPasses: true }).status).toBe("fail"));
  it("passes p=none aligned through DKIM, with advice", () => {
    const c = dmarcCheck({ ...base, txt: ["v=DMARC1; p=none;"], dkimPasses: true });
    expect(c).toMatchObject({ status: "pass", detail: expect.stringContaining("quarantine or reject") });
    expect(c.detail).toContain("DKIM (d=acme.com)");
  });
  it("fails when neither DKIM nor SPF aligns", () => {
    expect(dmarcCheck({ ...base, txt: ["v=DMARC1; p=reject"], dkimPasses: false })).toMatchObject({ status: "fail", detail: expect.stringContaining("not aligned") });
  });
  it("aligns through SPF when the return path shares the organizational domain, unless aspf=s", () => {
    const own = { ...base, returnPathDomain: "bounces.acme.com", dkimPasses: false };
    expect(dmarcCheck({ ...own, txt: ["v=DMARC1; p=quarantine"] }).status).toBe("pass");
    expect(dmarcCheck({ ...own, txt: ["v=DMARC1; p=quarantine; aspf=s"] }).status).toBe("fail");
  });
  it("uses sp= of a record inherited from the organizational domain", () => {
    const c = dmarcCheck({ fromDomain: "news.acme.com", recordDomain: "acme.com", returnPathDomain: RPD, txt: ["v=DMARC1; p=reject; sp=none"], dkimPasses: true });
    expect(c.detail).toContain("_dmarc.acme.com (p=none)");
  });
  it("fails two records", () => expect(dmarcCheck({ ...base, txt: ["v=DMARC1; p=none", "v=DMARC1; p=reject"], dkimPasses: true }).status).toBe("fail"));
});
