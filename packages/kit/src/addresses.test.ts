import { describe, expect, it } from "vitest";
import { blockedReason, ipLiteral, localHostReason, parseWebhookUrl, refusal } from "./addresses.js";

describe("blockedReason", () => {
  it.each([
    "127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "0.1.2.3",
    "224.0.0.1", "240.0.0.1", "255.255.255.255", "192.0.2.1", "::1", "::", "fc00::1", "fd12::1", "fe80::1", "ff02::1",
    "::ffff:127.0.0.1", "::ffff:10.0.0.1", "64:ff9b::7f00:1", "64:ff9b::a9fe:a9fe", "64:ff9b:1::1", "2002:7f00:1::1",
    "2001::1", "::7f00:1", "2001:db8::1",
  ])("blocks %s", (a) => expect(blockedReason(a)).not.toBeNull());

  it.each(["8.8.8.8", "93.184.216.34", "2606:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808"])("allows %s", (a) =>
    expect(blockedReason(a)).toBeNull(),
  );
});

describe("URL forms", () => {
  it.each([
    ["http://127.1:9/", "127.0.0.1"],
    ["http://0x7f.1/", "127.0.0.1"],
    ["http://2130706433/", "127.0.0.1"],
    ["http://0177.0.0.1/", "127.0.0.1"],
    ["http://[::ffff:127.0.0.1]/", "::ffff:7f00:1"],
    ["http://[::]/", "::"],
  ])("%s is the IP %s", (raw, ip) => {
    const url = parseWebhookUrl(raw) as URL;
    expect(ipLiteral(url.hostname)).toBe(ip);
    expect(blockedReason(ip)).not.toBeNull();
  });

  it("refuses other schemes and credentials", () => {
    expect(typeof parseWebhookUrl("ftp://example.com/")).toBe("string");
    expect(typeof parseWebhookUrl("file:///etc/passwd")).toBe("string");
    expect(typeof parseWebhookUrl("http://a:b@example.com/")).toBe("string");
    expect(ipLiteral("example.com")).toBeNull();
  });
});

describe("refusal", () => {
  it("says a name resolves to an address that is not public, never which", () => {
    for (const addresses of [["10.1.2.3"], ["93.184.216.34", "127.0.0.1"], ["::1"], ["169.254.169.254"]]) {
      const said = refusal("db.internal.example", null, addresses);
      expect(said).toBe("db.internal.example resolves to an address that is not public");
    }
    expect(refusal("example.com", null, ["93.184.216.34", "2606:2800:220:1::1"])).toBeNull();
  });

  it("names an IP literal the tenant wrote, with its kind", () => {
    expect(refusal("127.0.0.1", "127.0.0.1", ["127.0.0.1"])).toBe("127.0.0.1 is not a public address (loopback)");
    expect(refusal("93.184.216.34", "93.184.216.34", ["93.184.216.34"])).toBeNull();
  });
});

describe("localHostReason", () => {
  it.each(["127.0.0.1", "10.0.0.1", "[::1]", "169.254.169.254", "localhost", "LOCALHOST.", "printer.local", "app.localhost", "db.internal", "intranet"])(
    "flags %s",
    (h) => expect(localHostReason(h)).not.toBeNull(),
  );
  it.each(["example.com", "8.8.8.8", "[2606:4700::1111]", "news.example.co.uk"])("passes %s", (h) => expect(localHostReason(h)).toBeNull());
});
