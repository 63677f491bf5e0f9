import ipaddr from "ipaddr.js";

/**
 * The webhook address rule: only public unicast addresses may be reached. Everything else (loopback,
 * private, link-local incl. 169.254.169.254 metadata, CGNAT, unique-local, multicast, reserved,
 * unspecified, documentation…) is refused, and IPv6 forms that carry an IPv4 address (mapped, NAT64,
 * 6to4) are judged by the IPv4 address they carry.
 */
export function blockedReason(address: string): string | null {
  if (!ipaddr.isValid(address)) return "not an IP address";
  const parsed = ipaddr.parse(address);
  return parsed.kind() === "ipv4" ? ipv4Reason(parsed as ipaddr.IPv4) : ipv6Reason(parsed as ipaddr.IPv6);
}

function ipv4Reason(ip: ipaddr.IPv4): string | null {
  const range = ip.range();
  if (range !== "unicast") return range;
  // 0.0.0.0/8 means "this network"; ipaddr.js only names 0.0.0.0 itself
  if (ip.octets[0] === 0) return "unspecified";
  return null;
}

const GLOBAL_UNICAST = ipaddr.parseCIDR("2000::/3");
const NAT64_WELL_KNOWN = ipaddr.parseCIDR("64:ff9b::/96");

function embeddedIpv4(ip: ipaddr.IPv6, offsetBytes: number): ipaddr.IPv4 {
  const b = ip.toByteArray();
  return new ipaddr.IPv4(b.slice(offsetBytes, offsetBytes + 4));
}

function ipv6Reason(ip: ipaddr.IPv6): string | null {
  const range = ip.range();
  if (range === "ipv4Mapped" || range === "rfc6145") return prefixed("IPv4-mapped", ipv4Reason(embeddedIpv4(ip, 12)));
  if (range === "rfc6052") {
    // only the well-known /96 prefix embeds the address at a known place; local-use NAT64 is internal
    if (!ip.match(NAT64_WELL_KNOWN)) return "local NAT64";
    return prefixed("NAT64", ipv4Reason(embeddedIpv4(ip, 12)));
  }
  if (range === "6to4") return prefixed("6to4", ipv4Reason(embeddedIpv4(ip, 2)));
  if (range !== "unicast") return range;
  // anything outside global unicast (IPv4-compatible ::a.b.c.d, unassigned space) is not public
  if (!ip.match(GLOBAL_UNICAST)) return "not global unicast";
  return null;
}

const prefixed = (form: string, reason: string | null) => (reason === null ? null : `${form} ${reason}`);

/** A URL host as WHATWG URL leaves it (`127.0.0.1`, `[::1]`, `example.com`): the IP, or null for a name. */
export function ipLiteral(hostname: string): string | null {
  const bare = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
  return ipaddr.isValid(bare) && (bare.includes(":") || ipaddr.IPv4.isValidFourPartDecimal(bare)) ? bare : null;
}

/** `host:port` of a URL with the scheme's default port filled in, as WEBHOOK_ALLOWED_HOSTS lists them. */
export function hostPort(url: URL): string {
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  return `${url.hostname.toLowerCase()}:${port}`;
}

/**
 * Parses a webhook URL. WHATWG URL parsing already turns every IPv4 spelling (`127.1`, `0x7f.1`,
 * `2130706433`, octal) into dotted decimal and compresses IPv6, so the address check sees one form.
 */
export function parseWebhookUrl(raw: string): URL | string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "not a valid URL";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "only http:// and https:// URLs are allowed";
  if (url.username || url.password) return "credentials in the URL are not allowed (use headers)";
  if (!url.hostname) return "the URL has no host";
  return url;
}

/**
 * Why the address rule refuses a host, or null when every address is public. The message never
 * names an address a name resolved to: a tenant must not learn what an internal name points at.
 * An IP literal is named (the tenant wrote it), with its kind.
 */
export function refusal(hostname: string, literal: string | null, addresses: string[]): string | null {
  if (literal) {
    const reason = blockedReason(literal);
    return reason ? `${hostname} is not a public address (${reason})` : null;
  }
  return addresses.some((a) => blockedReason(a) !== null) ? `${hostname} resolves to an address that is not public` : null;
}

/** Names that only ever mean a machine near the reader: RFC 6761/6762 special-use names and the common internal suffixes. */
const LOCAL_SUFFIXES = [".localhost", ".local", ".internal", ".home.arpa", ".lan"];

/**
 * Why a URL host is private or local, judged from the host alone (no lookup): an IP literal that is
 * not public (the rule above), `localhost`, a special-use local name, or a single label (`intranet`),
 * which no public resolver answers. Null for anything else. Used where resolving every host would
 * cost more than the answer is worth (a body's links, checked before a campaign is sent).
 */
export function localHostReason(hostname: string): string | null {
  const literal = ipLiteral(hostname);
  if (literal) {
    const reason = blockedReason(literal);
    return reason ? `not a public address (${reason})` : null;
  }
  const name = hostname.toLowerCase().replace(/\.$/, "");
  if (name === "localhost" || LOCAL_SUFFIXES.some((s) => name.endsWith(s))) return "a local name";
  if (!name.includes(".")) return "a name without a domain";
  return null;
}
