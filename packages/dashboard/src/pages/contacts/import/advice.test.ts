import { describe, expect, it } from "vitest";
import { ApiError } from "../../../api/errors";
import { uploadAdvice } from "./advice";

/** An Error object as the gateway answers it. */
const body = (code: number, error: string, message: string, extra: object = {}) => ({ code, error, message, time: 0, ...extra });

describe("uploadAdvice", () => {
  it("says how to get past a 413 and a project's pending imports", () => {
    expect(uploadAdvice(ApiError.fromResponse(413, body(413, "PAYLOAD_TOO_LARGE", "Request body is larger than the limit (1048576 bytes)")))).toEqual({
      title: "The file is too large",
      message: "Request body is larger than the limit (1048576 bytes). Split the file into smaller ones and import each.",
    });
    const pending = ApiError.fromResponse(429, body(429, "RATE_LIMITED", "The project already has 3 imports running or waiting; try again when one has ended", { reason: "imports_pending" }));
    expect(uploadAdvice(pending)).toEqual({
      title: "Other imports are still running",
      message: "The project already has 3 imports running or waiting; try again when one has ended.",
    });
  });

  it("keeps the general wording for the rest (a 400, a user's rate limit)", () => {
    expect(uploadAdvice(ApiError.fromResponse(400, body(400, "VALIDATION_ERROR", "Content type not accepted")))).toEqual({
      title: "Check what you entered",
      message: "Content type not accepted",
    });
    expect(uploadAdvice(ApiError.fromResponse(429, body(429, "RATE_LIMITED", "Too many"), "30")).message).toBe("Too many attempts, try again in 30 seconds.");
  });
});
