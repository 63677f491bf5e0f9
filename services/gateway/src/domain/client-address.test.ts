import { describe, expect, it } from "vitest";
import { clientBucket } from "./client-address.js";
import { parseTrustProxy } from "../config.js";

describe("clientBucket", () => {
  it("limits IPv4 addresses one by one, and an IPv4-mapped IPv6 address as its IPv4 one", () => {
    expect(clientBucket("203.0.113.7")).toBe("203.0.113.7");
    expect(clientBucket("::ffff:203.0.113.7")).toBe("203.0.113.7");
  });

  it("limits IPv6 addresses by their /64, whatever the notation", () => {
    expect(clientBucket("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(clientBucket("2001:0db8:0001:0002:ffff:ffff:ffff:ffff")).toBe("2001:db8:1:2::/64");
    expect(clientBucket("2001:db8:1:3::1")).not.toBe(clientBucket("2001:db8:1:2::1"));
  });

  it("keeps what is not an address as it is (a unix socket peer has none)", () => {
    expect(clientBucket("")).toBe("");
  });
});

describe("TRUST_PROXY", () => {
  it("trusts no proxy unless told", () => {
    expect(parseTrustProxy("")).toBe(false);
    expect(parseTrustProxy("false")).toBe(false);
    expect(parseTrustProxy("true")).toBe(true);
  });

  it("reads a hop count as the nearest proxies (hop 0 is the socket's peer)", () => {
    const trust = parseTrustProxy("2") as (address: string, hop: number) => boolean;
    expect([0, 1, 2].map((hop) => trust("203.0.113.7", hop))).toEqual([true, true, false]);
  });

  it("takes a list of addresses, CIDRs and fastify's range names, and names a bad entry", () => {
    expect(parseTrustProxy("10.0.0.0/8, 127.0.0.1,::1,loopback")).toEqual(["10.0.0.0/8", "127.0.0.1", "::1", "loopback"]);
    const bad = parseTrustProxy("10.0.0.0/8,proxy.internal");
    expect(bad).toBeInstanceOf(Error);
    expect((bad as Error).message).toContain("proxy.internal");
    expect(parseTrustProxy("10.0.0.0/33")).toBeInstanceOf(Error);
  });
});
