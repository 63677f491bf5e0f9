import { describe, expect, it } from "vitest";
import { classifyDsn, emailIdOfReport, fieldBlocks, providerMessageId, readReport } from "./feedback.js";
import { dkimVerdictOf, verdictOf } from "./verdicts.js";

const ID = "0190a5d0-0000-7000-8000-000000000001";
const OTHER = "0190a5d0-0000-7000-8000-000000000002";
const RPD = "bounces.example.net";

const status = (action: string, code: string, envid = ID) => ({
  contentType: "message/delivery-status",
  text: `Reporting-MTA: dns; mta\nOriginal-Envelope-Id: ${envid}\n\nFinal-Recipient: rfc822; a@b.c\nAction: ${action}\nStatus: ${code}\nDiagnostic-Code: smtp; 550 5.1.1\n  user unknown\n`,
});

describe("delivery reports", () => {
  it("reads folded field blocks", () => {
    expect(fieldBlocks("A: 1\nB: 2\n  more\n\nC: 3")).toEqual([{ a: "1", b: "2 more" }, { c: "3" }]);
  });

  it("classifies RFC 3464 actions and status codes", () => {
    expect(classifyDsn("delivered", "2.0.0")).toBe("delivered");
    expect(classifyDsn("relayed", "2.0.0")).toBe("delivered");
    expect(classifyDsn("failed", "5.1.1")).toBe("permanent");
    expect(classifyDsn("failed", "4.4.7")).toBe("transient");
    expect(classifyDsn("delayed", "4.4.1")).toBe("transient");
    expect(classifyDsn("expanded-ish", "2.0.0")).toBeNull();
  });

  it("names the email only when VERP, ENVID and the original Message-ID agree", () => {
    const headers = { contentType: "text/rfc822-headers", text: `Message-ID: <${ID}@${RPD}>\nSubject: x\n` };
    const report = readReport("delivery-status", [status("failed", "5.1.1"), headers])!;
    expect(report).toMatchObject({ type: "dsn", outcome: "permanent", status: "5.1.1", envelopeId: ID, originalMessageId: `<${ID}@${RPD}>` });
    expect(emailIdOfReport(report, `bounces+${ID}@${RPD}`, RPD)).toBe(ID);
    expect(emailIdOfReport(report, `bounces+${OTHER}@${RPD}`, RPD)).toBeNull();
    expect(emailIdOfReport(report, `bounces+${ID}@elsewhere.example`, RPD)).toBe(ID);
    expect(emailIdOfReport(readReport("delivery-status", [status("failed", "5.1.1", "not-ours")])!, null, RPD)).toBeNull();
  });

  it("reads an ARF report and its original envelope sender", () => {
    const report = readReport("feedback-report", [
      { contentType: "message/feedback-report", text: `Feedback-Type: abuse\nVersion: 1\nOriginal-Mail-From: <bounces+${ID}@${RPD}>\n` },
    ])!;
    expect(report).toMatchObject({ type: "arf", feedbackType: "abuse", originalMailFrom: `bounces+${ID}@${RPD}` });
    expect(emailIdOfReport(report, `fbl@${RPD}`, RPD)).toBe(ID);
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
