import { readFileSync } from "node:fs";
import { createServer } from "node:net";

/**
 * The kernel's ephemeral range: ports it hands to outgoing connections. A port picked from it can be
 * taken by any connection opened before the process meant to listen on it binds (a benchmark's
 * load generator opens thousands), so ports handed out here come from below it.
 */
function ephemeralStart(): number {
  try {
    return Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]) || 32768;
  } catch {
    return 32768;
  }
}

const LOW = 20_000;
const HIGH = Math.max(LOW + 1000, ephemeralStart());

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.unref();
    srv.once("error", () => resolve(false));
    // Services listen on every interface: check the same, so a loopback-only listener counts too.
    srv.listen(port, () => srv.close(() => resolve(true)));
  });
}

/**
 * A port free right now, for processes that need one up front: a random one under the ephemeral
 * range (so no outgoing connection can take it before its listener binds), checked by binding it.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const port = LOW + Math.floor(Math.random() * (HIGH - LOW));
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port found between ${LOW} and ${HIGH}`);
}
