/**
 * Mailbox providers (decisions.md §18): recipients are grouped by who runs their mailboxes, read from
 * their domain's MX hosts, because that is the unit a provider throttles and reputations are kept
 * for. The big four have names of their own; everyone else is the MX host's registrable domain, so
 * a thousand company domains hosted by one filtering service share that service's limit.
 *
 * A provider name is a key of DELIVERY_LIMITS and a metric label: it must stay short and plain.
 */
export type Provider = string;

export const NAMED_PROVIDERS = ["google", "microsoft", "yahoo", "apple"] as const;

/** MX host suffixes of the named providers. */
const MX_SUFFIXES: ReadonlyArray<readonly [string, Provider]> = [
  ["google.com", "google"],
  ["googlemail.com", "google"],
  ["outlook.com", "microsoft"],
  ["protection.outlook.com", "microsoft"],
  ["hotmail.com", "microsoft"],
  ["yahoodns.net", "yahoo"],
  ["yahoo.com", "yahoo"],
  ["icloud.com", "apple"],
  ["me.com", "apple"],
];

/**
 * Recipient domains whose provider is known without a lookup: the bulk of a consumer audience, so a
 * campaign's first job never waits for DNS for them (and a resolver that is down misfiles none).
 */
const KNOWN_DOMAINS: ReadonlyMap<string, Provider> = new Map([
  ...["gmail.com", "googlemail.com"].map((d) => [d, "google"] as const),
  ...["outlook.com", "hotmail.com", "live.com", "msn.com"].map((d) => [d, "microsoft"] as const),
  ...["yahoo.com", "ymail.com", "rocketmail.com", "aol.com"].map((d) => [d, "yahoo"] as const),
  ...["icloud.com", "me.com", "mac.com"].map((d) => [d, "apple"] as const),
]);

/** Public suffixes of two labels under which a registrable domain takes three (co.uk, com.au, …). */
const TWO_LABEL_SUFFIXES = new Set([
  "co.uk", "org.uk", "ac.uk", "gov.uk", "me.uk", "ltd.uk", "plc.uk", "net.uk",
  "com.au", "net.au", "org.au", "edu.au", "co.nz", "org.nz", "net.nz",
  "co.jp", "ne.jp", "or.jp", "ac.jp", "co.kr", "co.in", "co.za", "co.il",
  "com.br", "com.cn", "com.mx", "com.ar", "com.tr", "com.sg", "com.hk", "com.tw", "com.my",
]);

const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

/**
 * A DNS name lower-cased without its trailing dot, or null when it is not one: empty, too long, a
 * label out of shape, or an IP literal (`[192.0.2.1]`, `192.0.2.1`, an IPv6 address). Names come from
 * recipients' addresses and other people's DNS answers, so nothing is assumed about them.
 */
export function hostName(raw: string): string | null {
  if (typeof raw !== "string" || raw.length === 0 || raw.length > 254) return null;
  const name = raw.toLowerCase().replace(/\.$/, "");
  if (name.length === 0 || name.length > 253) return null;
  const labels = name.split(".");
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l))) return null;
  // a dotted quad is an address, not a host name (a top-level label is never all digits)
  if (/^\d+$/.test(labels.at(-1)!)) return null;
  return name;
}

/** The registrable-ish domain of a host: its last two labels, or three under a known two-label suffix. */
export function registrableDomain(host: string): string {
  const labels = host.split(".");
  const two = labels.slice(-2).join(".");
  return TWO_LABEL_SUFFIXES.has(two) && labels.length > 2 ? labels.slice(-3).join(".") : two;
}

/** The provider of one MX host: a named one by suffix, else the host's registrable domain; null if it is no host name. */
export function providerOfMxHost(raw: string): Provider | null {
  const host = hostName(raw);
  if (!host) return null;
  for (const [suffix, provider] of MX_SUFFIXES) if (host === suffix || host.endsWith(`.${suffix}`)) return provider;
  return registrableDomain(host);
}

/** A recipient domain's provider known without DNS, if it is one of the big consumer domains. */
export function knownProvider(recipientDomain: string): Provider | undefined {
  return KNOWN_DOMAINS.get(recipientDomain.toLowerCase());
}

export interface MxRecord {
  exchange: string;
  priority: number;
}

/**
 * The provider of a recipient domain from its MX records: that of the most preferred host that is a
 * host name. No MX, a null MX (RFC 7505: "."), only IP literals, or a failed lookup: the recipient
 * domain's own registrable domain, so its mail is still grouped and limited as "default" and never
 * held back for want of an answer.
 */
export function providerOf(recipientDomain: string, mx: readonly MxRecord[] | null): Provider {
  const ordered = [...(mx ?? [])].filter((r) => typeof r?.exchange === "string").sort((a, b) => (a.priority ?? 0) - (b.priority ?? 0));
  for (const r of ordered) {
    const provider = providerOfMxHost(r.exchange);
    if (provider) return provider;
  }
  return ownProvider(recipientDomain);
}

/** A recipient domain as a provider of its own (no usable MX): its registrable domain, or "unknown". */
export function ownProvider(recipientDomain: string): Provider {
  const known = knownProvider(recipientDomain);
  if (known) return known;
  const host = hostName(recipientDomain);
  return host ? registrableDomain(host) : "unknown";
}

/** The domain part of an address, lower-cased (after the last @, as the relay reads it). */
export function recipientDomain(address: string): string {
  return address.slice(address.lastIndexOf("@") + 1).toLowerCase();
}
