import { formPublicRoutes, formRoutes, routeOf } from "@mailroom/contracts";
import type { RpcServer } from "@mailroom/kit";
import type { FormSubmissions } from "../usecases/form-submissions.js";
import type { FormsService } from "../usecases/forms-service.js";

/** The /forms routes and the public /f/{id} (decisions §17): parse (done by the kit against the contract) → use case → reply. */
export function registerFormRoutes(server: RpcServer, forms: FormsService, submissions: FormSubmissions): void {
  server
    .route(routeOf(formRoutes, "contacts.forms.list"), async ({ projectId }) => ({ status: 200, body: await forms.list(projectId) }))
    .route(routeOf(formRoutes, "contacts.forms.create"), async ({ projectId, body }) => ({ status: 201, body: await forms.create(projectId, body) }))
    .route(routeOf(formRoutes, "contacts.forms.read"), async ({ projectId, params }) => ({ status: 200, body: await forms.get(projectId, params.id) }))
    .route(routeOf(formRoutes, "contacts.forms.update"), async ({ projectId, params, body }) => ({ status: 200, body: await forms.update(projectId, params.id, body) }))
    .route(routeOf(formRoutes, "contacts.forms.delete"), async ({ projectId, params }) => {
      await forms.remove(projectId, params.id);
      return { status: 204 };
    })
    .route(routeOf(formPublicRoutes, "contacts.forms.page"), ({ params, query }) => submissions.page(params.id, query.format))
    .route(routeOf(formPublicRoutes, "contacts.forms.submit"), ({ params, body, meta }) => submissions.submit(params.id, body, meta.contentType));
}
