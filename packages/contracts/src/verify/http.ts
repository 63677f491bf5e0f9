import { z } from "zod";
import { defineRoute } from "../route.js";
import { SuccessEnvelope } from "../common.js";

/** The address is parsed by the verify service itself (a real RFC 5321/6531 parser), so the gateway
 * only bounds the string; an address that does not parse is 400 VALIDATION_ERROR from the service. */
export const VerifyRequest = z.object({ email: z.string().min(1).max(320) });
export type VerifyRequest = z.infer<typeof VerifyRequest>;

export const VerifyResult = z.object({
  email: z.string(),
  valid: z.boolean(),
  isDisposable: z.boolean(),
  isAlias: z.boolean(),
  isTypo: z.boolean(),
  isPlusAddressed: z.boolean(),
  isPersonalEmail: z.boolean(),
  domainExists: z.boolean(),
  hasWebsite: z.boolean(),
  hasMxRecords: z.boolean(),
  suggestedEmail: z.string().nullable().optional(),
  reasons: z.array(z.string()),
});
export type VerifyResult = z.infer<typeof VerifyResult>;

export const VerifyResponse = SuccessEnvelope(VerifyResult);

export const verifyRoutes = [
  defineRoute({
    method: "POST",
    path: "/v1/verify",
    service: "verify",
    operation: "verify.verify",
    auth: "secret",
    tag: "Verification",
    summary: "Verify an email address",
    body: VerifyRequest,
    response: VerifyResponse,
    status: 200,
  }),
];
