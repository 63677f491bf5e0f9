import type { Batcher, Logger, OutboxRelay, RpcClient, Sql, Metrics } from "@mailroom/kit";
import type { NewEmail } from "../db/emails-repo.js";
import type { WireNames } from "@mailroom/contracts";
import type { EmailsRepo } from "../db/emails-repo.js";
import type { TemplatesRepo } from "../db/templates-repo.js";
import type { DomainsRepo } from "../db/domains-repo.js";
import type { TxtLookup } from "../infra/dns.js";
import type { FeedbackRepo } from "../db/feedback-repo.js";
import type { SettingsRepo } from "../db/settings-repo.js";
import type { SuppressionsRepo } from "../db/suppressions-repo.js";
import type { LinkSigner } from "../domain/links.js";
import type { VerpSigner } from "../domain/verp.js";

/** What the use cases share; built once in app.ts. */
export interface Ctx {
  sql: Sql;
  names: WireNames;
  outbox: OutboxRelay;
  rpc: RpcClient;
  log: Logger;
  emails: EmailsRepo;
  templates: TemplatesRepo;
  domains: DomainsRepo;
  feedback: FeedbackRepo;
  settings: SettingsRepo;
  suppressions: SuppressionsRepo;
  txt: TxtLookup;
  links: LinkSigner;
  /** Signs and reads the VERP envelope senders of RETURN_PATH_DOMAIN. */
  verp: VerpSigner;
  returnPathDomain: string;
  maxAttachmentBytes: number;
  metrics: Metrics;
  /** Group commit of queued emails (queue-email.ts). */
  queue: Batcher<NewEmail[], Set<string>>;
}
