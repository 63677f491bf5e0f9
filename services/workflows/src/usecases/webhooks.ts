import {
  AppError,
  type CreateWebhookRequest,
  type ListWebhookDeliveriesQuery,
  type UpdateWebhookRequest,
  WEBHOOK_TEST_EVENT,
  type WebhookDelivery,
  type WebhookDeliveryList,
  type WebhookEndpoint,
  type WebhookEndpointWithSecret,
  type WebhookList,
} from "@mailroom/contracts";
import { iso, isoOrNull, isId, newId, parseWebhookUrl, type Sql } from "@mailroom/kit";
import { newSecret, payloadOf, ROTATION_OVERLAP_MS } from "../domain/webhooks.js";
import { type DeliveryRow, type EndpointRow, webhooksRepo } from "../db/webhooks-repo.js";
import { addressRefusal, type ConfigCheckEnv } from "./step-config.js";
import { cursorOf, idOfCursor } from "./id-cursor.js";

export const toEndpoint = (r: EndpointRow): WebhookEndpoint => ({
  id: r.id,
  url: r.url,
  events: r.events,
  description: r.description,
  enabled: r.enabled,
  disabledReason: r.disabled_reason,
  previousSecretExpiresAt: r.previous_secret && r.previous_secret_expires_at && r.previous_secret_expires_at > new Date() ? iso(r.previous_secret_expires_at) : null,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

export const toDelivery = (r: DeliveryRow): WebhookDelivery => ({
  id: r.id,
  eventId: r.event_id,
  eventType: r.event_type,
  status: r.status,
  attempts: r.attempts,
  responseCode: r.response_code,
  responseBody: r.response_body,
  error: r.error,
  payload: JSON.parse(r.body),
  nextAttemptAt: r.status === "PENDING" ? isoOrNull(r.next_attempt_at) : null,
  lastAttemptAt: isoOrNull(r.last_attempt_at),
  createdAt: iso(r.created_at),
});

/** The /webhooks routes (decisions.md §16): endpoints, their secrets, test events and the deliveries log. */
export class Webhooks {
  constructor(
    private readonly sql: Sql,
    private readonly urls: Pick<ConfigCheckEnv, "resolve" | "allowedHosts">,
    /** Tells the dispatcher that a delivery is due now. */
    private readonly due: () => void,
  ) {}

  private async endpoint(projectId: string, id: string): Promise<EndpointRow> {
    const row = isId(id) ? await webhooksRepo.getEndpoint(this.sql, projectId, id) : null;
    if (!row) throw AppError.notFound("Webhook endpoint");
    return row;
  }

  /** The address rule of the WEBHOOK step, checked now; every delivery checks it again. */
  private async checkUrl(raw: string): Promise<string> {
    const url = parseWebhookUrl(raw);
    const refused = typeof url === "string" ? url : await addressRefusal(this.urls, url);
    if (refused) throw AppError.validation("Invalid webhook URL", [{ path: "url", message: refused }]);
    return raw;
  }

  async create(projectId: string, req: CreateWebhookRequest): Promise<WebhookEndpointWithSecret> {
    const url = await this.checkUrl(req.url);
    const secret = newSecret();
    const row = await webhooksRepo.insertEndpoint(this.sql, {
      id: newId(),
      project_id: projectId,
      url,
      events: [...new Set(req.events)],
      description: req.description ?? null,
      enabled: req.enabled ?? true,
      secret,
    });
    return { ...toEndpoint(row), secret };
  }

  async list(projectId: string, limit: number, page: number): Promise<WebhookList> {
    const { rows, total } = await webhooksRepo.listEndpoints(this.sql, projectId, limit, (page - 1) * limit);
    return { webhooks: rows.map(toEndpoint), total, page, pageSize: limit, totalPages: Math.ceil(total / limit) };
  }

  async get(projectId: string, id: string): Promise<WebhookEndpoint> {
    return toEndpoint(await this.endpoint(projectId, id));
  }

  async update(projectId: string, id: string, req: UpdateWebhookRequest): Promise<WebhookEndpoint> {
    await this.endpoint(projectId, id);
    const url = req.url === undefined ? undefined : await this.checkUrl(req.url);
    const row = await webhooksRepo.updateEndpoint(this.sql, projectId, id, {
      url,
      events: req.events ? [...new Set(req.events)] : undefined,
      description: req.description,
      enabled: req.enabled,
    });
    if (!row) throw AppError.notFound("Webhook endpoint");
    if (row.enabled) this.due();
    return toEndpoint(row);
  }

  async delete(projectId: string, id: string): Promise<void> {
    if (!isId(id) || !(await webhooksRepo.deleteEndpoint(this.sql, projectId, id))) throw AppError.notFound("Webhook endpoint");
  }

  async rotateSecret(projectId: string, id: string): Promise<WebhookEndpointWithSecret> {
    await this.endpoint(projectId, id);
    const secret = newSecret();
    const row = await webhooksRepo.rotateSecret(this.sql, projectId, id, secret, ROTATION_OVERLAP_MS);
    if (!row) throw AppError.notFound("Webhook endpoint");
    return { ...toEndpoint(row), secret };
  }

  /** A `webhook.test` event to this endpoint alone, due now: sent once it is enabled. */
  async test(projectId: string, id: string): Promise<WebhookDelivery> {
    const endpoint = await this.endpoint(projectId, id);
    const eventId = newId();
    const occurredAt = new Date().toISOString();
    const body = JSON.stringify(payloadOf({ name: WEBHOOK_TEST_EVENT, occurredAt, contactId: null, email: null, data: { endpointId: endpoint.id } }));
    const deliveryId = newId();
    await webhooksRepo.insertDeliveries(this.sql, [{ id: deliveryId, endpoint_id: endpoint.id, project_id: projectId, event_id: eventId, event_type: WEBHOOK_TEST_EVENT, body }]);
    this.due();
    const row = await webhooksRepo.getDelivery(this.sql, endpoint.id, deliveryId);
    return toDelivery(row!);
  }

  async deliveries(projectId: string, id: string, query: ListWebhookDeliveriesQuery): Promise<WebhookDeliveryList> {
    const endpoint = await this.endpoint(projectId, id);
    const before = query.cursor ? idOfCursor(query.cursor) : undefined;
    const rows = await webhooksRepo.listDeliveries(this.sql, endpoint.id, { status: query.status, before, limit: query.limit + 1 });
    const page = rows.slice(0, query.limit);
    const hasMore = rows.length > query.limit;
    return { data: page.map(toDelivery), cursor: hasMore ? cursorOf(page[page.length - 1]!.id) : null, hasMore };
  }

  async retry(projectId: string, id: string, deliveryId: string): Promise<WebhookDelivery> {
    const endpoint = await this.endpoint(projectId, id);
    const row = isId(deliveryId) ? await webhooksRepo.retryNow(this.sql, endpoint.id, deliveryId) : null;
    if (!row) throw AppError.notFound("Webhook delivery");
    this.due();
    return toDelivery(row);
  }
}
