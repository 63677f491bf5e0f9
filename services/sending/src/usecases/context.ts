import type { Metrics, OutboxRelay, Sql } from "@mailroom/kit";
import type { WireNames } from "@mailroom/contracts";
import type { LinkSigner } from "../domain/links.js";
import type { VerpSigner } from "../domain/verp.js";

/**
 * What the delivery workers (delivery/) and failEmail take as one object, built once in app.ts. The
 * use cases take their own dependencies instead (classes built in app.ts); these two are to follow.
 */
export interface Ctx {
  sql: Sql;
  names: WireNames;
  outbox: OutboxRelay;
  metrics: Metrics;
  links: LinkSigner;
  /** Signs and reads the VERP envelope senders of RETURN_PATH_DOMAIN. */
  verp: VerpSigner;
  /** SYSTEM_FROM: the sender of Mailroom's own mail (invitations), sent unsigned when no project verified its domain. */
  systemFrom: string;
}
