import { AppError, VerifyRequest, zodDetails, type HttpReply, type HttpRequest } from "@mailroom/contracts";
import type { Verifier } from "../domain/verifier.js";

/** POST /v1/verify (operation verify.verify): parse → verify → reply. */
export const verifyHandler =
  (verifier: Verifier) =>
  async (req: HttpRequest): Promise<HttpReply> => {
    const parsed = VerifyRequest.safeParse(req.body);
    if (!parsed.success) throw AppError.validation("invalid request body", zodDetails(parsed.error));
    const data = await verifier.verify(parsed.data.email);
    return { status: 200, body: { success: true, data } };
  };
