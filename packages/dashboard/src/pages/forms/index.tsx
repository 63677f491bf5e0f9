import { Button, Group, Stack } from "@mantine/core";
import type { Form } from "@mailroom/contracts";
import { useState } from "react";
import { useDeleteFormMutation, useForms } from "../../api/forms";
import { useCan } from "../../components/Can";
import { ConfirmModal } from "../../components/ConfirmModal";
import { QueryTable } from "../../components/DataTable";
import { notifyError } from "../../components/errors";
import { NewButton, PageHeader } from "../../components/PageHeader";
import { formatTime } from "../../lib/format";
import { FormBuilder } from "./FormBuilder";
import { SnippetModal } from "./SnippetModal";

/** Signup forms (decisions §17): the list with each form's submissions, the builder, and the snippet to embed. */
export default function FormsPage() {
  const forms = useForms();
  const canEdit = useCan("owner");
  const remove = useDeleteFormMutation();
  // null: the builder is closed; "new" or a form: it is open for that
  const [editing, setEditing] = useState<Form | "new" | null>(null);
  const [embedding, setEmbedding] = useState<Form | null>(null);
  const [deleting, setDeleting] = useState<Form | null>(null);

  return (
    <Stack>
      <PageHeader
        title="Forms"
        description="Signup forms on a page of their own or embedded in your site. A submission adds the contact as a public key would: double opt-in applies, and nobody who left is subscribed again."
        actions={<NewButton minRole="owner" onClick={() => setEditing("new")}>New form</NewButton>}
      />
      <QueryTable
        label="Forms"
        query={forms}
        empty="No forms yet. Create one to collect signups on your site."
        minWidth={720}
        columns={[
          { header: "Name", cell: (f) => f.name },
          { header: "Fields", cell: (f) => f.fields.map((x) => x.label).join(", ") },
          { header: "Submissions", cell: (f) => String(f.submissions) },
          { header: "Created", cell: (f) => formatTime(f.createdAt) },
          {
            header: "Actions",
            cell: (f) => (
              <Group gap="xs" wrap="nowrap">
                <Button size="xs" variant="default" onClick={() => setEmbedding(f)} aria-label={`Embed ${f.name}`}>
                  Embed
                </Button>
                {canEdit && (
                  <>
                    <Button size="xs" variant="default" onClick={() => setEditing(f)} aria-label={`Edit ${f.name}`}>
                      Edit
                    </Button>
                    <Button size="xs" variant="default" onClick={() => setDeleting(f)} aria-label={`Delete ${f.name}`}>
                      Delete
                    </Button>
                  </>
                )}
              </Group>
            ),
          },
        ]}
      />
      {editing && <FormBuilder key={editing === "new" ? "new" : editing.id} form={editing === "new" ? null : editing} opened onClose={() => setEditing(null)} />}
      <SnippetModal form={embedding} onClose={() => setEmbedding(null)} />
      <ConfirmModal
        opened={deleting !== null}
        title="Delete form"
        message={`Delete "${deleting?.name ?? ""}"? Its page stops working at once; contacts it added stay.`}
        confirmLabel="Delete"
        loading={remove.isPending}
        onClose={() => setDeleting(null)}
        onConfirm={() => remove.mutate({ params: { id: deleting!.id } }, { onSuccess: () => setDeleting(null), onError: notifyError })}
      />
    </Stack>
  );
}
