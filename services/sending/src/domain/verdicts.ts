/**
 * email.received verdicts use Amazon SES's values (PASS, FAIL, GRAY, PROCESSING_FAILED), which is
 * what Plunk passed on: mailauth's pass → PASS; fail/softfail → FAIL; neutral, none, policy,
 * skipped → GRAY; temperror/permerror (or no answer at all) → PROCESSING_FAILED.
 */
export type Verdict = "PASS" | "FAIL" | "GRAY" | "PROCESSING_FAILED";

export function verdictOf(result: string | undefined | null): Verdict {
  switch ((result ?? "").toLowerCase()) {
    case "pass":
      return "PASS";
    case "fail":
    case "softfail":
      return "FAIL";
    case "neutral":
    case "none":
    case "policy":
    case "skipped":
      return "GRAY";
    default:
      return "PROCESSING_FAILED";
  }
}

/** Several DKIM signatures: one that passes is enough; otherwise a failing one says FAIL. */
export function dkimVerdictOf(results: Array<string | undefined>): Verdict {
  const verdicts = results.map(verdictOf);
  if (verdicts.includes("PASS")) return "PASS";
  if (verdicts.includes("FAIL")) return "FAIL";
  if (verdicts.includes("PROCESSING_FAILED")) return "PROCESSING_FAILED";
  return "GRAY";
}
