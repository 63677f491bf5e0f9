import { isIPv6 } from "node:net";
import dns2 from "dns2";
import type { DnsAnswer, DnsLookup, DnsRecord, RecordType } from "../domain/dns.js";

const { Packet } = dns2;
type Packet = dns2.Packet;
type Resource = dns2.Packet.Resource;

import type { DnsServerAddress } from "@mailroom/kit";

/**
 * DnsLookup over dns2's UDP client (which retries over TCP when an answer is truncated).
 * No retries: the caller wants an answer within `timeoutMs`, and a timeout is itself a finding.
 */
export function createDns2Lookup(server: DnsServerAddress, timeoutMs: number): DnsLookup {
  const resolve = dns2.UDPClient({
    dns: server.host,
    port: server.port,
    timeout: timeoutMs,
    socketType: isIPv6(server.host) ? "udp6" : "udp4",
  });
  return {
    async lookup(name, type) {
      let timer: NodeJS.Timeout | undefined;
      // dns2 bounds the UDP wait itself but not its TCP fallback: one bound for both.
      const timeout = new Promise<"timeout">((done) => {
        timer = setTimeout(() => done("timeout"), timeoutMs);
      });
      try {
        const packet = await Promise.race([resolve(name, type), timeout]);
        if (packet === "timeout") return timedOut(timeoutMs);
        return toAnswer(packet, type);
      } catch (err) {
        if ((err as { code?: string }).code === "ETIMEDOUT") return timedOut(timeoutMs);
        return { status: "ERROR", records: [], ttl: null, detail: `failed: ${(err as Error).message}` };
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

const timedOut = (ms: number): DnsAnswer => ({ status: "TIMEOUT", records: [], ttl: null, detail: `timed out after ${ms} ms` });

// RFC 1035 §4.1.1 (dns2's typings leave its RCODE table out).
const RCODE = { NOERROR: 0, SERVFAIL: 2, NXDOMAIN: 3 } as const;
const RCODE_NAMES: Record<number, string> = { 1: "FORMERR", 4: "NOTIMP", 5: "REFUSED" };

function toAnswer(packet: Packet, type: RecordType): DnsAnswer {
  const rcode = packet.header.rcode;
  if (rcode === RCODE.NXDOMAIN) return { status: "NXDOMAIN", records: [], ttl: negativeTtl(packet) };
  if (rcode === RCODE.SERVFAIL) return { status: "SERVFAIL", records: [], ttl: null };
  if (rcode !== RCODE.NOERROR) {
    return { status: "ERROR", records: [], ttl: null, detail: `failed: the DNS server answered ${RCODE_NAMES[rcode] ?? `rcode ${rcode}`}` };
  }
  const matching = packet.answers.filter((r) => r.type === Packet.TYPE[type]);
  if (matching.length === 0) return { status: "NOERROR", records: [], ttl: negativeTtl(packet) };
  // A CNAME on the way to the records expires with them, so every answer's TTL counts.
  const ttl = Math.min(...packet.answers.map((r) => r.ttl));
  return { status: "NOERROR", records: matching.map((r) => toRecord(r, type)), ttl };
}

function toRecord(r: Resource, type: RecordType): DnsRecord {
  if (type === "MX") return { value: (r.exchange ?? "").replace(/\.$/, "").toLowerCase(), priority: r.priority ?? 0 };
  if (type === "NS") return { value: (r.ns ?? "").toLowerCase() };
  return { value: r.address ?? "" };
}

/** RFC 2308 §5: a negative answer lives for the smaller of the SOA's TTL and its MINIMUM field. */
function negativeTtl(packet: Packet): number | null {
  const soa = packet.authorities.find((r) => r.type === Packet.TYPE.SOA);
  return soa ? Math.min(soa.ttl, soa.minimum ?? soa.ttl) : null;
}
