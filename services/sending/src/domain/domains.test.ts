import { describe, expect, it } from "vitest";
import { domainRecords, evaluateRecords } from "./domains.js";

describe("domain records", () => {
  const records = domainRecords("example.com", "mr20250101", "AAAAkey+/=", "bounces.example.net");

  it("verifies on the DKIM key alone, whatever the spacing and folding of the record", () => {
    const txt = new Map([["mr20250101._domainkey.example.com", ["v=DKIM1;  k=rsa;\tp=AAAA key+/="]]]);
    const { records: found, dkimOk } = evaluateRecords(records, txt);
    expect(dkimOk).toBe(true);
    expect(found.map((r) => [r.purpose, r.found])).toEqual([["dkim", true], ["spf", false], ["dmarc", false]]);
  });

  it("does not verify on another key or on nothing", () => {
    expect(evaluateRecords(records, new Map([["mr20250101._domainkey.example.com", ["v=DKIM1; p=OTHER"]]])).dkimOk).toBe(false);
    expect(evaluateRecords(records, new Map()).dkimOk).toBe(false);
  });
});
