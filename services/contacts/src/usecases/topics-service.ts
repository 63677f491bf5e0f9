import { AppError, MAX_TOPICS, type CreateTopicRequest, type Topic, type UpdateTopicRequest } from "@mailroom/contracts";
import { isId, newId, type Sql } from "@mailroom/kit";
import { toTopic, topicsRepo } from "../db/topics-repo.js";
import type { TopicCatalog } from "../domain/topics.js";

const notFound = () => AppError.notFound("Topic");

/**
 * The /topics routes. A topic's default applies to every contact that has not chosen for it, at read
 * time (filters compile it in), so changing a default needs no write per contact.
 */
export class TopicsService {
  constructor(
    private readonly sql: Sql,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** The project's topics as contact writes need them. */
  async catalog(projectId: string): Promise<TopicCatalog> {
    const rows = await topicsRepo.all(this.sql, projectId);
    return new Map(rows.map((r) => [r.id, { name: r.name, defaultSubscribed: r.default_subscribed }]));
  }

  async list(projectId: string): Promise<Topic[]> {
    return (await topicsRepo.all(this.sql, projectId)).map(toTopic);
  }

  async get(projectId: string, id: string): Promise<Topic> {
    const row = isId(id) ? await topicsRepo.get(this.sql, projectId, id) : null;
    if (!row) throw notFound();
    return toTopic(row);
  }

  async create(projectId: string, body: CreateTopicRequest): Promise<Topic> {
    return this.sql.begin(async (tx) => {
      // one writer of a project's topics at a time, so the bound holds under concurrent creates
      await tx`select pg_advisory_xact_lock(hashtext(${`topics:${projectId}`}))`;
      if ((await topicsRepo.count(tx, projectId)) >= MAX_TOPICS) {
        throw AppError.validation(`A project has at most ${MAX_TOPICS} topics`, [{ path: "name", message: "too many topics" }]);
      }
      const row = { id: newId(), project_id: projectId, name: body.name, description: body.description ?? null, default_subscribed: body.defaultSubscribed, created_at: this.clock() };
      return toTopic(await topicsRepo.insert(tx, row));
    });
  }

  async update(projectId: string, id: string, body: UpdateTopicRequest): Promise<Topic> {
    const current = isId(id) ? await topicsRepo.get(this.sql, projectId, id) : null;
    if (!current) throw notFound();
    const next = {
      ...current,
      name: body.name ?? current.name,
      description: body.description !== undefined ? body.description : current.description,
      default_subscribed: body.defaultSubscribed ?? current.default_subscribed,
    };
    const row = await topicsRepo.update(this.sql, next);
    if (!row) throw notFound();
    return toTopic(row);
  }

  async remove(projectId: string, id: string): Promise<void> {
    if (!isId(id) || !(await this.sql.begin((tx) => topicsRepo.delete(tx, projectId, id)))) throw notFound();
  }
}
