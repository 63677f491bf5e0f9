import { getDomain } from "tldts";
import type { PreSendCheck } from "@mailroom/contracts";

/**
 * The sender domain's authentication as Gmail and Yahoo judge bulk senders (their 2024 rules): SPF
 * and DKIM published, and DMARC published with the From domain aligned with a passing SPF or DKIM
 * identity. Pure: the caller looks the TXT records up and passes what it found.
 *
 * How Mailroom's mail authenticates: the envelope sender is `bounces+…@RETURN_PATH_DOMAIN`, so SPF
 * is evaluated for the return-path domain (the operator's), while DKIM is signed with the From
 * domain's own key (d= the From domain). DMARC alignment therefore comes from DKIM, and from SPF only
 * when the return-path domain shares the From domain's organizational domain.
 */

const check = (name: PreSendCheck["check"], status: PreSendCheck["status"], detail: string): PreSendCheck => ({ check: name, status, detail });

/** The `v=spf1` records among a name's TXT strings (RFC 7208 §4.5: more than one is a permanent error). */
const spfRecords = (txt: string[]) => txt.filter((t) => /^v=spf1(\s|$)/i.test(t.trim()));

/**
 * SPF on the sender domain: exactly one record, which includes the return-path domain as Mailroom's
 * domain page tells users to publish (`include:<RETURN_PATH_DOMAIN>`). Missing or several: fail. One
 * that does not include it, or that passes every host (`+all`): warn.
 */
export function spfCheck(domain: string, txt: string[], returnPathDomain: string): PreSendCheck {
  const found = spfRecords(txt);
  const wanted = `include:${returnPathDomain.toLowerCase()}`;
  if (found.length === 0) return check("spf", "fail", `No SPF record on ${domain}. Publish TXT "v=spf1 include:${returnPathDomain} ~all".`);
  if (found.length > 1) return check("spf", "fail", `${domain} has ${found.length} SPF records; receivers treat that as an error. Merge them into one.`);
  const record = found[0]!.trim();
  const terms = record.toLowerCase().split(/\s+/);
  if (terms.includes("+all") || terms.includes("all")) return check("spf", "warn", `The SPF record of ${domain} allows every server to send as it ("${record}"). End it with ~all or -all.`);
  if (!terms.includes(wanted)) return check("spf", "warn", `The SPF record of ${domain} does not include ${returnPathDomain} ("${record}"). Add ${wanted}.`);
  return check("spf", "pass", `SPF published on ${domain} and includes ${returnPathDomain}.`);
}

/** The `p=` of a DKIM record (RFC 6376 §3.6.1), white space removed; null when there is none. */
export function dkimPublicKey(txt: string): string | null {
  for (const part of txt.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === "p") return part.slice(eq + 1).replace(/\s+/g, "");
  }
  return null;
}

/**
 * DKIM: the selector's record carries the public key of the private key Mailroom signs with. A
 * record with another key (an old one, a typo) is a fail: every signature would be invalid.
 */
export function dkimCheck(recordName: string, txt: string[], expectedKey: string): PreSendCheck {
  const keys = txt.map(dkimPublicKey).filter((k): k is string => k !== null);
  if (keys.length === 0) return check("dkim", "fail", `No DKIM key published at ${recordName}. Publish the DKIM record shown on the domain's page.`);
  if (!keys.includes(expectedKey)) return check("dkim", "fail", `The key published at ${recordName} is not the one Mailroom signs with. Publish the DKIM record shown on the domain's page.`);
  return check("dkim", "pass", `DKIM key published at ${recordName}; messages are signed with d=${recordName.split("._domainkey.")[1] ?? ""}.`);
}

/** Tags of a DMARC record (RFC 7489 §6.3), lower-case names and values; null when it is not one. */
export function parseDmarc(txt: string): Map<string, string> | null {
  const tags = new Map<string, string>();
  for (const part of txt.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0) tags.set(part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1).trim().toLowerCase());
  }
  return tags.get("v") === "dmarc1" && tags.has("p") ? tags : null;
}

/** The organizational domain (public suffix plus one label); the domain itself when it has none. */
export const organizationalDomain = (domain: string): string => getDomain(domain, { allowPrivateDomains: false }) ?? domain;

/** Whether `a` and `b` align under DMARC's mode: strict is the same name, relaxed the same organizational domain. */
export function aligned(a: string, b: string, mode: "r" | "s"): boolean {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  return mode === "s" ? x === y : organizationalDomain(x) === organizationalDomain(y);
}

export interface DmarcInput {
  fromDomain: string;
  /** Where the record was found: the From domain, or its organizational domain (RFC 7489 §6.6.3). */
  recordDomain: string | null;
  txt: string[];
  /** The DKIM check passed: signatures with d=fromDomain will verify. */
  dkimPasses: boolean;
  /** The envelope domain SPF is evaluated for (RETURN_PATH_DOMAIN). */
  returnPathDomain: string;
  /** The return-path domain's SPF authorizes Mailroom (assumed true: it is the operator's). */
  spfPasses?: boolean;
}

/**
 * DMARC: a record published (fail without one: Gmail and Yahoo require it of bulk senders), and the
 * From domain aligned with an identity that passes, DKIM (d= the From domain, aligned in either mode)
 * or SPF (the return-path domain, aligned only when it shares the organizational domain, or is the
 * same name under `aspf=s`). Not aligned: fail, the message fails DMARC.
 *
 * `p=none` is a pass: it is what the bulk-sender rules ask for and what Mailroom's domain page
 * recommends, and it changes nothing for delivery; the detail says that enforcement
 * (quarantine/reject) is the step after reports look clean.
 */
export function dmarcCheck(d: DmarcInput): PreSendCheck {
  const records = d.txt.map(parseDmarc).filter((t): t is Map<string, string> => t !== null);
  const where = `_dmarc.${d.recordDomain ?? d.fromDomain}`;
  if (records.length === 0) return check("dmarc", "fail", `No DMARC record at _dmarc.${d.fromDomain}. Publish TXT "v=DMARC1; p=none;" (Gmail and Yahoo require one of bulk senders).`);
  if (records.length > 1) return check("dmarc", "fail", `${where} has ${records.length} DMARC records; receivers ignore them all. Keep one.`);
  const tags = records[0]!;
  const inherited = d.recordDomain !== null && d.recordDomain !== d.fromDomain;
  const policy = (inherited ? tags.get("sp") : undefined) ?? tags.get("p")!;
  const adkim = tags.get("adkim") === "s" ? "s" : "r";
  const aspf = tags.get("aspf") === "s" ? "s" : "r";
  const viaDkim = d.dkimPasses && aligned(d.fromDomain, d.fromDomain, adkim);
  const viaSpf = (d.spfPasses ?? true) && aligned(d.returnPathDomain, d.fromDomain, aspf);
  if (!viaDkim && !viaSpf) {
    return check(
      "dmarc",
      "fail",
      `DMARC is published at ${where} (p=${policy}), but ${d.fromDomain} is not aligned: DKIM does not verify yet and SPF authenticates ${d.returnPathDomain}, another domain. Fix the DKIM record.`,
    );
  }
  const via = viaDkim ? `DKIM (d=${d.fromDomain})` : `SPF (${d.returnPathDomain})`;
  const advice = policy === "none" ? " Policy p=none only monitors: move to quarantine or reject once the reports look clean." : "";
  return check("dmarc", "pass", `DMARC published at ${where} (p=${policy}); ${d.fromDomain} aligned through ${via}.${advice}`);
}
