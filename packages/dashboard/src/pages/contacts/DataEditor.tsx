import type { Contact } from "@mailroom/contracts";
import { ActionIcon, Alert, Button, Code, Group, Stack, Text, TextInput, Title } from "@mantine/core";
import { useForm } from "@mantine/form";
import { notifications } from "@mantine/notifications";
import { useUpdateContactMutation } from "../../api/contacts";
import { ApiError } from "../../api/errors";
import { DataTable } from "../../components/DataTable";
import { notifyError } from "../../components/errors";
import { splitDetails } from "../../lib/errors";
import { formatValue } from "../../lib/format";
import { type DataRow, dataPatch, rowErrors, rowsOf } from "./data-rows";

/** The contact's `data` read-only: what a viewer sees. */
function ContactData({ data }: { data: Contact["data"] }) {
  return (
    <DataTable
      label="Data"
      rows={Object.entries(data)}
      rowKey={([k]) => k}
      empty={<Text c="dimmed">No data.</Text>}
      columns={[
        { header: "Key", cell: ([k]) => k },
        { header: "Value", cell: ([, v]) => <Code>{formatValue(v)}</Code> },
      ]}
    />
  );
}

let nextRow = 0;

/**
 * `data` as key/value rows: add, edit, remove, then one PATCH with what changed. Values that parse
 * as JSON are sent as JSON (`42`, `true`, `["a"]`), anything else as text. The API's field errors
 * (`data.<key>`) land on that key's row; mount with a `key` that changes on save to start afresh.
 */
export function DataEditor({ contact, canEdit }: { contact: Contact; canEdit: boolean }) {
  const update = useUpdateContactMutation();
  const form = useForm<{ rows: DataRow[] }>({ initialValues: { rows: rowsOf(contact.data) }, validate: (v) => rowErrors(v.rows) });

  if (!canEdit) {
    return (
      <Stack gap="xs">
        <Title order={3}>Data</Title>
        <ContactData data={contact.data} />
      </Stack>
    );
  }

  const rows = form.getValues().rows;
  const showApiError = (err: unknown) => {
    if (!(err instanceof ApiError) || err.details.length === 0) return notifyError(err);
    const byKey = new Map(rows.map((r, i) => [`data.${r.key}`, i]));
    const { fieldErrors, rest } = splitDetails(err.details, [...byKey.keys(), "data"]);
    for (const [path, message] of Object.entries(fieldErrors)) {
      const i = byKey.get(path);
      form.setFieldError(i === undefined ? "rows" : `rows.${i}.value`, message);
    }
    if (rest.length > 0) notifyError(err);
  };
  const submit = form.onSubmit((values) => {
    const data = dataPatch(contact.data, values.rows.map((r) => ({ ...r, key: r.key.trim() })));
    if (Object.keys(data).length === 0) return;
    update.mutate(
      { params: { id: contact.id }, body: { data } },
      { onSuccess: () => notifications.show({ color: "green", message: "Data saved" }), onError: showApiError },
    );
  });

  return (
    <form onSubmit={submit} noValidate aria-label="Contact data">
      <Stack gap="xs">
        <Title order={3}>Data</Title>
        <Text size="sm" c="dimmed">
          Values that are valid JSON (numbers, true/false, lists, objects) are stored as such; anything else as text.
        </Text>
        {rows.length === 0 && <Text c="dimmed">No data yet.</Text>}
        {rows.map((row, i) => (
          <Group key={row.id} align="flex-start" wrap="nowrap">
            <TextInput aria-label={`Key ${i + 1}`} placeholder="key" w={220} {...form.getInputProps(`rows.${i}.key`)} />
            <TextInput aria-label={`Value of ${row.key || `key ${i + 1}`}`} placeholder="value" style={{ flex: 1 }} {...form.getInputProps(`rows.${i}.value`)} />
            <ActionIcon variant="default" size="lg" aria-label={`Remove ${row.key || `key ${i + 1}`}`} onClick={() => form.removeListItem("rows", i)}>
              <span aria-hidden>✕</span>
            </ActionIcon>
          </Group>
        ))}
        {form.errors.rows && (
          <Alert color="red" role="alert">
            {form.errors.rows}
          </Alert>
        )}
        <Group>
          <Button variant="default" onClick={() => form.insertListItem("rows", { id: `new-${nextRow++}`, key: "", value: "" })}>
            Add key
          </Button>
          <Button type="submit" loading={update.isPending} disabled={!form.isDirty()}>
            Save data
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
