import { createHmac, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { AppError } from "@mailroom/contracts";
import { isId } from "@mailroom/kit";

const Payload = z.object({ id: z.string().refine(isId) });

/**
 * Opaque keyset cursors: base64url(`{"id"}`) plus an HMAC over the payload and its scope (project,
 * list, contact). A forged, edited or foreign cursor fails the signature and is a 400, so a cursor
 * can never be used to read another project's rows or to make the query fail.
 */
export class CursorCodec {
  constructor(private readonly secret: string) {}

  private sign(scope: string, payload: string): string {
    return createHmac("sha256", this.secret).update(`${scope}\n${payload}`).digest("base64url").slice(0, 22);
  }

  encode(scope: string, id: string): string {
    const payload = Buffer.from(JSON.stringify({ id })).toString("base64url");
    return `${payload}.${this.sign(scope, payload)}`;
  }

  decode(scope: string, cursor: string): string {
    const [payload, mac, extra] = cursor.split(".");
    if (payload && mac && extra === undefined) {
      const expected = Buffer.from(this.sign(scope, payload));
      const given = Buffer.from(mac);
      if (given.length === expected.length && timingSafeEqual(given, expected)) {
        try {
          return Payload.parse(JSON.parse(Buffer.from(payload, "base64url").toString("utf8"))).id;
        } catch {
          // falls through: signed by us but unreadable cannot happen unless the secret leaked
        }
      }
    }
    throw AppError.validation("Invalid cursor", [{ path: "query.cursor", message: "not a cursor of this list" }], "invalid_cursor");
  }
}
