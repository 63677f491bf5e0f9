import type { Batcher, Logger, OutboxRelay, RpcClient, Sql, Metrics } from "@mailroom/kit";
import type { NewEmail } from "../db/emails-repo.js";
import type { WireNames } from "@mailroom/contracts";
import type { TxtLookup } from "../infra/dns.js";
import type { LinkSigner } from "../domain/links.js";
import type { VerpSigner } from "../domain/verp.js";
import type { ProjectNames, ProjectSettings, SuppressionChecks, VerifiedDomains } from "./lookups.js";

/** What the use cases share; built once in app.ts. The repositories (db/) take `sql` per call. */
export interface Ctx {
  sql: Sql;
  names: WireNames;
  outbox: OutboxRelay;
  rpc: RpcClient;
  log: Logger;
  verifiedDomains: VerifiedDomains;
  settings: ProjectSettings;
  /** The gateway's project names, for Mailroom's own confirmation text. */
  projectNames: ProjectNames;
  suppressionChecks: SuppressionChecks;
  txt: TxtLookup;
  links: LinkSigner;
  /** Signs and reads the VERP envelope senders of RETURN_PATH_DOMAIN. */
  verp: VerpSigner;
  returnPathDomain: string;
  /** SYSTEM_FROM: the sender of Mailroom's own mail (invitations, fixed-text confirmations), sent unsigned when no project verified its domain. */
  systemFrom: string;
  maxAttachmentBytes: number;
  metrics: Metrics;
  /** Group commit of queued emails (queue-email.ts). */
  queue: Batcher<NewEmail[], Set<string>>;
}
