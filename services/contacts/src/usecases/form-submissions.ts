import { AppError, FORM_HIDDEN, FORM_MAX_AGE_MS, FORM_MIN_FILL_MS, verifyRpc, type FormRender, type FormSubmitResponse, type HttpReply } from "@mailroom/contracts";
import { isId, type Logger, type RpcClient, type Sql } from "@mailroom/kit";
import { contactsRepo } from "../db/contacts-repo.js";
import { formsRepo, type FormRow } from "../db/forms-repo.js";
import { topicsRepo } from "../db/topics-repo.js";
import { formPageHeaders, renderDonePage, renderFormPage } from "../domain/form-page.js";
import { addressProblem, checkHuman, formTopics, readFields, renderToken, submittedBody } from "../domain/forms.js";
import type { ContactsService } from "./contacts-service.js";

const notFound = () => AppError.notFound("Form");


export interface FormSubmissionsOptions {
  secret: string;
  publicUrl: string;
  minFillMs?: number;
  clock?: () => number;
}

/**
 * The public side of signup forms (decisions.md §17): the hosted page and its submissions. A
 * submission that a defence stops writes nothing; one that passes is written by the contact
 * service's public-key path and counted on the form.
 */
export class FormSubmissions {
  private readonly minFillMs: number;
  private readonly clock: () => number;

  constructor(
    private readonly sql: Sql,
    private readonly contacts: ContactsService,
    private readonly rpc: RpcClient,
    private readonly log: Logger,
    private readonly opts: FormSubmissionsOptions,
  ) {
    this.minFillMs = opts.minFillMs ?? FORM_MIN_FILL_MS;
    this.clock = opts.clock ?? Date.now;
  }

  private async form(id: string): Promise<FormRow> {
    const row = isId(id) ? await formsRepo.byId(this.sql, id) : null;
    if (!row) throw notFound();
    return row;
  }

  private url(id: string): string {
    return `${this.opts.publicUrl.replace(/\/+$/, "")}/f/${id}`;
  }

  private html(form: FormRow, body: string): HttpReply {
    return {
      status: 200,
      headers: formPageHeaders(this.url(form.id), form.redirect_url),
      raw: { contentType: "text/html; charset=utf-8", base64: Buffer.from(body).toString("base64") },
    };
  }

  /** The hosted page, or (`json`) its fields and hidden values for a site's own script. */
  async page(id: string, format: "html" | "json" = "html"): Promise<HttpReply> {
    const form = await this.form(id);
    const token = renderToken(this.opts.secret, form.id, this.clock());
    if (format === "json") {
      const hidden = { [FORM_HIDDEN.renderedAt]: token.renderedAt, [FORM_HIDDEN.signature]: token.signature, [FORM_HIDDEN.honeypot]: "" };
      const body: FormRender = { id: form.id, name: form.name, fields: form.fields, hidden };
      return { status: 200, headers: { "cache-control": "no-store" }, body };
    }
    return this.html(form, renderFormPage({ name: form.name, fields: form.fields, action: this.url(form.id), ...token }));
  }

  /**
   * A JSON post gets FormSubmitResponse; a form post the success page, or a 303 to the form's
   * `redirectUrl`. A bot (honeypot, too fast) gets exactly what a person gets, so it learns nothing.
   */
  async submit(id: string, body: unknown, contentType: string | undefined): Promise<HttpReply> {
    const form = await this.form(id);
    const submitted = submittedBody(body, contentType);
    if (!submitted) {
      throw AppError.validation("Send the form as application/x-www-form-urlencoded or a JSON object", [{ path: "", message: "not a form or a JSON object" }]);
    }
    const json = body !== null && typeof body === "object";
    const answer = (): HttpReply => {
      if (json) {
        const ok: FormSubmitResponse = { success: true, message: form.success_message, redirectUrl: form.redirect_url };
        return { status: 200, body: ok };
      }
      if (form.redirect_url) return { status: 303, headers: { location: form.redirect_url, "cache-control": "no-store" } };
      return this.html(form, renderDonePage(form.name, form.success_message));
    };

    const human = checkHuman(submitted, { secret: this.opts.secret, formId: form.id, now: this.clock(), minFillMs: this.minFillMs, maxAgeMs: FORM_MAX_AGE_MS });
    if (!human.ok && human.kind === "token") {
      throw AppError.validation("This form has expired or was not loaded from its page; load the page again", [{ path: "mr_sig", message: "missing, forged or expired" }], "form_token");
    }
    if (!human.ok) {
      this.log.info({ formId: form.id, projectId: form.project_id, kind: human.kind }, "form submission taken for a bot's: nothing written");
      return answer();
    }

    const read = readFields(form.fields, submitted);
    if (!read.ok) throw AppError.validation("The form's fields are not valid", read.details);
    const { email, data, fields } = read.values;

    // the verify service's syntax, MX and disposable checks (domain/forms.ts `addressProblem` says which count)
    const verdict = await this.rpc.call(verifyRpc.address, { email }).catch((err: unknown) => {
      if (err instanceof AppError && err.code === "VALIDATION_ERROR") return null;
      throw err;
    });
    const problem = addressProblem(verdict);
    if (problem) {
      this.log.info({ formId: form.id, projectId: form.project_id, domain: email.split("@").pop(), problem }, "form submission refused for its address");
      throw AppError.validation(`The address ${problem}`, [{ path: "email", message: problem }], "address_refused");
    }

    const existing = await contactsRepo.byEmail(this.sql, form.project_id, email);
    // a topic deleted since the form was saved is left out, not an error the visitor cannot fix
    const known = await topicsRepo.defaults(this.sql, form.project_id);
    const topics = formTopics(form.topic_ids.filter((t) => known.has(t)), existing?.topics);
    await this.contacts.submitForm(form.project_id, {
      email,
      subscribed: true,
      data,
      ...(Object.keys(topics).length > 0 ? { topics } : {}),
      eventData: { formId: form.id, formName: form.name, fields },
    });
    await formsRepo.counted(this.sql, form.id);
    return answer();
  }
}
