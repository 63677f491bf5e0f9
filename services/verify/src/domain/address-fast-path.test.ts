import fc from "fast-check";
import { parse as parseSmtpMailbox } from "smtp-address-parser";
import { describe, expect, it } from "vitest";
import { PLAIN_MAILBOX } from "./address.js";

// PLAIN_MAILBOX lets parseAddress skip the RFC 5321 parser. That is only sound if every address it
// matches is one the parser accepts; these properties try to find one it does not.
const atext = fc.constantFrom(..."abcxyzABCXYZ0189!#$%&'*+/=?^_`{|}~-".split(""));
const atom = fc.string({ unit: atext, minLength: 1, maxLength: 12 });
const local = fc.array(atom, { minLength: 1, maxLength: 4 }).map((atoms) => atoms.join("."));
const ldh = fc.constantFrom(..."abzAZ09-".split(""));
const label = fc
  .tuple(fc.constantFrom(..."aZ0".split("")), fc.string({ unit: ldh, maxLength: 20 }), fc.constantFrom(..."bY9".split("")))
  .map(([a, mid, z]) => `${a}${mid}${z}`);
const domain = fc.array(label, { minLength: 2, maxLength: 4 }).map((labels) => labels.join("."));
/** Near misses: the characters that make an address fancy or wrong, in any place. */
const anyChar = fc.constantFrom(..."aZ09.-@\"\\ ()<>[],;:_+é\t".split(""));

describe("the plain-mailbox fast path", () => {
  it("matches only addresses the RFC 5321 parser accepts (generated plain addresses)", () => {
    fc.assert(
      fc.property(local, domain, (l, d) => {
        const address = `${l}@${d}`;
        expect(PLAIN_MAILBOX.test(address)).toBe(true);
        expect(() => parseSmtpMailbox(address)).not.toThrow();
      }),
      { numRuns: 2000 },
    );
  });

  it("matches only addresses the RFC 5321 parser accepts (arbitrary near misses)", () => {
    fc.assert(
      fc.property(fc.string({ unit: anyChar, minLength: 3, maxLength: 30 }), (s) => {
        if (PLAIN_MAILBOX.test(s)) expect(() => parseSmtpMailbox(s)).not.toThrow();
      }),
      { numRuns: 20000 },
    );
  });

  it("leaves quoted, non-ASCII, literal and malformed addresses to the parser", () => {
    for (const address of ['"a b"@example.com', "zoë@example.com", "a@[192.0.2.1]", "a..b@example.com", ".a@example.com", "a@example.c", "a@-x.com", "a@x-.com", "a@example"]) {
      expect(PLAIN_MAILBOX.test(address), address).toBe(false);
    }
  });
});
