import { CreateSegmentRequest, type FilterExpression, type Segment } from "@mailroom/contracts";
import { Button, Group, Paper, Stack, Switch, Text, TextInput, Title } from "@mantine/core";
import { schemaResolver, useForm } from "@mantine/form";
import { useDisclosure } from "@mantine/hooks";
import { notifications } from "@mantine/notifications";
import { useState } from "react";
import { useNavigate, useParams } from "react-router";
import { ApiError } from "../../api/errors";
import { useCreateSegmentMutation, useDeleteSegmentMutation, useSegment, useUpdateSegmentMutation } from "../../api/segments";
import { useCan } from "../../components/Can";
import { ConfirmModal } from "../../components/ConfirmModal";
import { ExportButton } from "../../components/ExportButton";
import { notifyError, showFormError } from "../../components/errors";
import { FilterBuilder, LiveCount, expressionErrorsFrom } from "../../components/filter-builder";
import { QueryStatus } from "../../components/QueryStatus";
import { formatTime } from "../../lib/format";
import { SegmentMembers } from "./SegmentMembers";
import { PageHeader } from "../../components/PageHeader";

/** Where a new segment starts: the subscribed contacts, one filter to change or add to. */
const STARTER: FilterExpression = { logic: "AND", groups: [{ filters: [{ field: "subscribed", operator: "equals", value: true }] }] };

/** `/segments/new` or `/segments/<id>`. */
export default function SegmentEditor() {
  const id = useParams().id ?? null;
  if (id === null) return <EditorForm segment={null} />;
  return <Saved id={id} />;
}

function Saved({ id }: { id: string }) {
  const segment = useSegment(id);
  return <QueryStatus query={segment} what="the segment">{() => <EditorForm key={id} segment={segment.data!} />}</QueryStatus>;
}

const NameAndTracking = CreateSegmentRequest.pick({ name: true, trackMembership: true });

function EditorForm({ segment }: { segment: Segment | null }) {
  const navigate = useNavigate();
  const canEdit = useCan("editor");
  const create = useCreateSegmentMutation();
  const update = useUpdateSegmentMutation();
  const remove = useDeleteSegmentMutation();
  const [confirming, confirm] = useDisclosure(false);
  const form = useForm({
    initialValues: { name: segment?.name ?? "", trackMembership: segment?.trackMembership ?? false },
    validate: schemaResolver(NameAndTracking, { sync: true }),
  });
  const [filters, setFilters] = useState<{ value: FilterExpression; valid: boolean }>({ value: segment?.filters ?? STARTER, valid: true });
  const [serverErrors, setServerErrors] = useState<Record<string, string>>({});
  const [tried, setTried] = useState(false);

  const onFilters = (value: FilterExpression, valid: boolean) => {
    setFilters({ value, valid });
    setServerErrors({});
  };
  // The filter's problems go to its inputs; anything else (the name) to the form or a notification.
  const onError = (err: unknown) => {
    if (!(err instanceof ApiError)) return notifyError(err);
    const { errors, rest } = expressionErrorsFrom(err.details);
    setServerErrors(errors);
    if (rest.length > 0 || err.details.length === 0) showFormError(form, new ApiError(err.status, err.error, err.message, rest, err.reason));
  };
  const save = form.onSubmit((values) => {
    setTried(true);
    if (!filters.valid) return;
    const body = { ...values, filters: filters.value };
    const done = (s: Segment) => {
      notifications.show({ color: "teal.9", message: `Saved ${s.name}` });
      form.resetDirty();
      if (!segment) navigate(`../${encodeURIComponent(s.id)}`, { relative: "path", replace: true });
    };
    if (segment) update.mutate({ params: { id: segment.id }, body }, { onSuccess: done, onError });
    else create.mutate({ body }, { onSuccess: done, onError });
  });
  const deleteSegment = () =>
    segment &&
    remove.mutate(
      { params: { id: segment.id } },
      {
        onSuccess: () => {
          notifications.show({ color: "teal.9", message: `${segment.name} deleted` });
          navigate("/segments", { replace: true });
        },
        onError: (err) => {
          confirm.close();
          notifyError(err);
        },
      },
    );

  return (
    <Stack>
      <PageHeader
        title={segment ? segment.name : "New segment"}
        back={{ to: "/segments", label: "All segments" }}
        actions={
          segment && (
            <>
              <ExportButton segmentId={segment.id} fileName={segment.slug} />
              {canEdit && (
                <Button variant="default" color="red.9" onClick={confirm.open}>
                  Delete segment
                </Button>
              )}
            </>
          )
        }
        description={segment && `Slug ${segment.slug} · updated ${formatTime(segment.updatedAt)}`}
      />
      <form onSubmit={save} noValidate aria-label="Segment">
        <Stack>
          <TextInput label="Name" required readOnly={!canEdit} maw={420} {...form.getInputProps("name")} />
          <Switch
            label="Track membership"
            description="Keep the members up to date as contacts change and time passes, and emit segment entry and exit events"
            disabled={!canEdit}
            {...form.getInputProps("trackMembership", { type: "checkbox" })}
          />
          <Paper withBorder p="md">
            <Stack>
              <Title order={3}>Filter</Title>
              <LiveCount filters={filters.valid ? filters.value : null} />
              <FilterBuilder
                value={filters.value}
                onChange={onFilters}
                readOnly={!canEdit}
                serverErrors={serverErrors}
                showAllErrors={tried}
                excludeSegmentId={segment?.id}
              />
            </Stack>
          </Paper>
          {canEdit && (
            <Group>
              <Button type="submit" loading={create.isPending || update.isPending}>
                Save
              </Button>
              {tried && !filters.valid && (
                <Text size="sm" c="red.9" role="alert">
                  Fix the filter's marked inputs to save.
                </Text>
              )}
            </Group>
          )}
        </Stack>
      </form>
      {segment && <SegmentMembers id={segment.id} count={segment.memberCount} version={segment.updatedAt} />}
      <ConfirmModal
        opened={confirming}
        title={`Delete ${segment?.name ?? "segment"}?`}
        message="The segment is deleted for good. A segment that another segment's filters use cannot be deleted."
        confirmLabel="Delete"
        loading={remove.isPending}
        onClose={confirm.close}
        onConfirm={() => void deleteSegment()}
      />
    </Stack>
  );
}
