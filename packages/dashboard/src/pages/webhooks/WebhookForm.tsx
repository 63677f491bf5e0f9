import type { WebhookEndpoint, WebhookEndpointWithSecret } from "@mailroom/contracts";
import { Button, Group, Modal, Stack, Switch, Textarea, TextInput } from "@mantine/core";
import { useForm } from "@mantine/form";
import { useState } from "react";
import { useCreateWebhookMutation, useUpdateWebhookMutation } from "../../api/webhooks";
import { showFormError } from "../../components/errors";
import { EventPicker } from "./EventPicker";
import { SecretReveal } from "./SecretReveal";
import { initialValues, toBody, validate, type WebhookValues } from "./webhook-form";

/**
 * Adds an endpoint (no `hook`), then shows its secret once; or edits one. The contract's schema
 * checks the form before it is sent, and the API's 400 (a refused address) shows at its field.
 */
export function WebhookForm({ hook, onClose, onCreated }: { hook: WebhookEndpoint | null; onClose: () => void; onCreated?: (hook: WebhookEndpoint) => void }) {
  const create = useCreateWebhookMutation();
  const update = useUpdateWebhookMutation();
  const [created, setCreated] = useState<WebhookEndpointWithSecret | null>(null);
  const form = useForm<WebhookValues>({ initialValues: initialValues(hook), validate });
  const submit = form.onSubmit((values) => {
    const body = toBody(values);
    const onError = (err: unknown) => showFormError(form, err);
    if (hook) update.mutate({ params: { id: hook.id }, body }, { onSuccess: onClose, onError });
    else create.mutate({ body: { ...body, description: body.description ?? undefined } }, { onSuccess: setCreated, onError });
  });
  const eventErrors = Object.entries(form.errors)
    .filter(([path]) => path === "events" || path.startsWith("events."))
    .map(([, message]) => message);

  return (
    <Modal opened onClose={created ? () => onCreated?.(created) : onClose} title={created ? "Your endpoint's signing secret" : hook ? "Edit endpoint" : "Add an endpoint"} size="lg">
      {created ? (
        <SecretReveal secret={created.secret} previousUntil={null} onDone={() => onCreated?.(created)} />
      ) : (
        <form onSubmit={submit} noValidate aria-label={hook ? "Edit endpoint" : "Add an endpoint"}>
          <Stack>
            <TextInput label="URL" description="https, on a public address: Mailroom POSTs each event here" placeholder="https://example.com/webhooks/mailroom" required data-autofocus {...form.getInputProps("url")} />
            <EventPicker value={form.values.events} onChange={(events) => form.setFieldValue("events", events)} error={eventErrors.length ? eventErrors.join("; ") : undefined} />
            <Textarea label="Description" autosize minRows={1} maxRows={4} {...form.getInputProps("description")} />
            <Switch label="Enabled" description="While disabled it gets nothing: the events of that time are not sent later" {...form.getInputProps("enabled", { type: "checkbox" })} />
            <Group justify="flex-end">
              <Button variant="default" onClick={onClose}>
                Cancel
              </Button>
              <Button type="submit" loading={create.isPending || update.isPending}>
                {hook ? "Save" : "Add endpoint"}
              </Button>
            </Group>
          </Stack>
        </form>
      )}
    </Modal>
  );
}
