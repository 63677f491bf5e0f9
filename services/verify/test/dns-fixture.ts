import type { AddressInfo } from "node:net";
import dns2 from "dns2";

const { Packet } = dns2;
type RecordType = "NS" | "A" | "AAAA" | "MX";
type Rdata = Record<string, unknown> & { ttl?: number };
export type Zone = Partial<Record<RecordType, Rdata[]>> | "SERVFAIL";

const ns = (...hosts: string[]) => hosts.map((h) => ({ ns: h }));
const mx = (...hosts: string[]) => hosts.map((h, i) => ({ exchange: h, priority: 10 * (i + 1) }));
const a = (address = "192.0.2.10") => [{ address }];
const mailDomain = (name: string): Zone => ({ NS: ns(`ns1.${name}`), MX: mx(`mx.${name}`), A: a() });

/** Fixture zones: every name the integration tests look up. Anything else is NXDOMAIN. */
export const ZONES: Record<string, Zone> = {
  "example.com": {
    NS: ns("ns1.example.com", "ns2.example.com"),
    A: a(),
    AAAA: [{ address: "2001:db8::10" }],
    MX: [{ exchange: "mx2.example.com", priority: 20 }, { exchange: "mx1.example.com", priority: 10 }],
  },
  "aonly.example": { NS: ns("ns1.aonly.example"), A: a("192.0.2.20") },
  "nullmx.example": { NS: ns("ns1.nullmx.example"), A: a("192.0.2.30"), MX: [{ exchange: "", priority: 0 }] },
  "nothing.example": { NS: ns("ns1.nothing.example") },
  "servfail.example": "SERVFAIL",
  "cache.example": { NS: [{ ns: "ns1.cache.example", ttl: 600 }], A: [{ address: "192.0.2.40", ttl: 600 }], MX: [{ exchange: "mx.cache.example", priority: 10, ttl: 300 }], AAAA: [{ address: "2001:db8::40", ttl: 600 }] },
  "together.example": mailDomain("together.example"),
  "mailinator.com": mailDomain("mailinator.com"),
  "team.mailinator.com": { MX: mx("mx.mailinator.com") },
  "gmail.com": mailDomain("gmail.com"),
  "duck.com": mailDomain("duck.com"),
  "bob.anonaddy.com": { MX: mx("mail.anonaddy.com") },
  "alice.33mail.com": { MX: mx("mx.33mail.com") },
  // Typo domains registered to catch mail: still typos.
  "gmial.com": mailDomain("gmial.com"),
  "hotmial.com": mailDomain("hotmial.com"),
  // One edit from gmail.com but a working domain of its own: never "corrected".
  "gmaik.com": mailDomain("gmaik.com"),
  "xn--bcher-kva.example": mailDomain("xn--bcher-kva.example"),
};

export interface DnsFixture {
  /** `127.0.0.1:port`, for DNS_SERVER. */
  server: string;
  /** Every question received, in order. */
  queries: { name: string; type: string }[];
  close(): Promise<void>;
}

const TYPE_NAMES = new Map<number, string>(Object.entries(Packet.TYPE).map(([name, code]) => [code as number, name]));
const soa = (name: string) => ({
  name, type: Packet.TYPE.SOA, class: Packet.CLASS.IN, ttl: 900,
  primary: "ns1.example", admin: "hostmaster.example", serial: 1, refresh: 3600, retry: 600, expiration: 86400, minimum: 300,
});

/** A dns2 UDP server on 127.0.0.1 at a random port; `silent` never answers (timeouts). */
export async function startDnsServer(zones: Record<string, Zone> = ZONES, options: { silent?: boolean } = {}): Promise<DnsFixture> {
  const queries: DnsFixture["queries"] = [];
  const server = dns2.createUDPServer((request, send) => {
    const question = request.questions[0];
    if (!question) return;
    const type = TYPE_NAMES.get(question.type) ?? String(question.type);
    queries.push({ name: question.name, type });
    if (options.silent) return;

    const response = Packet.createResponseFromRequest(request);
    response.header.ra = 1;
    const zone = zones[question.name.toLowerCase()];
    if (zone === "SERVFAIL") {
      response.header.rcode = 2;
    } else if (zone === undefined) {
      response.header.rcode = 3;
      response.authorities.push(soa(question.name) as never);
    } else {
      const records = zone[type as RecordType] ?? [];
      for (const record of records) {
        response.answers.push({ name: question.name, type: question.type, class: Packet.CLASS.IN, ttl: 3600, ...record } as never);
      }
      if (records.length === 0) response.authorities.push(soa(question.name) as never);
    }
    void send(response);
  });
  await server.listen(0, "127.0.0.1");
  const { port } = server.address() as AddressInfo;
  return {
    server: `127.0.0.1:${port}`,
    queries,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
