import type { VerifyAddressResult, VerifyResult } from "@mailroom/contracts";
import { parseAddress, type ParsedAddress } from "./address.js";
import { lookupDomain, type DnsLookup, type DomainCache, type DomainDns } from "./dns.js";
import type { Lists } from "./lists.js";
import { mailFindings } from "./mail.js";
import { suggestDomain } from "./typos.js";

export interface VerifierDeps {
  dns: DnsLookup;
  cache: DomainCache;
  lists: Lists;
}

export interface Verifier {
  verify(email: string): Promise<VerifyResult>;
  /** `verify` and whether DNS said for certain that the domain takes no mail (not a timeout). */
  check(email: string): Promise<VerifyAddressResult>;
}

/**
 * valid = the address parses, its domain exists, the domain accepts mail (MX, or A/AAAA when it
 * has no MX at all), and it is neither disposable nor a likely typo. README.md states the same.
 */
export function createVerifier(deps: VerifierDeps): Verifier {
  // A list verified in bulk repeats domains: concurrent requests for one domain share its lookups.
  const inFlight = new Map<string, Promise<DomainDns>>();
  const lookup = (domain: string): Promise<DomainDns> => {
    let pending = inFlight.get(domain);
    if (!pending) {
      pending = lookupDomain(domain, deps.dns, deps.cache).finally(() => inFlight.delete(domain));
      inFlight.set(domain, pending);
    }
    return pending;
  };

  const verifier: Verifier = {
    async verify(email) {
      const { certainlyNoMail: _, ...result } = await verifier.check(email);
      return result;
    },
    async check(email) {
      const address = parseAddress(email);
      const dns = await lookup(address.asciiDomain);
      const mail = mailFindings(address.domain, dns);
      const found = classify(address, deps.lists, mail.certainlyNoMail);

      const failed = [
        mail.problem,
        found.isDisposable && "the domain is disposable",
        found.isTypo && "the domain looks like a typo",
      ].filter((f): f is string => typeof f === "string");
      const valid = failed.length === 0;
      const verdict = valid ? "Address is valid." : `Address is not valid: ${failed.join("; ")}.`;

      return {
        email: address.address,
        valid,
        isDisposable: found.isDisposable,
        isAlias: found.isAlias,
        isTypo: found.isTypo,
        isPlusAddressed: found.isPlusAddressed,
        isPersonalEmail: found.isPersonalEmail,
        domainExists: mail.domainExists,
        hasWebsite: mail.hasWebsite,
        hasMxRecords: mail.hasMxRecords,
        suggestedEmail: found.suggestedEmail,
        reasons: [verdict, syntaxReason(address), ...mail.reasons, ...found.reasons],
        certainlyNoMail: mail.certainlyNoMail,
      };
    },
  };
  return verifier;
}

function syntaxReason(address: ParsedAddress): string {
  const idn = address.domain !== address.asciiDomain ? ` (internationalized domain, looked up as ${address.asciiDomain})` : "";
  return `Address syntax is valid${idn}.`;
}

function classify(address: ParsedAddress, lists: Lists, domainIsDead: boolean) {
  const { domain, asciiDomain } = address;
  const reasons: string[] = [];

  const alias = lists.aliases.match(asciiDomain);
  const disposableMatch = lists.disposable.match(asciiDomain);
  // Alias services forward to a real inbox, so they win over a disposable listing (33mail.com).
  const isDisposable = disposableMatch !== null && alias === null;
  if (alias) reasons.push(`Domain belongs to ${alias.service.name}, an email alias/forwarding service.`);
  else reasons.push("Domain is not a known alias or forwarding service.");
  if (isDisposable) {
    reasons.push(
      disposableMatch === asciiDomain
        ? `Domain ${domain} is a disposable (temporary) email provider.`
        : `Domain ${domain} is a subdomain of the disposable email provider ${disposableMatch}.`,
    );
  } else if (alias && disposableMatch) {
    reasons.push("Domain is on the disposable list but counted as an alias service, since its mail reaches a real inbox.");
  } else {
    reasons.push("Domain is not a known disposable email provider.");
  }

  const plus = address.localContent.indexOf("+");
  const isPlusAddressed = plus >= 0;
  reasons.push(
    isPlusAddressed
      ? `Local part uses plus addressing (tag "${address.localContent.slice(plus + 1)}").`
      : "Local part has no plus tag.",
  );

  const typo = suggestDomain(asciiDomain, lists.typos, domainIsDead);
  const suggestedEmail = typo ? `${address.local}@${typo.domain}` : null;
  reasons.push(
    typo
      ? `Domain ${domain} looks like a misspelling of ${typo.domain}: did you mean ${suggestedEmail}?`
      : "No typo detected in the domain.",
  );

  // Provider lists carry some typo domains registered to catch mail (gmial.com): not providers.
  const isPersonalEmail = lists.personal.has(asciiDomain) && !isDisposable && typo === null;
  reasons.push(
    isPersonalEmail
      ? `Domain ${domain} is a free personal email provider.`
      : "Domain is not a known free email provider.",
  );

  return { isDisposable, isAlias: alias !== null, isPersonalEmail, isPlusAddressed, isTypo: typo !== null, suggestedEmail, reasons };
}
