import { ActionIcon, Button, Checkbox, Fieldset, Group, Modal, MultiSelect, Radio, Select, Stack, TextInput, Textarea } from "@mantine/core";
import { useForm } from "@mantine/form";
import type { Form } from "@mailroom/contracts";
import { FORM_FIELD_TYPES } from "@mailroom/contracts";
import { useCreateFormMutation, useUpdateFormMutation } from "../../api/forms";
import { useTopics } from "../../api/topics";
import { showFormError } from "../../components/errors";
import { builderValues, newField, formRequest, type BuilderValues } from "./form-builder";

const TYPE_LABELS: Record<(typeof FORM_FIELD_TYPES)[number], string> = { email: "Email", text: "Text", checkbox: "Checkbox", select: "Select" };

/**
 * Create (no `form`) or edit a signup form in a modal: its fields, the topics a submission opts
 * into, and what a person sees after submitting. The API checks everything; its 400 shows at the
 * field it names (`fields.1.key`).
 */
export function FormBuilder({ form: current, opened, onClose }: { form: Form | null; opened: boolean; onClose: () => void }) {
  const create = useCreateFormMutation();
  const update = useUpdateFormMutation();
  const topics = useTopics();
  const form = useForm<BuilderValues>({
    initialValues: builderValues(current),
    validate: { name: (v) => (v.trim() ? null : "Enter a name") },
  });
  const submit = form.onSubmit((v) => {
    const body = formRequest(v);
    const done = { onSuccess: onClose, onError: (err: unknown) => showFormError(form, err) };
    if (current) update.mutate({ params: { id: current.id }, body }, done);
    else create.mutate({ body }, done);
  });
  const values = form.getValues();

  return (
    <Modal opened={opened} onClose={onClose} title={current ? "Edit form" : "New form"} size="lg" centered>
      <form onSubmit={submit}>
        <Stack>
          <TextInput label="Name" description="The page's title" required data-autofocus {...form.getInputProps("name")} />
          {values.fields.map((field, i) => (
            <Fieldset key={field.uid} legend={`Field ${i + 1}`}>
              <Stack gap="xs">
                <Group grow align="flex-start">
                  <TextInput label="Label" required {...form.getInputProps(`fields.${i}.label`)} />
                  <TextInput label="Key" description="Its contact data key" required disabled={field.type === "email"} {...form.getInputProps(`fields.${i}.key`)} />
                </Group>
                <Group align="flex-end">
                  <Select
                    label="Type"
                    data={FORM_FIELD_TYPES.map((t) => ({ value: t, label: TYPE_LABELS[t], disabled: t === "email" }))}
                    allowDeselect={false}
                    disabled={field.type === "email"}
                    {...form.getInputProps(`fields.${i}.type`)}
                  />
                  <Checkbox label="Required" disabled={field.type === "email"} {...form.getInputProps(`fields.${i}.required`, { type: "checkbox" })} mb={8} />
                  {field.type !== "email" && (
                    <ActionIcon variant="default" size="lg" aria-label={`Remove field ${i + 1}`} onClick={() => form.removeListItem("fields", i)}>
                      ✕
                    </ActionIcon>
                  )}
                </Group>
                {field.type === "select" && (
                  <Textarea label="Options" description="One per line" autosize minRows={2} {...form.getInputProps(`fields.${i}.options`)} />
                )}
              </Stack>
            </Fieldset>
          ))}
          <Group>
            <Button variant="default" onClick={() => form.insertListItem("fields", newField())} disabled={values.fields.length >= 20}>
              Add field
            </Button>
          </Group>
          <MultiSelect
            label="Topics"
            description="A submission opts the contact into these topics (never back into one they left)"
            placeholder={values.topicIds.length === 0 ? "None" : undefined}
            data={(topics.data ?? []).map((t) => ({ value: t.id, label: t.name }))}
            clearable
            {...form.getInputProps("topicIds")}
          />
          <Radio.Group label="After submitting" {...form.getInputProps("after")}>
            <Group mt={4}>
              <Radio value="message" label="Show a message" />
              <Radio value="redirect" label="Go to a page" />
            </Group>
          </Radio.Group>
          {values.after === "redirect" ? (
            <TextInput label="Redirect URL" placeholder="https://example.com/thanks" required {...form.getInputProps("redirectUrl")} />
          ) : (
            <Textarea label="Success message" autosize minRows={2} {...form.getInputProps("successMessage")} />
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={create.isPending || update.isPending}>
              {current ? "Save" : "Create form"}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
