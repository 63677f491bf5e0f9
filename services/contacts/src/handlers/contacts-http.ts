import { AppError, contactsRoutes, type HttpReply, routeOf } from "@mailroom/contracts";
import { idempotencyIdOf, type RpcServer } from "@mailroom/kit";
import { toContact } from "../db/rows.js";
import type { ContactsService } from "../usecases/contacts-service.js";
import type { ContactQueries } from "../usecases/queries.js";

const ok = (body: unknown, status = 200): HttpReply => ({ status, body });
const contactNotFound = () => AppError.notFound("Contact");

/** The /contacts and /events routes: parse (done by the kit against the contract) → use case → reply. */
export function registerContactRoutes(server: RpcServer, service: ContactsService, queries: ContactQueries): void {
  server
    .route(routeOf(contactsRoutes, "contacts.list"), async ({ projectId, query }) => ok(await queries.list(projectId, query)))
    .route(routeOf(contactsRoutes, "contacts.create"), async ({ projectId, body, meta }) => {
      // With an Idempotency-Key the gateway's claim id (the same on every attempt) is the id a new
      // contact gets: a retry after a lost answer finds the contact its first attempt created and
      // answers 201, as that attempt did.
      const id = idempotencyIdOf(meta);
      const r = await service.upsert(projectId, id ? { ...body, id } : body, "api");
      const isNew = r.isNew || r.row.id === id;
      return ok({ ...toContact(r.row), _meta: { isNew, isUpdate: !isNew } }, isNew ? 201 : 200);
    })
    .route(routeOf(contactsRoutes, "contacts.read"), async ({ projectId, params }) => {
      const contact = await queries.get(projectId, params.id);
      if (!contact) throw contactNotFound();
      return ok(contact);
    })
    .route(routeOf(contactsRoutes, "contacts.update"), async ({ projectId, params, body }) => {
      const r = await service.update(projectId, params.id, body);
      if (!r) throw contactNotFound();
      return ok(toContact(r.row));
    })
    .route(routeOf(contactsRoutes, "contacts.delete"), async ({ projectId, params }) => {
      if (!(await service.remove(projectId, params.id))) throw contactNotFound();
      return { status: 204 };
    })
    .route(routeOf(contactsRoutes, "contacts.events"), async ({ projectId, params, query }) => {
      const page = await queries.events(projectId, params.id, query);
      if (!page) throw contactNotFound();
      return ok(page);
    })
    .route(routeOf(contactsRoutes, "contacts.dataKeys"), async ({ projectId }) => ok({ data: await queries.dataKeys(projectId) }))
    .route(routeOf(contactsRoutes, "contacts.eventNames"), async ({ projectId }) => ok({ data: await queries.eventNames(projectId) }))
    .route(routeOf(contactsRoutes, "contacts.track"), async ({ projectId, body, meta }) => {
      const caller = meta.keyKind === "public" ? "public" : "secret";
      return ok({ success: true, data: await service.track(projectId, { ...body, caller }, idempotencyIdOf(meta)) });
    });
}
