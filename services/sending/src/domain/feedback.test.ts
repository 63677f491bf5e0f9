import { describe, expect, it } from "vitest";
import { bounceDiagnostic, classifyDsn, emailIdOfReport, fieldBlocks, providerMessageId, readReport } from "./feedback.js";
import { dkimVerdictOf, verdictOf } from "./verdicts.js";
import { VerpSigner } from "./verp.js";

const ID = "0190a5d0-0000-7000-8000-000000000001";
const OTHER = "0190a5d0-0000-7000-8000-000000000002";
const RPD = "bounces.example.net";
const verp = new VerpSigner("s".repeat(32), RPD);

const status = (action: string, code: string, envid = ID) => ({
  contentType: "message/delivery-status",
  text: `Reporting-MTA: dns; mta\nOriginal-Envelope-Id: ${envid}\n\nFinal-Recipient: rfc822; a@b.c\nAction: ${action}\nStatus: ${code}\nDiagnostic-Code: smtp; 550 5.1.1\n  user unknown\n`,
});

describe("delivery reports", () => {
  it("reads folded field blocks", () => {
    expect(fieldBlocks("A: 1\nB: 2\n  more\n\nC: 3")).toEqual([{ a: "1", b: "2 more" }, { c: "3" }]);
  });

  it("keeps a bounce's diagnostic on one line, without control characters, at most 500 characters", () => {
    expect(bounceDiagnostic("smtp; 550 5.1.1\r\n\tuser\u0000 unknown")).toBe("smtp; 550 5.1.1 user unknown");
    expect(bounceDiagnostic("  \n ")).toBeNull();
    expect(bounceDiagnostic(undefined)).toBeNull();
    expect(bounceDiagnostic("x".repeat(10_000))).toHaveLength(500);
  });

  it("classifies RFC 3464 actions and status codes", () => {
    expect(classifyDsn("delivered", "2.0.0")).toBe("delivered");
    expect(classifyDsn("relayed", "2.0.0")).toBe("delivered");
    expect(classifyDsn("failed", "5.1.1")).toBe("permanent");
    expect(classifyDsn("failed", "4.4.7")).toBe("transient");
    expect(classifyDsn("delayed", "4.4.1")).toBe("transient");
    expect(classifyDsn("expanded-ish", "2.0.0")).toBeNull();
  });

  it("names the email only when a signed VERP address names it and ENVID and the original Message-ID agree", () => {
    const headers = { contentType: "text/rfc822-headers", text: `Message-ID: <${ID}@${RPD}>\nSubject: x\n` };
    const report = readReport("delivery-status", [status("failed", "5.1.1"), headers])!;
    expect(report).toMatchObject({
      type: "dsn", outcome: "permanent", status: "5.1.1", diagnostic: "smtp; 550 5.1.1 user unknown", envelopeId: ID, originalMessageId: `<${ID}@${RPD}>`,
    });
    expect(emailIdOfReport(report, verp.address(ID), verp)).toEqual({ emailId: ID });
    // the tag is checked whatever the case an MTA gave the local part
    expect(emailIdOfReport(report, verp.address(ID).toUpperCase(), verp)).toEqual({ emailId: ID });
    expect(emailIdOfReport(report, verp.address(OTHER), verp)).toEqual({ rejected: "inconsistent" });
    expect(emailIdOfReport(readReport("delivery-status", [status("failed", "5.1.1", "not-ours")])!, verp.address(ID), verp)).toEqual({ emailId: ID });
  });

  it("changes nothing for a report whose VERP tag is missing or wrong, whatever else it names", () => {
    const report = readReport("delivery-status", [status("failed", "5.1.1"), { contentType: "text/rfc822-headers", text: `Message-ID: <${ID}@${RPD}>\n` }])!;
    expect(emailIdOfReport(report, `bounces+${ID}@${RPD}`, verp)).toEqual({ rejected: "unsigned" });
    expect(emailIdOfReport(report, `bounces+${ID}.${"0".repeat(16)}@${RPD}`, verp)).toEqual({ rejected: "bad_tag" });
    expect(emailIdOfReport(report, `bounces+${ID}.${verp.tag(OTHER)}@${RPD}`, verp)).toEqual({ rejected: "bad_tag" });
    expect(emailIdOfReport(report, `bounces+${ID}.${verp.tag(ID).slice(0, 15)}@${RPD}`, verp)).toEqual({ rejected: "bad_tag" });
    // another secret's tag
    expect(emailIdOfReport(report, new VerpSigner("t".repeat(32), RPD).address(ID), verp)).toEqual({ rejected: "bad_tag" });
    // ENVID and the Message-ID alone are public: they never suffice
    expect(emailIdOfReport(report, `postmaster@${RPD}`, verp)).toEqual({ rejected: "unsigned" });
    // a signed address of another domain is not ours
    expect(emailIdOfReport(report, new VerpSigner("s".repeat(32), "elsewhere.example").address(ID), verp)).toEqual({ rejected: "unsigned" });
  });

  it("reads an ARF report and names the email by its signed original envelope sender or Return-Path only", () => {
    const arf = (mailFrom: string | null, returnPath: string | null) =>
      readReport("feedback-report", [
        { contentType: "message/feedback-report", text: `Feedback-Type: abuse\nVersion: 1\n${mailFrom ? `Original-Mail-From: <${mailFrom}>\n` : ""}` },
        { contentType: "text/rfc822-headers", text: `${returnPath ? `Return-Path: <${returnPath}>\n` : ""}Message-ID: <${ID}@${RPD}>\n` },
      ])!;
    const report = arf(verp.address(ID), null);
    expect(report).toMatchObject({ type: "arf", feedbackType: "abuse", originalMailFrom: verp.address(ID) });
    expect(emailIdOfReport(report, `fbl@${RPD}`, verp)).toEqual({ emailId: ID });
    expect(emailIdOfReport(arf(null, verp.address(ID)), `fbl@${RPD}`, verp)).toEqual({ emailId: ID });
    // the returned Message-ID alone names the email, but anyone can write it
    expect(emailIdOfReport(arf(null, null), `fbl@${RPD}`, verp)).toEqual({ rejected: "unsigned" });
    expect(emailIdOfReport(arf(`bounces+${ID}@${RPD}`, null), `fbl@${RPD}`, verp)).toEqual({ rejected: "unsigned" });
    expect(emailIdOfReport(arf(`bounces+${ID}.${"f".repeat(16)}@${RPD}`, null), `fbl@${RPD}`, verp)).toEqual({ rejected: "bad_tag" });
    // one genuine address does not carry a forged one
    expect(emailIdOfReport(arf(verp.address(ID), `bounces+${ID}.${"f".repeat(16)}@${RPD}`), `fbl@${RPD}`, verp)).toEqual({ rejected: "bad_tag" });
    expect(emailIdOfReport(arf(verp.address(OTHER), null), `fbl@${RPD}`, verp)).toEqual({ rejected: "inconsistent" });
  });

  it("ignores other reports and parts", () => {
    expect(readReport("disposition-notification", [])).toBeNull();
    expect(readReport("delivery-status", [{ contentType: "text/plain", text: "Action: failed" }])).toBeNull();
  });

  it("keeps the SES id of a 250 answer, nothing else", () => {
    expect(providerMessageId("250 Ok 0100018c1d2e3f4a-1234abcd-000000")).toBe("0100018c1d2e3f4a-1234abcd-000000");
    expect(providerMessageId("250 OK: message queued")).toBeNull();
    expect(providerMessageId("250 2.0.0 Ok: queued as 4F3A1C")).toBeNull();
  });
});

describe("verdicts", () => {
  it("maps mailauth results to SES values", () => {
    expect(["pass", "fail", "softfail", "neutral", "none", "temperror", "permerror", undefined].map(verdictOf)).toEqual([
      "PASS", "FAIL", "FAIL", "GRAY", "GRAY", "PROCESSING_FAILED", "PROCESSING_FAILED", "PROCESSING_FAILED",
    ]);
    expect(dkimVerdictOf(["fail", "pass"])).toBe("PASS");
    expect(dkimVerdictOf(["none"])).toBe("GRAY");
    expect(dkimVerdictOf([])).toBe("GRAY");
  });
});
