import { readFileSync } from "node:fs";
import { isIPv6 } from "node:net";

export interface DnsServerAddress {
  host: string;
  port: number;
}

/** `host:port`, `host`, `[v6]:port` or a bare IPv6 address (port 53 by default). */
export function parseDnsServer(value: string): DnsServerAddress {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(value);
  if (bracketed) return { host: bracketed[1] ?? "", port: Number(bracketed[2] ?? 53) };
  if (isIPv6(value)) return { host: value, port: 53 };
  const [host = "", port] = value.split(":");
  return { host, port: port === undefined ? 53 : Number(port) };
}

/** The system resolver: the first `nameserver` of resolv.conf, as glibc uses first (127.0.0.1 when none). */
export function systemDnsServer(path = "/etc/resolv.conf"): DnsServerAddress {
  let text = "";
  try {
    text = readFileSync(path, "utf8");
  } catch {
    // No resolv.conf: glibc's own default applies.
  }
  const host = /^\s*nameserver\s+(\S+)/m.exec(text)?.[1]?.replace(/%.*$/, "") ?? "127.0.0.1";
  return { host, port: 53 };
}

/**
 * The server every Mailroom DNS lookup goes to (verify, domain checks, inbound verdicts, webhook
 * hosts): DNS_SERVER when set, else the system's first nameserver. Mailroom resolves with its own
 * client so tests and operators can point every lookup at one server.
 */
export function dnsServer(value: string | undefined): DnsServerAddress {
  return value ? parseDnsServer(value) : systemDnsServer();
}
