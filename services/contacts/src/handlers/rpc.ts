import { AppError, contactsRpc } from "@mailroom/contracts";
import { isId, type RpcServer } from "@mailroom/kit";
import { toContact } from "../db/rows.js";
import type { ContactsService } from "../usecases/contacts-service.js";
import type { ContactQueries } from "../usecases/queries.js";
import type { SegmentQueries } from "../usecases/segment-queries.js";
import type { TopicsService } from "../usecases/topics-service.js";

/** Internal callers name the project themselves: one that cannot exist is a bad request, not a 500. */
function project(projectId: string): string {
  if (!isId(projectId)) throw AppError.validation("projectId must be a project id", [{ path: "projectId", message: "not an id" }]);
  return projectId;
}

/** The RPCs other services call (packages/contracts contacts/rpc.ts). */
export function registerRpcs(server: RpcServer, service: ContactsService, queries: ContactQueries, segments: SegmentQueries, topics: TopicsService): void {
  server
    .rpc(contactsRpc.topics, async (req) => ({ topics: await topics.list(project(req.projectId)) }))
    .rpc(contactsRpc.setTopics, async (req) => {
      const r = await service.setTopics(project(req.projectId), req.contactId, req.topics, req.via);
      if (!r) throw AppError.notFound("Contact");
      return { contact: toContact(r.row), changed: r.changed };
    })
    .rpc(contactsRpc.upsert, async (req) => {
      const r = await service.upsert(project(req.projectId), req, req.entryPoint);
      return { contact: toContact(r.row), isNew: r.isNew, changed: r.isNew || r.changed.length > 0, templateData: r.outcome.templateData };
    })
    .rpc(contactsRpc.upsertMany, async (req) => {
      const { projectId, emails, entryPoint, ...input } = req;
      const results = await service.upsertMany(project(projectId), emails, input, entryPoint);
      return { results: results.map((r) => ({ contact: toContact(r.row), isNew: r.isNew, changed: r.isNew || r.changed.length > 0, templateData: r.outcome.templateData })) };
    })
    .rpc(contactsRpc.page, async (req) => segments.page({ ...req, projectId: project(req.projectId) }))
    .rpc(contactsRpc.validateFilter, async (req) => segments.validate({ ...req, projectId: project(req.projectId) }))
    .rpc(contactsRpc.get, async (req) => {
      const projectId = project(req.projectId);
      const contact = req.id !== undefined ? await queries.get(projectId, req.id) : await queries.getByEmail(projectId, req.email!);
      return { contact };
    })
    .rpc(contactsRpc.setSubscription, async (req) => {
      const r = await service.setSubscription(project(req.projectId), req.contactId, req.subscribed, req.reason, req.via);
      if (!r) throw AppError.notFound("Contact");
      return { contact: toContact(r.row), changed: r.changed };
    });
}
