import { TEMPLATE_TYPES, type Template, type TemplateType } from "@mailroom/contracts";
import { Anchor, Button, Group, Pagination, Stack, Table, Tabs, Text, TextInput, Title } from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import { useState } from "react";
import { Link, useSearchParams } from "react-router";
import { useDeleteTemplateMutation, useTemplates } from "../../api/templates";
import { useCan } from "../../components/Can";
import { ConfirmModal } from "../../components/ConfirmModal";
import { notifyError } from "../../components/errors";
import { QueryStatus } from "../../components/QueryStatus";

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
      <Group justify="space-between">
        <Title order={2}>Templates</Title>
        {canEdit && (
          <Button component={Link} to="new">
            New template
          </Button>
        )}
      </Group>
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
      <QueryStatus query={templates} what="templates">
        {() => {
          const data = templates.data!;
          if (data.templates.length === 0) return <Text>{debounced ? "No template matches the search." : `No ${TAB_LABEL[type].toLowerCase()} templates yet.`}</Text>;
          return (
            <>
              <TemplateTable templates={data.templates} canEdit={canEdit} />
              {data.totalPages > 1 && <Pagination total={data.totalPages} value={data.page} onChange={(p) => go({ page: p })} aria-label="Pages" />}
            </>
          );
        }}
      </QueryStatus>
    </Stack>
  );
}

function TemplateTable({ templates, canEdit }: { templates: Template[]; canEdit: boolean }) {
  const remove = useDeleteTemplateMutation();
  const [deleting, setDeleting] = useState<Template | null>(null);
  return (
    <>
      <Table striped highlightOnHover aria-label="Templates">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            <Table.Th>Subject</Table.Th>
            <Table.Th>Updated</Table.Th>
            {canEdit && <Table.Th>Actions</Table.Th>}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {templates.map((t) => (
            <Table.Tr key={t.id}>
              <Table.Td>
                <Anchor component={Link} to={t.id}>
                  {t.name}
                </Anchor>
              </Table.Td>
              <Table.Td>{t.subject}</Table.Td>
              <Table.Td>{new Date(t.updatedAt).toLocaleString()}</Table.Td>
              {canEdit && (
                <Table.Td>
                  <Button size="compact-sm" variant="default" aria-label={`Delete ${t.name}`} onClick={() => setDeleting(t)}>
                    Delete
                  </Button>
                </Table.Td>
              )}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
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
