import { TEMPLATE_TYPES, type Template, type TemplateType } from "@mailroom/contracts";
import { Button, Stack, Tabs, TextInput } from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import { useState } from "react";
import { useSearchParams } from "react-router";
import { useDeleteTemplateMutation, useTemplates } from "../../api/templates";
import { useCan } from "../../components/Can";
import { ConfirmModal } from "../../components/ConfirmModal";
import { nameColumn, QueryTable } from "../../components/DataTable";
import { notifyError } from "../../components/errors";
import { NewButton, PageHeader } from "../../components/PageHeader";

const TAB_LABEL: Record<TemplateType, string> = { TRANSACTIONAL: "Transactional", MARKETING: "Marketing" };

export function TemplateList() {
  const [params, setParams] = useSearchParams();
  const type = (TEMPLATE_TYPES as readonly string[]).includes(params.get("type") ?? "") ? (params.get("type") as TemplateType) : "TRANSACTIONAL";
  const page = Math.max(1, Number(params.get("page")) || 1);
  const [search, setSearch] = useState("");
  const [debounced] = useDebouncedValue(search.trim(), 300);
  const templates = useTemplates({ type, page, limit: 20, search: debounced || undefined });
  const canEdit = useCan("editor");
  const go = (next: { type?: TemplateType; page?: number }) => setParams({ type: next.type ?? type, page: String(next.page ?? 1) });

  return (
    <Stack>
      <PageHeader title="Templates" actions={<NewButton to="new">New template</NewButton>} />
      <Tabs value={type} onChange={(v) => v && go({ type: v as TemplateType })}>
        <Tabs.List>
          {TEMPLATE_TYPES.map((t) => (
            <Tabs.Tab key={t} value={t}>
              {TAB_LABEL[t]}
            </Tabs.Tab>
          ))}
        </Tabs.List>
      </Tabs>
      <TextInput label="Search templates" placeholder="Name or subject" value={search} onChange={(e) => setSearch(e.currentTarget.value)} maw={360} />
      <TemplateTable
        query={templates}
        empty={debounced ? "No template matches the search." : `No ${TAB_LABEL[type].toLowerCase()} templates yet.`}
        canEdit={canEdit}
        onPage={(p) => go({ page: p })}
      />
    </Stack>
  );
}

function TemplateTable({ query, empty, canEdit, onPage }: { query: ReturnType<typeof useTemplates>; empty: string; canEdit: boolean; onPage: (page: number) => void }) {
  const remove = useDeleteTemplateMutation();
  const [deleting, setDeleting] = useState<Template | null>(null);
  return (
    <>
      <QueryTable
        label="Templates"
        query={query}
        rows={(d) => d.templates}
        empty={empty}
        onPage={onPage}
        minWidth={640}
        columns={[
          nameColumn(),
          { header: "Subject", cell: (t) => t.subject },
          { header: "Updated", cell: (t) => new Date(t.updatedAt).toLocaleString() },
          canEdit && {
            header: "Actions",
            cell: (t) => (
              <Button size="compact-sm" variant="default" aria-label={`Delete ${t.name}`} onClick={() => setDeleting(t)}>
                Delete
              </Button>
            ),
          },
        ]}
      />
      <ConfirmModal
        opened={deleting !== null}
        title={`Delete ${deleting?.name ?? "template"}?`}
        message="The template is deleted for good. A template that a workflow step uses cannot be deleted."
        confirmLabel="Delete"
        loading={remove.isPending}
        onClose={() => setDeleting(null)}
        onConfirm={() =>
          deleting &&
          remove.mutate({ params: { id: deleting.id } }, { onSuccess: () => setDeleting(null), onError: (err) => (setDeleting(null), notifyError(err)) })
        }
      />
    </>
  );
}
