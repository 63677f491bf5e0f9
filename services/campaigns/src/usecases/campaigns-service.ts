import {
  AppError,
  assertSourceSize,
  contactsRpc,
  sendingRpc,
  type Campaign,
  type CampaignLinks,
  type CampaignList,
  type CreateCampaignRequest,
  type ListCampaignsQuery,
  MESSAGE_CHECKS_TIMEOUT_MS,
  type PreSendChecks,
  type UpdateCampaignRequest,
} from "@mailroom/contracts";
import { isId, newId, type RpcClient, type Sql } from "@mailroom/kit";
import { campaignsRepo, toCampaign, type CampaignContent, type CampaignRow } from "../db/campaigns-repo.js";
import { abRepo } from "../db/ab-repo.js";
import { mergeAbTest } from "../domain/ab-test.js";
import { assertEditable, assertSendable, mergeAudience, mergeDeliverAt, scheduleTime } from "../domain/campaign.js";
import { checksRequest, testEmail } from "../domain/emails.js";
import type { AudienceSource } from "./audience.js";

const notFound = () => AppError.notFound("Campaign");
/** How long GET /campaigns/{id} waits for the sending service's throttled figures. */
const THROTTLED_TIMEOUT_MS = 1000;

/** The campaign API's use cases. Every state change is a conditional update; a lost race is a 409. */
export class CampaignsService {
  constructor(
    private readonly sql: Sql,
    private readonly rpc: RpcClient,
    private readonly audience: AudienceSource,
    /** A campaign has just become SENDING: start its fan-out now rather than at the next poll. */
    private readonly onSending: () => void,
  ) {}

  async create(projectId: string, req: CreateCampaignRequest): Promise<Campaign> {
    assertSourceSize({ body: req.body, ...variantBodies(req) });
    const content = contentOf(null, req);
    await this.checkContent(projectId, content);
    return this.campaign(await campaignsRepo.insert(this.sql, newId(), projectId, content));
  }

  /** A SENDING campaign's stats also say what a mailbox provider's limit holds back right now (decisions.md §18). */
  async get(projectId: string, id: string): Promise<Campaign> {
    const c = await this.campaign(await this.row(projectId, id));
    if (c.status !== "SENDING") return c;
    const throttled = await this.throttled(projectId, id);
    return throttled ? { ...c, stats: { ...c.stats, throttled } } : c;
  }

  async list(projectId: string, q: ListCampaignsQuery): Promise<CampaignList> {
    const page = q.cursor ?? q.page ?? 1;
    const { rows, total } = await campaignsRepo.list(this.sql, projectId, { status: q.status, limit: q.limit, offset: (page - 1) * q.limit });
    const variants = await abRepo.variantStats(this.sql, rows.filter((r) => r.variants).map((r) => r.id));
    return { campaigns: rows.map((r) => toCampaign(r, variants.get(r.id))), total, page, pageSize: q.limit, totalPages: Math.ceil(total / q.limit) };
  }

  async update(projectId: string, id: string, req: UpdateCampaignRequest): Promise<Campaign> {
    const stored = await this.row(projectId, id);
    assertEditable(stored.status);
    assertSourceSize({ body: req.body, ...variantBodies(req) });
    const content = contentOf(stored, req);
    await this.checkContent(projectId, content, stored);
    const row = await campaignsRepo.updateDraft(this.sql, projectId, id, content);
    if (!row) throw await this.stateError(projectId, id);
    return this.campaign(row);
  }

  async remove(projectId: string, id: string): Promise<void> {
    const stored = await this.row(projectId, id);
    assertEditable(stored.status);
    if (!(await campaignsRepo.deleteDraft(this.sql, projectId, id))) throw await this.stateError(projectId, id);
  }

  /**
   * `idempotencyId`: the gateway's claim on the request's Idempotency-Key, the same on every attempt.
   * A retry after a lost answer (or a twin beside the first attempt) finds it on the campaign the
   * first attempt started and answers with that campaign instead of refusing a campaign already SENDING.
   */
  async send(projectId: string, id: string, scheduledFor: string | null | undefined, idempotencyId?: string): Promise<Campaign> {
    const sentBy = (row: CampaignRow) => idempotencyId !== undefined && row.send_request_id === idempotencyId;
    const stored = await this.row(projectId, id);
    if (sentBy(stored)) return this.campaign(stored);
    assertSendable(stored.status);
    const at = scheduleTime(scheduledFor);
    // The sender and the audience may have changed since the campaign was written.
    await this.checkContent(projectId, contentOf(stored, {}));
    const row = await campaignsRepo.startOrSchedule(this.sql, projectId, id, at, idempotencyId ?? null);
    if (!row) {
      const now = await this.row(projectId, id);
      if (sentBy(now)) return this.campaign(now);
      throw await this.stateError(projectId, id);
    }
    if (row.status === "SENDING") this.onSending();
    return this.campaign(row);
  }

  async cancel(projectId: string, id: string): Promise<Campaign> {
    const stored = await this.row(projectId, id);
    if (stored.status !== "SCHEDULED") throw new AppError("INVALID_STATE", `Only a SCHEDULED campaign can be cancelled; this one is ${stored.status}`);
    const row = await campaignsRepo.cancelScheduled(this.sql, projectId, id);
    if (!row) throw await this.stateError(projectId, id);
    return this.campaign(row);
  }

