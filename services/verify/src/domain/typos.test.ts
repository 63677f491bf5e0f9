import { describe, expect, it } from "vitest";
import { editDistance, suggestDomain } from "./typos.js";
import type { TypoData } from "./lists.js";

const typos: TypoData = {
  providers: ["gmail.com", "yahoo.com", "hotmail.com", "hotmail.co.uk", "outlook.com", "gmx.net"],
  misspellings: { "gmial.com": "gmail.com" },
  tldMisspellings: { co: "com", con: "com", nte: "net" },
};

describe("editDistance", () => {
  it.each([
    ["gmail.com", "gmail.com", 0],
    ["gmial.com", "gmail.com", 1],
    ["yaho.com", "yahoo.com", 1],
    ["hotmial.com", "hotmail.com", 1],
    ["gnail.con", "gmail.com", 2],
    ["example.com", "gmail.com", 3],
  ])("%s → %s is %i", (a, b, d) => {
    expect(Math.min(editDistance(a, b), 3)).toBe(d);
  });
});

describe("suggestDomain", () => {
  it("suggests a listed misspelling even when the domain works", () => {
    expect(suggestDomain("gmial.com", typos, false)).toEqual({ domain: "gmail.com", kind: "known" });
  });
  it("fixes a provider's misspelled TLD even when the domain works", () => {
    expect(suggestDomain("gmail.co", typos, false)).toEqual({ domain: "gmail.com", kind: "known" });
    expect(suggestDomain("gmx.nte", typos, false)).toEqual({ domain: "gmx.net", kind: "known" });
  });
  it("never touches a provider or another name's TLD", () => {
    expect(suggestDomain("hotmail.co.uk", typos, true)).toBeNull();
    expect(suggestDomain("gmail.com", typos, true)).toBeNull();
    expect(suggestDomain("example.co", typos, true)).toBeNull();
  });
  it("suggests a similar provider only when the domain takes no mail", () => {
    expect(suggestDomain("yaho.com", typos, true)).toEqual({ domain: "yahoo.com", kind: "similar" });
    expect(suggestDomain("yaho.com", typos, false)).toBeNull();
    expect(suggestDomain("outlokk.com", typos, true)).toEqual({ domain: "outlook.com", kind: "similar" });
  });
  it("allows two slips only in long names", () => {
    expect(suggestDomain("hotmial.con", typos, true)).toEqual({ domain: "hotmail.com", kind: "similar" });
    expect(suggestDomain("gnail.con", typos, true)).toBeNull();
  });
});
