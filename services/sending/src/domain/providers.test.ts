import { describe, expect, it } from "vitest";
import { hostName, ownProvider, providerOf, providerOfMxHost, registrableDomain } from "./providers.js";

const mx = (...hosts: string[]) => hosts.map((exchange, i) => ({ exchange, priority: (i + 1) * 10 }));

describe("mailbox providers from MX hosts", () => {
  it("names the big four by their MX suffixes", () => {
    expect(providerOf("example.org", mx("aspmx.l.google.com"))).toBe("google");
    expect(providerOf("example.org", mx("alt1.gmr-smtp-in.l.googlemail.com."))).toBe("google");
    expect(providerOf("contoso.com", mx("contoso-com.mail.protection.outlook.com"))).toBe("microsoft");
    expect(providerOf("x.com", mx("mx1.hotmail.com"))).toBe("microsoft");
    expect(providerOf("x.com", mx("mta5.am0.yahoodns.net"))).toBe("yahoo");
    expect(providerOf("x.com", mx("mx01.mail.icloud.com"))).toBe("apple");
    expect(providerOf("x.com", mx("MX02.MAIL.ME.COM."))).toBe("apple");
  });

  it("groups everyone else by the MX host's registrable domain, three labels under co.uk and the like", () => {
    expect(providerOf("a.com", mx("eu-smtp-inbound-1.mimecast.com"))).toBe("mimecast.com");
    expect(providerOf("b.co.uk", mx("mx.b.co.uk"))).toBe("b.co.uk");
    expect(registrableDomain("mail.example.com.au")).toBe("example.com.au");
    expect(registrableDomain("co.uk")).toBe("co.uk");
  });

  it("takes the most preferred MX host that is a host name, whatever the answer's order", () => {
    expect(providerOf("x.com", [{ exchange: "backup.example.net", priority: 50 }, { exchange: "aspmx.l.google.com", priority: 1 }])).toBe("google");
    expect(providerOf("x.com", [{ exchange: "[192.0.2.1]", priority: 1 }, { exchange: "mx.fastmail.com", priority: 5 }])).toBe("fastmail.com");
  });

  it("is the recipient domain itself with no MX, a null MX, only IP literals or a failed lookup", () => {
    expect(providerOf("shop.example.com", [])).toBe("example.com");
    expect(providerOf("shop.example.com", null)).toBe("example.com");
    expect(providerOf("shop.example.com", [{ exchange: ".", priority: 0 }])).toBe("example.com");
    expect(providerOf("shop.example.com", [{ exchange: "", priority: 0 }])).toBe("example.com");
    expect(providerOf("shop.example.com", mx("192.0.2.7", "2001:db8::1", "[192.0.2.1]"))).toBe("example.com");
    expect(providerOf("gmail.com", null)).toBe("google");
  });

  it("refuses hostile names: huge, odd characters, labels too long, not a name at all", () => {
    expect(hostName("a".repeat(300) + ".com")).toBeNull();
    expect(hostName(`${"a".repeat(64)}.com`)).toBeNull();
    expect(hostName("exa mple.com")).toBeNull();
    expect(hostName("exa\u0000mple.com")).toBeNull();
    expect(hostName("-bad.com")).toBeNull();
    expect(hostName("localhost")).toBeNull();
    expect(hostName("..")).toBeNull();
    expect(hostName(42 as unknown as string)).toBeNull();
    expect(providerOfMxHost("mx.évil.com")).toBeNull();
    expect(providerOf("x.com", [{ exchange: undefined as unknown as string, priority: 1 }])).toBe("x.com");
    expect(ownProvider("[127.0.0.1]")).toBe("unknown");
    expect(ownProvider("x".repeat(5000))).toBe("unknown");
    // a name the suffix only ends like is not the provider
    expect(providerOfMxHost("mx.notgoogle.com")).toBe("notgoogle.com");
  });
});
