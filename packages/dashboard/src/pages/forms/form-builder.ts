import type { CreateFormRequest, Form, FormFieldType } from "@mailroom/contracts";

/**
 * The builder's state and what it sends (decisions.md §17). A select's options are typed one per
 * line; after a submission a form either shows its message or sends the browser to a URL. Pure, so
 * the round trip is unit-tested.
 */
export interface BuilderField {
  /** The row's React key: fields are added and removed, so their index does not name them. */
  uid: string;
  key: string;
  label: string;
  type: FormFieldType;
  required: boolean;
  /** A select's options, one per line. */
  options: string;
}

export interface BuilderValues {
  name: string;
  fields: BuilderField[];
  topicIds: string[];
  after: "message" | "redirect";
  successMessage: string;
  redirectUrl: string;
}

let rows = 0;
const uid = () => `field-${++rows}`;

export const emailField = (): BuilderField => ({ uid: uid(), key: "email", label: "Email", type: "email", required: true, options: "" });
export const newField = (): BuilderField => ({ uid: uid(), key: "", label: "", type: "text", required: false, options: "" });
const DEFAULT_MESSAGE = "Thanks for signing up!";

export function builderValues(form: Form | null): BuilderValues {
  if (!form) return { name: "", fields: [emailField()], topicIds: [], after: "message", successMessage: DEFAULT_MESSAGE, redirectUrl: "" };
  return {
    name: form.name,
    fields: form.fields.map((f) => ({ uid: uid(), key: f.key, label: f.label, type: f.type, required: f.required, options: (f.options ?? []).join("\n") })),
    topicIds: form.topicIds,
    after: form.redirectUrl ? "redirect" : "message",
    successMessage: form.successMessage,
    redirectUrl: form.redirectUrl ?? "",
  };
}

/** The body of POST /forms (PATCH takes the same). The message is kept with a redirect: a JSON post still shows it. */
export function formRequest(v: BuilderValues): CreateFormRequest {
  return {
    name: v.name,
    fields: v.fields.map((f) => ({
      key: f.key.trim(),
      label: f.label,
      type: f.type,
      required: f.required,
      ...(f.type === "select" ? { options: f.options.split("\n").map((o) => o.trim()).filter(Boolean) } : {}),
    })),
    topicIds: v.topicIds,
    redirectUrl: v.after === "redirect" ? v.redirectUrl.trim() : null,
    successMessage: v.successMessage.trim() || DEFAULT_MESSAGE,
  };
}

/** What a site pastes: the hosted page in a frame (it works without the site's JavaScript), and a link for mail or chat. */
export function snippet(origin: string, form: Pick<Form, "id" | "name">): string {
  const url = `${origin}/f/${form.id}`;
  const title = form.name.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);
  return `<iframe src="${url}" title="${title}" style="width: 100%; max-width: 32rem; height: 36rem; border: 0" loading="lazy"></iframe>`;
}

export const hostedUrl = (origin: string, id: string) => `${origin}/f/${id}`;
