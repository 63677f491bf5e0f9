import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppError } from "@mailroom/contracts";
import { startDnsServer, type DnsFixture } from "./dns-fixture.js";
import { closeHarness, createHarness, openHarness, type Harness } from "./setup.js";

let dns: DnsFixture;
let h: Harness;

beforeAll(async () => ({ dns, h } = await openHarness()));
afterAll(() => closeHarness(dns, h));

describe("DNS findings", () => {
  it("a normal domain is valid, with MX, website and NS reasons", async () => {
    const r = await h.verify("Jane.Doe@Example.COM");
    expect(r).toMatchObject({ email: "Jane.Doe@example.com", valid: true, domainExists: true, hasWebsite: true, hasMxRecords: true });
    expect(r.reasons[0]).toBe("Address is valid.");
    expect(r.reasons).toContain("Domain example.com exists: it has NS records (ns1.example.com, ns2.example.com).");
    expect(r.reasons).toContain("Domain accepts mail: MX records point to mx1.example.com, mx2.example.com.");
    expect(r.reasons).toContain("Domain has a website address (A/AAAA records).");
    expect(r.suggestedEmail).toBeNull();
  });

  it("a domain with only A records accepts mail by the implicit MX of RFC 5321", async () => {
    const r = await h.verify("user@aonly.example");
    expect(r).toMatchObject({ valid: true, domainExists: true, hasWebsite: true, hasMxRecords: false });
    expect(r.reasons.some((s) => s.includes("implicit MX, RFC 5321"))).toBe(true);
  });

  it("a null MX (RFC 7505) means no mail, without falling back to A", async () => {
    const r = await h.verify("user@nullmx.example");
    expect(r).toMatchObject({ valid: false, domainExists: true, hasWebsite: true, hasMxRecords: false });
    expect(r.reasons).toContain("Domain publishes a null MX (RFC 7505): it explicitly accepts no mail.");
    expect(r.reasons[0]).toBe("Address is not valid: the domain accepts no mail.");
  });

  it("a domain with neither MX nor address cannot receive mail", async () => {
    const r = await h.verify("user@nothing.example");
    expect(r).toMatchObject({ valid: false, domainExists: true, hasMxRecords: false, hasWebsite: false });
    expect(r.reasons).toContain("Domain has no MX records and no A/AAAA address, so it cannot receive mail.");
  });

  it("NXDOMAIN: the domain does not exist", async () => {
    const r = await h.verify("user@no-such-domain.example");
    expect(r).toMatchObject({ valid: false, domainExists: false, hasWebsite: false, hasMxRecords: false });
    expect(r.reasons).toContain("Domain no-such-domain.example does not exist (NXDOMAIN).");
    expect(r.reasons[0]).toBe("Address is not valid: the domain does not exist.");
  });

  it("SERVFAIL gives its own reason and is not valid", async () => {
    const r = await h.verify("user@servfail.example");
    expect(r).toMatchObject({ valid: false, domainExists: false, hasMxRecords: false });
    expect(r.reasons).toContain("Could not check that domain servfail.example exists: the NS lookup failed: the DNS server answered SERVFAIL.");
    expect(r.reasons).toContain("Could not check whether the domain accepts mail: the MX lookup failed: the DNS server answered SERVFAIL.");
  });
});

describe("a DNS server that never answers", () => {
  let silent: DnsFixture;
  let slow: Harness;
  beforeAll(async () => {
    silent = await startDnsServer({}, { silent: true });
    slow = createHarness(silent.server, { VERIFY_DNS_TIMEOUT_MS: "300" });
  });
  afterAll(async () => {
    await slow?.close();
    await silent?.close();
  });

  it("answers within the per-lookup bound, with a timeout reason, and caches nothing", async () => {
    const started = Date.now();
    const r = await slow.verify("user@example.com");
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(r).toMatchObject({ valid: false, domainExists: false, hasMxRecords: false, hasWebsite: false });
    expect(r.reasons).toContain("Could not check that domain example.com exists: the NS lookup timed out after 300 ms.");
    expect(r.reasons).toContain("Could not check whether the domain accepts mail: the MX lookup timed out after 300 ms.");
    expect(r.reasons[0]).toBe("Address is not valid: the domain could not be checked in DNS.");
    expect(silent.queries.map((q) => q.type).sort()).toEqual(["A", "AAAA", "MX", "NS"]);
    expect(await slow.deps.redis.keys(`${slow.prefix}*`)).toEqual([]);
  });
});

