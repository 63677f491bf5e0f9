import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";

const dns2 = createRequire(import.meta.url)("dns2");
const { Packet } = dns2;

/** Records of one name. `behaviour` simulates failures: SERVFAIL, or never answering (timeouts). */
export interface RecordSet {
  A?: string[];
  AAAA?: string[];
  MX?: Array<{ exchange: string; priority: number }>;
  NS?: string[];
  TXT?: string[];
  behaviour?: "servfail" | "timeout";
}
export type Zones = Record<string, RecordSet>;

const norm = (name: string) => name.toLowerCase().replace(/\.$/, "");

/** TXT strings longer than 255 bytes (DKIM keys) travel as several character-strings. */
function chunks(s: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < s.length; i += 255) out.push(s.slice(i, i + 255));
  return out.length ? out : [""];
}

/**
 * A DNS server on loopback for tests (Mailroom is pointed at it with DNS_SERVER). Zones come from
 * memory and, when given, from a JSON file read on every query, so test files in other processes
 * can add records for their own unique domains with `addZones(file, …)`. Unknown names: NXDOMAIN.
 */
export async function startDnsServer(opts: { zones?: Zones; zonesFile?: string } = {}) {
  const memory: Zones = { ...opts.zones };
  const queries: Array<{ name: string; type: number }> = [];
  const lookup = (name: string): RecordSet | undefined => {
    const n = norm(name);
    if (memory[n]) return memory[n];
    if (opts.zonesFile && existsSync(opts.zonesFile)) {
      const fileZones = JSON.parse(readFileSync(opts.zonesFile, "utf8")) as Zones;
      return fileZones[n];
    }
    return undefined;
  };
  const server = dns2.createServer({
    udp: true,
    tcp: true,
    handle: (request: any, send: (r: any) => void) => {
      const response = Packet.createResponseFromRequest(request);
      const [q] = request.questions;
      queries.push({ name: norm(q.name), type: q.type });
      const set = lookup(q.name);
      if (set?.behaviour === "timeout") return;
      if (set?.behaviour === "servfail") {
        response.header.rcode = Packet.RCODE.SERVFAIL;
        return send(response);
      }
      if (!set) {
        response.header.rcode = Packet.RCODE.NXDOMAIN;
        return send(response);
      }
      const base = { name: q.name, class: Packet.CLASS.IN, ttl: 300 };
      const T = Packet.TYPE;
      if (q.type === T.A) for (const address of set.A ?? []) response.answers.push({ ...base, type: T.A, address });
      if (q.type === T.AAAA) for (const address of set.AAAA ?? []) response.answers.push({ ...base, type: T.AAAA, address });
      if (q.type === T.NS) for (const ns of set.NS ?? []) response.answers.push({ ...base, type: T.NS, ns });
      if (q.type === T.MX) for (const mx of set.MX ?? []) response.answers.push({ ...base, type: T.MX, ...mx });
      if (q.type === T.TXT) for (const txt of set.TXT ?? []) response.answers.push({ ...base, type: T.TXT, data: chunks(txt) });
      send(response);
    },
  });
  await server.listen({ udp: { port: 0, address: "127.0.0.1" }, tcp: { port: 0, address: "127.0.0.1" } });
  const addrs = server.addresses();
  const port: number = addrs.udp.port;
  return {
    port,
    /** `host:port` for DNS_SERVER. */
    address: `127.0.0.1:${port}`,
    queries,
    set(name: string, records: RecordSet) {
      memory[norm(name)] = records;
    },
    async stop() {
      await server.close();
    },
  };
}
export type DnsServer = Awaited<ReturnType<typeof startDnsServer>>;

/**
 * Adds zones to a shared zones file: written whole and renamed into place, so a query never reads
 * half a file, and under the file's lock, so two test workers adding at once cannot each write back
 * what they read before the other's write and lose the other's zones.
 */
export function addZones(file: string, zones: Zones): void {
  withFileLock(file, () => {
    const current: Zones = existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : {};
    for (const [name, set] of Object.entries(zones)) current[norm(name)] = set;
    const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
    writeFileSync(tmp, JSON.stringify(current));
    renameSync(tmp, file);
  });
}

/** A lock older than this was left by a process that died holding it: a write takes milliseconds. */
const STALE_LOCK_MS = 5000;
/** What a wait for the lock sleeps on (Atomics.wait on a word nobody changes: a synchronous sleep). */
const NAP = new Int32Array(new SharedArrayBuffer(4));

/** Runs `fn` holding `<file>.lock` (a directory: mkdir either makes it or fails, across processes). */
function withFileLock<T>(file: string, fn: () => T): T {
  const lock = `${file}.lock`;
  const deadline = Date.now() + 4 * STALE_LOCK_MS;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      if (Date.now() > deadline) throw new Error(`${lock} stayed held for ${4 * STALE_LOCK_MS} ms`);
      try {
        if (Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) rmSync(lock, { recursive: true, force: true });
      } catch {
        // released meanwhile
      }
      Atomics.wait(NAP, 0, 0, 2);
    }
  }
  try {
    return fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
