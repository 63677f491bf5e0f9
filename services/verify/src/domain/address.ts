import { domainToASCII } from "node:url";
import { parse as parseSmtpMailbox } from "smtp-address-parser";
import { AppError } from "@mailroom/contracts";

/** A mailbox that parsed: the parts every classifier and the DNS checks work from. */
export interface ParsedAddress {
  /** Local part as written (a quoted one keeps its quotes). */
  local: string;
  /** Local part without quotes and escapes: what plus-addressing looks at. */
  localContent: string;
  quoted: boolean;
  /** Domain as written, lower-cased (Unicode for an IDN). */
  domain: string;
  /** Domain in A-label (punycode) form: what DNS and the lists see. */
  asciiDomain: string;
  /** `local@domain`: the form the verify result echoes. */
  address: string;
}

// RFC 5321 §4.5.3.1.1 (local part) and the 256-octet path minus its angle brackets (§4.5.3.1.3).
const MAX_LOCAL_OCTETS = 64;
const MAX_ADDRESS_OCTETS = 254;
const MAX_DOMAIN_OCTETS = 253;
const MAX_LABEL_OCTETS = 63;
const LDH_LABEL = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;

const octets = (s: string): number => Buffer.byteLength(s, "utf8");

const ATEXT = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]";
const LABEL = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?";
/**
 * The shape nearly every address has: an ASCII dot-atom local part at a host name whose top-level
 * label has two characters or more. It is a subset of the RFC 5321 Mailbox grammar that
 * smtp-address-parser accepts (address-fast-path.test.ts checks it on generated addresses), and
 * it is checked in a microsecond, where the parser's Earley run took a third of the service's CPU per
 * warm verification. Anything else still goes through the parser.
 */
export const PLAIN_MAILBOX = new RegExp(`^${ATEXT}+(?:\\.${ATEXT}+)*@(?:${LABEL}\\.)+[A-Za-z0-9][A-Za-z0-9-]{0,61}[A-Za-z0-9]$`);

function invalid(message: string): AppError {
  return AppError.validation(`email ${message}`, [{ path: "email", message }]);
}

/**
 * Parses an address by the Mailbox grammar of RFC 5321 §4.1.2 extended to UTF-8 by RFC 6531
 * (smtp-address-parser), then applies what that grammar leaves open: length limits in octets,
 * IDNA (UTS #46) for the domain, and no address literals (a mailbox at an IP address is never
 * what a sender means, and such a "domain" cannot be classified).
 * Throws VALIDATION_ERROR with a `details` entry on `email` when the address does not parse.
 */
export function parseAddress(input: string): ParsedAddress {
  const raw = input.trim();
  if (raw === "") throw invalid("must not be empty");
  const at = raw.lastIndexOf("@");
  if (at < 0) throw invalid("must contain an @ sign");
  if (at === 0) throw invalid("must have a local part before the @ sign");
  if (at === raw.length - 1) throw invalid("must have a domain after the @ sign");

  const local = raw.slice(0, at);
  const writtenDomain = raw.slice(at + 1);
  if (writtenDomain.startsWith("[")) throw invalid("must have a domain name, not an IP address literal");
  if (octets(local) > MAX_LOCAL_OCTETS) throw invalid(`local part must be at most ${MAX_LOCAL_OCTETS} octets`);

  if (!(PLAIN_MAILBOX.test(raw) && writtenDomain.length <= MAX_DOMAIN_OCTETS)) {
    try {
      parseSmtpMailbox(raw);
    } catch (err) {
      throw invalid(describeSyntaxError(raw, err));
    }
  }

  const asciiDomain = domainToASCII(writtenDomain);
  if (asciiDomain === "") throw invalid("domain is not a valid (internationalized) domain name");
  checkDomainName(asciiDomain);
  if (octets(local) + 1 + asciiDomain.length > MAX_ADDRESS_OCTETS) {
    throw invalid(`must be at most ${MAX_ADDRESS_OCTETS} octets`);
  }

  const quoted = local.startsWith('"');
  const localContent = quoted ? local.slice(1, -1).replace(/\\(.)/g, "$1") : local;
  const domain = writtenDomain.toLowerCase();
  return { local, localContent, quoted, domain, asciiDomain, address: `${local}@${domain}` };
}

/** Rules on the A-label form, which is what DNS enforces (RFC 1035 §2.3.4, RFC 3696 §2). */
function checkDomainName(ascii: string): void {
  if (ascii.length > MAX_DOMAIN_OCTETS) throw invalid(`domain must be at most ${MAX_DOMAIN_OCTETS} octets`);
  const labels = ascii.split(".");
  if (labels.length < 2) throw invalid("domain must have at least two labels");
  for (const label of labels) {
    if (label.length > MAX_LABEL_OCTETS) throw invalid(`domain labels must be at most ${MAX_LABEL_OCTETS} octets`);
    if (!LDH_LABEL.test(label)) throw invalid(`domain label "${label}" is not a valid host name label`);
  }
  // An all-numeric top-level label means a dotted IP address written without brackets.
  if (/^[0-9]+$/.test(labels[labels.length - 1] ?? "")) throw invalid("must have a domain name, not an IP address");
}

/** nearley reports "Syntax error at line 1 col N" followed by its grammar dump; keep the position. */
function describeSyntaxError(raw: string, err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const col = /col (\d+)/.exec(message)?.[1];
  if (col !== undefined) {
    const index = Number(col) - 1;
    const char = [...raw.slice(index)][0] ?? "";
    return `is not a valid address: unexpected ${JSON.stringify(char)} at position ${index + 1}`;
  }
  if (/too long/.test(message)) return "is too long";
  if (/fully qualified/.test(message)) return "domain must have at least two labels";
  if (/top level domain/.test(message)) return "top-level domain must be at least two characters";
  return "is not a valid address: it ends before it is complete (unclosed quote?)";
}
