import { isIPv6 } from "node:net";
import { Resolver } from "node:dns/promises";
import dns2 from "dns2";
import { dnsServer } from "@mailroom/kit";

type Packet = Awaited<ReturnType<ReturnType<typeof dns2.UDPClient>>>;

/** One question through DNS_SERVER with dns2: its answer, or null when it failed or timed out. */
function dns2Query(server: string | undefined, timeoutMs: number): (name: string, type: "TXT" | "MX") => Promise<Packet | null> {
  const { host, port } = dnsServer(server);
  const resolve = dns2.UDPClient({ dns: host, port, timeout: timeoutMs, socketType: isIPv6(host) ? "udp6" : "udp4" });
  return async (name, type) => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<null>((done) => (timer = setTimeout(() => done(null), timeoutMs)));
    try {
      return await Promise.race([resolve(name, type), timeout]);
    } catch {
      return null;
    } finally {
      clearTimeout(timer);
    }
  };
}

export type TxtLookup = (name: string) => Promise<string[]>;

/**
 * TXT lookups through DNS_SERVER (dns2; retried over TCP when an answer is truncated, as DKIM keys
 * often are). A failed or timed-out lookup is "nothing published": the domain stays pending and is
 * looked up again later.
 */
export function createTxtLookup(server: string | undefined, timeoutMs: number): TxtLookup {
  const query = dns2Query(server, timeoutMs);
  return async (name) => {
    const packet = await query(name, "TXT");
    if (!packet) return [];
    return packet.answers.filter((a) => a.type === dns2.Packet.TYPE.TXT).map((a) => String((a as { data?: unknown }).data ?? ""));
  };
}

export type MxLookup = (domain: string) => Promise<Array<{ exchange: string; priority: number }> | null>;

/**
 * MX lookups through DNS_SERVER, for grouping recipients by mailbox provider (domain/providers.ts):
 * the records answered (none for a domain without MX), or null when the lookup failed or timed out,
 * which the caller caches for a short while only.
 */
export function createMxLookup(server: string | undefined, timeoutMs: number): MxLookup {
  const query = dns2Query(server, timeoutMs);
  return async (domain) => {
    const packet = await query(domain, "MX");
    if (!packet) return null;
    // NOERROR and NXDOMAIN are answers; SERVFAIL, REFUSED and the rest are failures to ask again soon
    const rcode = (packet.header as { rcode?: number }).rcode ?? 0;
    if (rcode !== 0 && rcode !== 3) return null;
    return packet.answers
      .filter((a) => a.type === dns2.Packet.TYPE.MX)
      .map((a) => {
        const mx = a as { exchange?: unknown; priority?: unknown };
        return { exchange: String(mx.exchange ?? ""), priority: Number(mx.priority ?? 0) };
      });
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
