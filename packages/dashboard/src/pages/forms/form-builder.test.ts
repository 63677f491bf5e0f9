import { CreateFormRequest, type Form } from "@mailroom/contracts";
import { describe, expect, it } from "vitest";
import { builderValues, formRequest, snippet } from "./form-builder";

const form: Form = {
  id: "f1",
  name: 'Say "hi" <now>',
  fields: [
    { key: "email", label: "Email", type: "email", required: true },
    { key: "plan", label: "Plan", type: "select", required: false, options: ["free", "pro"] },
  ],
  topicIds: ["t1"],
  redirectUrl: "https://example.org/thanks",
  successMessage: "Thanks!",
  submissions: 3,
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
};

describe("the form builder", () => {
  it("starts a new form with the email field", () => {
    expect(builderValues(null).fields).toMatchObject([{ key: "email", label: "Email", type: "email", required: true }]);
    expect(CreateFormRequest.safeParse(formRequest({ ...builderValues(null), name: "N" })).success).toBe(true);
  });

  it("sends back what it was given, a select's options one per line", () => {
    const values = builderValues(form);
    expect(values.fields[1]!.options).toBe("free\npro");
    expect(formRequest(values)).toEqual({
      name: form.name,
      fields: form.fields,
      topicIds: ["t1"],
      redirectUrl: "https://example.org/thanks",
      successMessage: "Thanks!",
    });
    expect(formRequest({ ...values, after: "message" }).redirectUrl).toBeNull();
  });

  it("gives a snippet that frames the hosted page, its title escaped", () => {
    expect(snippet("https://m.example", form)).toBe(
      '<iframe src="https://m.example/f/f1" title="Say &quot;hi&quot; &lt;now&gt;" style="width: 100%; max-width: 32rem; height: 36rem; border: 0" loading="lazy"></iframe>',
    );
  });
});
