import { describe, expect, it } from "vitest";
import { AppError } from "@mailroom/contracts";
import { parseAddress } from "./address.js";

const VALID: [string, Partial<ReturnType<typeof parseAddress>>][] = [
  ["simple@example.com", { local: "simple", domain: "example.com", asciiDomain: "example.com" }],
  ["very.common@example.com", { local: "very.common" }],
  ["x@example.com", { local: "x" }],
  ["long.email-address-with-hyphens@and.subdomains.example.com", { domain: "and.subdomains.example.com" }],
  ["user.name+tag+sorting@example.com", { localContent: "user.name+tag+sorting" }],
  ["name/surname@example.com", { local: "name/surname" }],
  ["admin@mailserver1.example", { domain: "mailserver1.example" }],
  ["!#$%&'*+-/=?^_`{|}~@example.org", { local: "!#$%&'*+-/=?^_`{|}~" }],
  ['"john..doe"@example.org', { quoted: true, localContent: "john..doe" }],
  ['" "@example.org', { quoted: true, localContent: " " }],
  ['"very.(),:;<>[]\\".VERY.\\"very@\\\\ \\"very\\".unusual"@strange.example.com', { quoted: true }],
  ['"a@b"@example.com', { local: '"a@b"', localContent: "a@b" }],
  ["user%example.com@example.org", { local: "user%example.com" }],
  ["user-@example.org", { local: "user-" }],
  ["Upper.Case@EXAMPLE.Com", { local: "Upper.Case", domain: "example.com", address: "Upper.Case@example.com" }],
  ["  padded@example.com  ", { address: "padded@example.com" }],
  ["1234567890@123.example", { domain: "123.example" }],
  ["user@xn--bcher-kva.example", { asciiDomain: "xn--bcher-kva.example" }],
  ["user@bücher.example", { domain: "bücher.example", asciiDomain: "xn--bcher-kva.example" }],
  ["用户@例子.广告", { local: "用户", asciiDomain: "xn--fsqu00a.xn--4rr70v" }],
  ["δοκιμή@παράδειγμα.δοκιμή", { asciiDomain: "xn--hxajbheg2az3al.xn--jxalpdlp" }],
  ["user@ÉXAMPLE.com", { domain: "éxample.com", asciiDomain: "xn--xample-9ua.com" }],
  [`${"a".repeat(64)}@example.com`, { local: "a".repeat(64) }],
  [`a@${"b".repeat(63)}.com`, {}],
  [`${"a".repeat(64)}@${["c".repeat(63), "d".repeat(63), "e".repeat(57)].join(".")}.com`, {}], // exactly 254
];

const INVALID: [string, RegExp][] = [
  ["", /must not be empty/],
  ["   ", /must not be empty/],
  ["Abc.example.com", /must contain an @ sign/],
  ["@example.com", /local part before/],
  ["user@", /domain after/],
  ["A@b@c@example.com", /unexpected "@"/],
  ['a"b(c)d,e:f;g<h>i[j\\k]l@example.com', /unexpected/],
  ['just"not"right@example.com', /unexpected/],
  ['this is"not\\allowed@example.com', /unexpected " "/],
  ["john..doe@example.com", /unexpected "\."/],
  [".john@example.com", /unexpected "\."/],
  ["john.@example.com", /unexpected "@"/],
  ["john@example..com", /unexpected "\."/],
  ["john@-example.com", /unexpected "-"/],
  ["john@example-.com", /unexpected "\."/],
  ["john@exa_mple.com", /unexpected "_"/],
  ["john@example.com.", /ends before it is complete|unexpected/],
  ["john doe@example.com", /unexpected " "/],
  ['"unclosed@example.com', /ends before it is complete/],
  ["john@localhost", /at least two labels/],
  ["john@example.c", /top-level domain/],
  ["john@[192.0.2.1]", /not an IP address literal/],
  ["john@[IPv6:2001:db8::1]", /not an IP address literal/],
  ["john@192.0.2.123", /not an IP address/],
  ["john@xn--zz.example", /not a valid \(internationalized\) domain/],
  ["Jane <jane@example.com>", /unexpected/],
  ["jane(comment)@example.com", /unexpected "\("/],
  [`${"a".repeat(65)}@example.com`, /local part must be at most 64 octets/],
  [`${"ü".repeat(33)}@example.com`, /local part must be at most 64 octets/],
  [`a@${"b".repeat(64)}.com`, /labels must be at most 63|too long|unexpected/],
  [`${"a".repeat(64)}@${["c".repeat(63), "d".repeat(63), "e".repeat(58)].join(".")}.com`, /at most 254 octets/],
  [`a@${Array.from({ length: 130 }, () => "b").join(".")}.com`, /at most 253 octets|too long/],
];

describe("parseAddress", () => {
  it.each(VALID)("accepts %j", (input, expected) => {
    expect(parseAddress(input)).toMatchObject(expected);
  });

  it.each(INVALID)("rejects %j", (input, message) => {
    let caught: unknown;
    try {
      parseAddress(input);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(AppError);
    const err = caught as AppError;
    expect(err.code).toBe("VALIDATION_ERROR");
    expect(err.status).toBe(400);
    expect(err.details).toHaveLength(1);
    expect(err.details?.[0]?.path).toBe("email");
    expect(err.details?.[0]?.message).toMatch(message);
  });
});
