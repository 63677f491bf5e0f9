import { isIPv6 } from "node:net";
import { Resolver } from "node:dns/promises";
import dns2 from "dns2";
import { dnsServer } from "@mailroom/kit";

export type TxtLookup = (name: string) => Promise<string[]>;

/**
 * TXT lookups through DNS_SERVER (dns2; retried over TCP when an answer is truncated, as DKIM keys
 * often are). A failed or timed-out lookup is "nothing published": the domain stays pending and is
 * looked up again later.
 */
export function createTxtLookup(server: string | undefined, timeoutMs: number): TxtLookup {
  const { host, port } = dnsServer(server);
  const resolve = dns2.UDPClient({ dns: host, port, timeout: timeoutMs, socketType: isIPv6(host) ? "udp6" : "udp4" });
  return async (name) => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<null>((done) => (timer = setTimeout(() => done(null), timeoutMs)));
    try {
      const packet = await Promise.race([resolve(name, "TXT"), timeout]);
      if (!packet) return [];
      return packet.answers.filter((a) => a.type === dns2.Packet.TYPE.TXT).map((a) => String((a as { data?: unknown }).data ?? ""));
    } catch {
      return [];
    } finally {
      clearTimeout(timer);
    }
  };
}

/** `resolve(name, rrtype)` in the shape of dns.promises.resolve (what mailauth expects), through DNS_SERVER. */
export type Resolve = (name: string, rrtype: string) => Promise<unknown>;

export function createResolver(server: string | undefined, timeoutMs: number): Resolve {
  const resolver = new Resolver({ timeout: timeoutMs, tries: 2 });
  if (server) {
    const { host, port } = dnsServer(server);
    resolver.setServers([isIPv6(host) ? `[${host}]:${port}` : `${host}:${port}`]);
  }
  return (name, rrtype) => resolver.resolve(name, rrtype) as Promise<unknown>;
}