describe("classifiers", () => {
  it("a disposable domain", async () => {
    const r = await h.verify("someone@mailinator.com");
    expect(r).toMatchObject({ isDisposable: true, isPersonalEmail: false, valid: false, hasMxRecords: true });
    expect(r.reasons).toContain("Domain mailinator.com is a disposable (temporary) email provider.");
    expect(r.reasons[0]).toBe("Address is not valid: the domain is disposable.");
  });

  it("a subdomain of a disposable domain", async () => {
    const r = await h.verify("someone@team.mailinator.com");
    expect(r).toMatchObject({ isDisposable: true, valid: false, domainExists: true, hasMxRecords: true });
    expect(r.reasons).toContain("Domain team.mailinator.com is a subdomain of the disposable email provider mailinator.com.");
  });

  it("a personal provider", async () => {
    const r = await h.verify("someone@gmail.com");
    expect(r).toMatchObject({ isPersonalEmail: true, isDisposable: false, isAlias: false, isTypo: false, valid: true });
    expect(r.reasons).toContain("Domain gmail.com is a free personal email provider.");
  });

  it("a company domain is not personal", async () => {
    const r = await h.verify("someone@aonly.example");
    expect(r.isPersonalEmail).toBe(false);
    expect(r.reasons).toContain("Domain is not a known free email provider.");
  });

  it("alias services, including per-user subdomains", async () => {
    const duck = await h.verify("x7k2@duck.com");
    expect(duck).toMatchObject({ isAlias: true, isDisposable: false, valid: true });
    expect(duck.reasons).toContain("Domain belongs to DuckDuckGo Email Protection, an email alias/forwarding service.");

    const addy = await h.verify("shop@bob.anonaddy.com");
    expect(addy).toMatchObject({ isAlias: true, valid: true });
    expect(addy.reasons).toContain("Domain belongs to addy.io (AnonAddy), an email alias/forwarding service.");
  });

  it("an alias service on the disposable list counts as an alias, not disposable", async () => {
    const r = await h.verify("shop@alice.33mail.com");
    expect(r).toMatchObject({ isAlias: true, isDisposable: false, valid: true });
    expect(r.reasons.some((s) => s.includes("counted as an alias service"))).toBe(true);
  });

  it("plus addressing", async () => {
    const plus = await h.verify("jane+newsletter@example.com");
    expect(plus).toMatchObject({ isPlusAddressed: true, valid: true });
    expect(plus.reasons).toContain('Local part uses plus addressing (tag "newsletter").');
    const plain = await h.verify("jane@example.com");
    expect(plain.isPlusAddressed).toBe(false);
    expect(plain.reasons).toContain("Local part has no plus tag.");
  });
});

describe("typos", () => {
  it.each([
    ["gmial.com", "gmail.com"],
    ["gmail.co", "gmail.com"],
    ["hotmial.com", "hotmail.com"],
    ["yaho.com", "yahoo.com"],
    ["outlok.com", "outlook.com"],
  ])("%s suggests %s, whether or not the typo domain exists", async (typo, fixed) => {
    const r = await h.verify(`jane.doe@${typo}`);
    expect(r).toMatchObject({ isTypo: true, suggestedEmail: `jane.doe@${fixed}`, valid: false, isPersonalEmail: false });
    expect(r.reasons).toContain(`Domain ${typo} looks like a misspelling of ${fixed}: did you mean jane.doe@${fixed}?`);
    expect(r.reasons[0]).toMatch(/the domain looks like a typo\.$/);
  });

  it("a dead domain close to a provider gets a suggestion", async () => {
    const r = await h.verify("jane@gmqil.com");
    expect(r).toMatchObject({ isTypo: true, suggestedEmail: "jane@gmail.com", domainExists: false });
  });

  it("a working domain close to a provider is never corrected", async () => {
    const r = await h.verify("jane@gmaik.com");
    expect(r).toMatchObject({ isTypo: false, suggestedEmail: null, valid: true });
    expect(r.reasons).toContain("No typo detected in the domain.");
  });
});

describe("syntax", () => {
  it("an internationalized domain is looked up in punycode and echoed as written", async () => {
    const before = dns.queries.length;
    const r = await h.verify("Jürgen@Bücher.example");
    expect(r).toMatchObject({ email: "Jürgen@bücher.example", valid: true, hasMxRecords: true });
    expect(r.reasons).toContain("Address syntax is valid (internationalized domain, looked up as xn--bcher-kva.example).");
    expect(new Set(dns.queries.slice(before).map((q) => q.name))).toEqual(new Set(["xn--bcher-kva.example"]));
  });

  it("a quoted local part parses", async () => {
    const r = await h.verify('"jane doe+x"@example.com');
    expect(r).toMatchObject({ email: '"jane doe+x"@example.com', valid: true, isPlusAddressed: true });
  });

  it.each(["", "plainaddress", "@example.com", "jane@", "jane@@example.com", "jane doe@example.com", "jane@[192.0.2.1]", "jane@localhost", `${"a".repeat(65)}@example.com`])(
    "%j is a VALIDATION_ERROR on email, with no DNS query",
    async (email) => {
      const before = dns.queries.length;
      const err = await h.verifier.verify(email).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).code).toBe("VALIDATION_ERROR");
      expect((err as AppError).details?.[0]?.path).toBe("email");
      expect(dns.queries.length).toBe(before);
    },
  );
});
