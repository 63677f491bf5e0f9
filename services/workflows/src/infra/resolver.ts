import { isIPv6 } from "node:net";
import dns2 from "dns2";
import { dnsServer } from "@mailroom/kit";

/** Every A and AAAA address of a name; throws when the name does not resolve. */
export type Resolve = (name: string, signal: AbortSignal) => Promise<string[]>;

/**
 * Resolves through DNS_SERVER (or the system's first nameserver) with our own DNS client instead of
 * getaddrinfo: the webhook connects to exactly the addresses returned here, so what was checked is
 * what is used (no second lookup a rebinding DNS server could answer differently).
 */
export function createResolver(server: string | undefined, timeoutMs = 3000): Resolve {
  const { host, port } = dnsServer(server);
  const query = dns2.UDPClient({ dns: host, port, timeout: timeoutMs, socketType: isIPv6(host) ? "udp6" : "udp4" });
  const one = async (name: string, type: "A" | "AAAA", signal: AbortSignal): Promise<string[]> => {
    const aborted = new Promise<never>((_, reject) => {
      const fail = () => reject(new Error(`DNS lookup of ${name} timed out`));
      if (signal.aborted) fail();
      signal.addEventListener("abort", fail, { once: true });
    });
    const bounded = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`DNS lookup of ${name} timed out`)), timeoutMs).unref());
    const packet = await Promise.race([query(name, type), aborted, bounded]);
    const want = type === "A" ? dns2.Packet.TYPE.A : dns2.Packet.TYPE.AAAA;
    return packet.answers.filter((a) => a.type === want).map((a) => String((a as { address?: string }).address));
  };
  return async (name, signal) => {
    const [v4, v6] = await Promise.allSettled([one(name, "A", signal), one(name, "AAAA", signal)]);
    const addresses = [...(v4.status === "fulfilled" ? v4.value : []), ...(v6.status === "fulfilled" ? v6.value : [])];
    if (addresses.length === 0) {
      // Only these words: a DNS client's own error could name our nameserver's address.
      const timedOut = [v4, v6].some((r) => r.status === "rejected" && /timed out/.test(String((r.reason as Error)?.message)));
      const failed = v4.status === "rejected" && v6.status === "rejected";
      throw new Error(`could not resolve ${name}: ${timedOut ? "the lookup timed out" : failed ? "the lookup failed" : "no A or AAAA record"}`);
    }
    return addresses;
  };
}
