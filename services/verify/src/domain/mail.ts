import { isFailure, type DnsAnswer, type DomainDns } from "./dns.js";

/** What the DNS answers say about a domain, each with the sentence that explains it. */
export interface MailFindings {
  domainExists: boolean;
  hasWebsite: boolean;
  hasMxRecords: boolean;
  /** By MX, or by the implicit MX of RFC 5321 §5.1 (A/AAAA) when there is no MX at all. */
  acceptsMail: boolean;
  /** DNS answered for certain that no mail can be delivered (not a timeout or server failure). */
  certainlyNoMail: boolean;
  /** Why mail cannot be delivered, in a few words for the verdict; null when it can. */
  problem: string | null;
  reasons: string[];
}

const MAX_LISTED_HOSTS = 3;

function failure(what: string, answer: DnsAnswer): string {
  if (answer.status === "SERVFAIL") return `the ${what} lookup failed: the DNS server answered SERVFAIL`;
  return `the ${what} lookup ${answer.detail ?? "failed"}`;
}

function hosts(answer: DnsAnswer): string {
  const names = [...answer.records].sort((a, b) => (a.priority ?? 0) - (b.priority ?? 0)).map((r) => r.value);
  const more = names.length > MAX_LISTED_HOSTS ? ` and ${names.length - MAX_LISTED_HOSTS} more` : "";
  return names.slice(0, MAX_LISTED_HOSTS).join(", ") + more;
}

export function mailFindings(domain: string, dns: DomainDns): MailFindings {
  const { NS: ns, A: a, AAAA: aaaa, MX: mx } = dns;
  const exchanges = mx.records.filter((r) => r.value !== "");
  const nullMx = mx.records.length > 0 && exchanges.length === 0;
  const hasMxRecords = exchanges.length > 0;
  const hasWebsite = a.records.length > 0 || aaaa.records.length > 0;
  const hasNs = ns.records.length > 0;
  // A name below its zone's apex has no NS of its own; any record still proves it exists.
  const domainExists = hasNs || mx.records.length > 0 || hasWebsite;
  const nxdomain = [ns, a, aaaa, mx].some((answer) => answer.status === "NXDOMAIN");
  const addressFailure = isFailure(a) ? failure("A", a) : isFailure(aaaa) ? failure("AAAA", aaaa) : null;
  const reasons: string[] = [];

  if (hasNs) reasons.push(`Domain ${domain} exists: it has NS records (${hosts(ns)}).`);
  else if (domainExists) reasons.push(`Domain ${domain} exists: it has DNS records, though no NS records of its own.`);
  else if (nxdomain) reasons.push(`Domain ${domain} does not exist (NXDOMAIN).`);
  else if (isFailure(ns)) reasons.push(`Could not check that domain ${domain} exists: ${failure("NS", ns)}.`);
  else reasons.push(`Domain ${domain} has no NS, MX, A or AAAA records.`);

  let acceptsMail = false;
  let certainlyNoMail = false;
  if (hasMxRecords) {
    acceptsMail = true;
    reasons.push(`Domain accepts mail: MX records point to ${hosts({ ...mx, records: exchanges })}.`);
  } else if (nullMx) {
    certainlyNoMail = true;
    reasons.push("Domain publishes a null MX (RFC 7505): it explicitly accepts no mail.");
  } else if (isFailure(mx)) {
    reasons.push(`Could not check whether the domain accepts mail: ${failure("MX", mx)}.`);
  } else if (nxdomain) {
    certainlyNoMail = true;
    reasons.push("Domain cannot receive mail because it does not exist.");
  } else if (hasWebsite) {
    acceptsMail = true;
    reasons.push("Domain has no MX records; mail goes to its A/AAAA address instead (implicit MX, RFC 5321 §5.1).");
  } else if (addressFailure) {
    reasons.push(`Domain has no MX records and its address could not be checked: ${addressFailure}.`);
  } else {
    certainlyNoMail = true;
    reasons.push("Domain has no MX records and no A/AAAA address, so it cannot receive mail.");
  }

  if (hasWebsite) reasons.push("Domain has a website address (A/AAAA records).");
  else if (addressFailure) reasons.push(`Could not check for a website address: ${addressFailure}.`);
  else reasons.push("Domain has no A or AAAA records (no website).");

  const anyFailure = [ns, a, aaaa, mx].some(isFailure);
  let problem: string | null = null;
  if (!domainExists) {
    if (nxdomain) problem = "the domain does not exist";
    else problem = anyFailure ? "the domain could not be checked in DNS" : "the domain has no DNS records";
  } else if (!acceptsMail) {
    problem = certainlyNoMail ? "the domain accepts no mail" : "the domain's mail servers could not be checked";
  }
  return { domainExists, hasWebsite, hasMxRecords, acceptsMail, certainlyNoMail, problem, reasons };
}
