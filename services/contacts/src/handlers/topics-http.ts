import { routeOf, topicRoutes } from "@mailroom/contracts";
import type { RpcServer } from "@mailroom/kit";
import type { TopicsService } from "../usecases/topics-service.js";

/** The /topics routes (decisions §14): parse (done by the kit against the contract) → use case → reply. */
export function registerTopicRoutes(server: RpcServer, topics: TopicsService): void {
  server
    .route(routeOf(topicRoutes, "contacts.topics.list"), async ({ projectId }) => ({ status: 200, body: await topics.list(projectId) }))
    .route(routeOf(topicRoutes, "contacts.topics.create"), async ({ projectId, body }) => ({ status: 201, body: await topics.create(projectId, body) }))
    .route(routeOf(topicRoutes, "contacts.topics.read"), async ({ projectId, params }) => ({ status: 200, body: await topics.get(projectId, params.id) }))
    .route(routeOf(topicRoutes, "contacts.topics.update"), async ({ projectId, params, body }) => ({
      status: 200,
      body: await topics.update(projectId, params.id, body),
    }))
    .route(routeOf(topicRoutes, "contacts.topics.delete"), async ({ projectId, params }) => {
      await topics.remove(projectId, params.id);
      return { status: 204 };
    });
}
