import { describe, expect, it } from "vitest";
import { ApiError } from "../api/errors";
import { adviceFor, fieldPaths, splitDetails, waitText } from "./errors";

describe("ApiError from an answer", () => {
  it("keeps the Error object's value, message and details", () => {
    const err = ApiError.fromResponse(400, {
      code: 400,
      error: "VALIDATION_ERROR",
      message: "Invalid body",
      time: 1,
      details: [{ path: "email", message: "Invalid email" }],
    });
    expect(err).toMatchObject({ status: 400, error: "VALIDATION_ERROR", message: "Invalid body", details: [{ path: "email", message: "Invalid email" }] });
  });

  it("turns what is not an Error object (a proxy's HTML, nothing) into one by status", () => {
    expect(ApiError.fromResponse(502, "<html>Bad gateway</html>").error).toBe("SERVICE_UNAVAILABLE");
    expect(ApiError.fromResponse(401, undefined).error).toBe("UNAUTHORIZED");
    expect(ApiError.fromResponse(500, { error: "NOT_A_CODE", message: "x" }).error).toBe("INTERNAL_ERROR");
    expect(ApiError.fromResponse(418, null).message).toContain("418");
  });

  it("reads Retry-After only when it is a number of seconds", () => {
    const body = { code: 429, error: "RATE_LIMITED", message: "Too many", time: 1 };
    expect(ApiError.fromResponse(429, body, "90").retryAfterSeconds).toBe(90);
    expect(ApiError.fromResponse(429, body, "soon").retryAfterSeconds).toBeUndefined();
    expect(ApiError.fromResponse(429, body, "-3").retryAfterSeconds).toBeUndefined();
    expect(ApiError.fromResponse(429, body, null).retryAfterSeconds).toBeUndefined();
  });
});

describe("advice for a failed call", () => {
  it("tells how to edit a workflow with active executions", () => {
    const advice = adviceFor(new ApiError(409, "WORKFLOW_LOCKED", "Workflow has 3 active executions"));
    expect(advice.message).toBe("Workflow has 3 active executions. Cancel the active executions or wait for them to finish, then edit.");
  });

  it("sends an unverified sender's domain to the Domains page", () => {
    const advice = adviceFor(new ApiError(403, "DOMAIN_NOT_VERIFIED", "Domain example.com is not verified"));
    expect(advice.message).toContain("Verify the sender's domain on the Domains page");
    expect(advice.link).toEqual({ to: "/domains", label: "Open Domains" });
  });

  it("says a FORBIDDEN is the role's doing", () => {
    expect(adviceFor(new ApiError(403, "FORBIDDEN", "Requires editor")).title).toBe("Your role does not allow this");
  });

  it("says how long to wait after too many attempts", () => {
    const err = new ApiError(429, "RATE_LIMITED", "Too many failed sign-ins");
    expect(adviceFor(err).message).toBe("Too many attempts, try again in a moment.");
    err.retryAfterSeconds = 600;
    expect(adviceFor(err).message).toBe("Too many attempts, try again in 10 minutes.");
  });

  it("falls back to a plain message for what is not an ApiError", () => {
    expect(adviceFor(new TypeError("boom"))).toEqual({ title: "Something went wrong", message: "boom" });
    expect(adviceFor("a string").message).toBe("An unexpected error occurred");
  });

  it("words waits in seconds or rounded-up minutes", () => {
    expect(waitText(1)).toBe("1 second");
    expect(waitText(59.2)).toBe("60 seconds");
    expect(waitText(60)).toBe("1 minute");
    expect(waitText(61)).toBe("2 minutes");
    expect(waitText(Number.NaN)).toBe("a moment");
    expect(waitText(0)).toBe("a moment");
  });
});

describe("details onto form fields", () => {
  it("lists every path of a form's values in the details notation", () => {
    expect(fieldPaths({ email: "", data: { note: "" }, steps: [{ subject: "" }] })).toEqual([
      "email",
      "data",
      "data.note",
      "steps",
      "steps.0",
      "steps.0.subject",
    ]);
    expect(fieldPaths(null)).toEqual([]);
  });

  it("puts each message on its field, or the nearest enclosing one, and keeps the rest", () => {
    const fields = fieldPaths({ email: "", data: {}, steps: [{ subject: "" }] });
    const { fieldErrors, rest } = splitDetails(
      [
        { path: "email", message: "Invalid email" },
        { path: "email", message: "Already taken" },
        { path: "data.note", message: "Too long" },
        { path: "steps.0.subject", message: "Required" },
        { path: "token", message: "Expired" },
        { path: "", message: "Body is invalid" },
      ],
      fields,
    );
    expect(fieldErrors).toEqual({ email: "Invalid email; Already taken", data: "Too long", "steps.0.subject": "Required" });
    expect(rest).toEqual([
      { path: "token", message: "Expired" },
      { path: "", message: "Body is invalid" },
    ]);
  });

  it("does not match a field by a prefix of its name", () => {
    const { fieldErrors, rest } = splitDetails([{ path: "emailAddress", message: "x" }], ["email"]);
    expect(fieldErrors).toEqual({});
    expect(rest).toHaveLength(1);
  });
});
