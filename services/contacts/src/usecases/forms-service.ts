import { AppError, MAX_FORMS, type CreateFormRequest, type ErrorDetail, type Form, type UpdateFormRequest } from "@mailroom/contracts";
import { isId, newId, type Sql } from "@mailroom/kit";
import { formsRepo, toForm } from "../db/forms-repo.js";
import { topicsRepo } from "../db/topics-repo.js";

const notFound = () => AppError.notFound("Form");

/** The /forms routes (decisions.md §17): a project's signup forms. */
export class FormsService {
  constructor(
    private readonly sql: Sql,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async list(projectId: string): Promise<Form[]> {
    return (await formsRepo.all(this.sql, projectId)).map(toForm);
  }

  async get(projectId: string, id: string): Promise<Form> {
    const row = isId(id) ? await formsRepo.get(this.sql, projectId, id) : null;
    if (!row) throw notFound();
    return toForm(row);
  }

  /** Refuses topic ids that are not the project's (a form would otherwise subscribe to nothing, silently). */
  private async checkTopics(projectId: string, topicIds: readonly string[] | undefined): Promise<void> {
    if (!topicIds || topicIds.length === 0) return;
    const known = await topicsRepo.defaults(this.sql, projectId);
    const details: ErrorDetail[] = topicIds.flatMap((id, i) => (known.has(id) ? [] : [{ path: `topicIds.${i}`, message: "not a topic of the project" }]));
    if (details.length > 0) throw AppError.validation("Unknown topic", details);
  }

  async create(projectId: string, body: CreateFormRequest): Promise<Form> {
    await this.checkTopics(projectId, body.topicIds);
    return this.sql.begin(async (tx) => {
      // one writer of a project's forms at a time, so the bound holds under concurrent creates
      await tx`select pg_advisory_xact_lock(hashtext(${`forms:${projectId}`}))`;
      if ((await formsRepo.count(tx, projectId)) >= MAX_FORMS) {
        throw AppError.validation(`A project has at most ${MAX_FORMS} forms`, [{ path: "name", message: "too many forms" }]);
      }
      const now = this.clock();
      const row = await formsRepo.insert(tx, {
        id: newId(),
        project_id: projectId,
        name: body.name,
        fields: body.fields,
        topic_ids: body.topicIds,
        redirect_url: body.redirectUrl ?? null,
        success_message: body.successMessage,
        submissions: 0,
        created_at: now,
        updated_at: now,
      });
      return toForm(row);
    });
  }

  async update(projectId: string, id: string, body: UpdateFormRequest): Promise<Form> {
    const current = isId(id) ? await formsRepo.get(this.sql, projectId, id) : null;
    if (!current) throw notFound();
    await this.checkTopics(projectId, body.topicIds);
    const row = await formsRepo.update(this.sql, {
      ...current,
      name: body.name ?? current.name,
      fields: body.fields ?? current.fields,
      topic_ids: body.topicIds ?? current.topic_ids,
      redirect_url: body.redirectUrl !== undefined ? body.redirectUrl : current.redirect_url,
      success_message: body.successMessage ?? current.success_message,
      updated_at: this.clock(),
    });
    if (!row) throw notFound();
    return toForm(row);
  }

  async remove(projectId: string, id: string): Promise<void> {
    if (!isId(id) || !(await formsRepo.delete(this.sql, projectId, id))) throw notFound();
  }
}
