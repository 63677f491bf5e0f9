import { z } from "zod";
import { defineRpc } from "../route.js";
import { VerifyResult } from "./http.js";

/**
 * The verification other services ask for (a form's address, decisions.md §17): the same checks as
 * POST /v1/verify. An address that does not parse is a VALIDATION_ERROR, as there.
 */
export const VerifyAddressRpcRequest = z.object({ email: z.string().min(1).max(320) });
export type VerifyAddressRpcRequest = z.infer<typeof VerifyAddressRpcRequest>;

export const verifyRpc = {
  address: defineRpc({ service: "verify", operation: "verify.address", request: VerifyAddressRpcRequest, reply: VerifyResult }),
};
