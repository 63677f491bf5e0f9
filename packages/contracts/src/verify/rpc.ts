import { z } from "zod";
import { defineRpc } from "../route.js";
import { VerifyResult } from "./http.js";

/**
 * The verification other services ask for (a form's address, decisions.md §17): the same checks as
 * POST /v1/verify. An address that does not parse is a VALIDATION_ERROR, as there.
 */
export const VerifyAddressRpcRequest = z.object({ email: z.string().min(1).max(320) });
export type VerifyAddressRpcRequest = z.infer<typeof VerifyAddressRpcRequest>;

/**
 * The answer of /v1/verify plus `certainlyNoMail`: DNS said for certain that the domain takes no
 * mail (it does not exist, or publishes a null MX, or has neither MX nor address), as opposed to a
 * lookup that failed or timed out, which a caller may not want to hold against a person.
 */
export const VerifyAddressResult = VerifyResult.extend({ certainlyNoMail: z.boolean() });
export type VerifyAddressResult = z.infer<typeof VerifyAddressResult>;

export const verifyRpc = {
  address: defineRpc({ service: "verify", operation: "verify.address", request: VerifyAddressRpcRequest, reply: VerifyAddressResult }),
};