  /**
   * One copy to `email`, rendered with that contact's data when the address is a contact here, of
   * one A/B variant when `variant` names one.
   */
  async test(projectId: string, id: string, email: string, variant?: number): Promise<{ emailId: string }> {
    const c = await this.row(projectId, id);
    if (variant !== undefined && variant >= (c.variants?.length ?? 0)) {
      throw AppError.validation("Request validation failed", [{ path: "variant", message: "the campaign has no such variant" }]);
    }
    const { contact } = await this.rpc.call(contactsRpc.get, { projectId, email });
    const recipient = contact ? { contactId: contact.id, email: contact.email, data: contact.data } : null;
    return this.rpc.call(sendingRpc.enqueue, testEmail(c, email, recipient, newId(), variant ?? null));
  }

  /** Clicks per link, from the sending service's counters; a campaign of any status, the project's only. */
  async links(projectId: string, id: string): Promise<CampaignLinks> {
    await this.row(projectId, id);
    return this.rpc.call(sendingRpc.campaignLinks, { projectId, campaignId: id, limit: 200 });
  }

  /**
   * Pre-send checks (decisions.md §18) of the campaign as it is stored, in any state (a SENT one's
   * tell why it went to spam). The sending service knows the sender's domain, the headers it adds and
   * how a body renders, so it does the checking; here the campaign is found in the project (404).
   */
  async checks(projectId: string, id: string): Promise<PreSendChecks> {
    const c = await this.row(projectId, id);
    const { checks } = await this.rpc.call(sendingRpc.messageChecks, checksRequest(c), { timeoutMs: MESSAGE_CHECKS_TIMEOUT_MS + 1000 });
    return checks;
  }

  /**
   * The campaign's recipients held per provider, from the sending service, which owns the emails.
   * Asked with a short bound and left out when it does not answer: the campaign's page must not wait
   * on, or fail for, a figure that only explains a wait.
   */
  private async throttled(projectId: string, id: string): Promise<Record<string, number> | null> {
    try {
      const { throttled } = await this.rpc.call(sendingRpc.campaignThrottled, { projectId, campaignId: id }, { timeoutMs: THROTTLED_TIMEOUT_MS });
      return Object.keys(throttled).length > 0 ? throttled : null;
    } catch {
      return null;
    }
  }

  /** The API record: the row, with its A/B sample's stats per variant when it has a test. */
  private async campaign(row: CampaignRow): Promise<Campaign> {
    const variants = row.variants ? (await abRepo.variantStats(this.sql, [row.id])).get(row.id) : undefined;
    return toCampaign(row, variants);
  }

  private async row(projectId: string, id: string): Promise<CampaignRow> {
    if (!isId(id)) throw notFound();
    const row = await campaignsRepo.get(this.sql, projectId, id);
    if (!row) throw notFound();
    return row;
  }

  /** After a conditional update found nothing: the campaign was deleted or moved on meanwhile. */
  private async stateError(projectId: string, id: string): Promise<AppError> {
    const now = await campaignsRepo.get(this.sql, projectId, id);
    return now ? new AppError("INVALID_STATE", `The campaign is now ${now.status}`) : notFound();
  }

  /** The sender's domain must be verified in this project (403) and the audience readable (400). */
  private async checkContent(projectId: string, c: CampaignContent, stored?: CampaignRow): Promise<void> {
    if (!stored || stored.from_email !== c.from) {
      const { verified } = await this.rpc.call(sendingRpc.domainVerified, { projectId, email: c.from });
      if (!verified) throw new AppError("DOMAIN_NOT_VERIFIED", `The domain of ${c.from} is not verified in this project`);
    }
    const a = c.audience;
    if (
      !stored ||
      stored.audience_type !== a.type ||
      stored.segment_id !== a.segmentId ||
      stored.topic_id !== a.topicId ||
      JSON.stringify(stored.audience_filter) !== JSON.stringify(a.filter)
    ) {
      await this.audience.validate(projectId, a);
    }
  }
}

/** The stored content with an edit applied (a create is an edit of nothing). */
function contentOf(stored: CampaignRow | null, edit: UpdateCampaignRequest): CampaignContent {
  const pick = <T>(given: T | undefined, current: T) => (given !== undefined ? given : current);
  const ab = mergeAbTest(stored ? { variants: stored.variants, abTest: stored.ab_test } : null, edit);
  return {
    name: pick(edit.name, stored?.name ?? ""),
    description: pick(edit.description, stored?.description ?? null),
    subject: pick(edit.subject, stored?.subject ?? ""),
    body: pick(edit.body, stored?.body ?? ""),
    from: pick(edit.from, stored?.from_email ?? ""),
    fromName: pick(edit.fromName, stored?.from_name ?? null),
    replyTo: pick(edit.replyTo, stored?.reply_to ?? null),
    audience: mergeAudience(
      stored ? { type: stored.audience_type, segmentId: stored.segment_id, filter: stored.audience_filter, topicId: stored.topic_id } : null,
      edit,
    ),
    ab,
    deliverAt: mergeDeliverAt(stored?.deliver_at ?? null, edit, ab.abTest),
  };
}

/** Each variant's own body, under the path that names it (413 details). */
const variantBodies = (req: UpdateCampaignRequest) =>
  Object.fromEntries((req.variants ?? []).map((v, i) => [`variants.${i}.body`, v.body]));
