import type { Campaign, Template } from "@mailroom/contracts";
import { Alert, Anchor, Button, Grid, Group, Input, Loader, Select, Stack, TextInput, } from "@mantine/core";
import { useForm } from "@mantine/form";
import { useDebouncedValue } from "@mantine/hooks";
import { notifications } from "@mantine/notifications";
import { lazy, Suspense } from "react";
import { Link, useNavigate } from "react-router";
import { useCreateCampaignMutation, useUpdateCampaignMutation } from "../../api/campaigns";
import { useDomains } from "../../api/domains";
import { useTemplates } from "../../api/templates";
import { useCan } from "../../components/Can";
import { showFormError } from "../../components/errors";
import { QueryStatus } from "../../components/QueryStatus";
import { parseSample, type Sample } from "../templates/sample";
import { AudiencePicker } from "./AudiencePicker";
import { ChecksPanel } from "./ChecksPanel";
import { type ComposerValues, fieldOf, initialValues, toRequest, validateComposer } from "./composer-form";
import { DeleteDraft } from "./DeleteDraft";
import { SendPanel } from "./SendPanel";
import { VariantEditor } from "./VariantEditor";
import { LocalTimeFields } from "./LocalTimeFields";
import { PageHeader } from "../../components/PageHeader";

// The template editor's CodeMirror and liquidjs preview, loaded with the composer only.
const CodeEditor = lazy(() => import("../templates/CodeEditor"));
const Preview = lazy(() => import("../templates/Preview"));

const PREVIEW_SAMPLE = parseSample(JSON.stringify({ data: { firstName: "Ada" }, contact: { email: "ada@example.com" } })) as Sample;

/** `/campaigns/new` (campaign null) or a DRAFT: its content, sender and audience, then test, send or schedule. */
export function Composer({ campaign }: { campaign: Campaign | null }) {
  const domains = useDomains();
  return (
    <QueryStatus query={domains} what="domains">
      {() => {
        const verified = (domains.data?.data ?? []).filter((d) => d.status === "VERIFIED").map((d) => d.domain);
        return <ComposerForm key={campaign?.id ?? "new"} campaign={campaign} verified={verified} />;
      }}
    </QueryStatus>
  );
}

function ComposerForm({ campaign, verified }: { campaign: Campaign | null; verified: string[] }) {
  const navigate = useNavigate();
  const canEdit = useCan("editor");
  const readOnly = !canEdit;
  const create = useCreateCampaignMutation();
  const update = useUpdateCampaignMutation();
  const form = useForm<ComposerValues>({ initialValues: initialValues(campaign, verified[0] ?? ""), validate: validateComposer });
  // Strings, not an object: a new object each render would restart the wait (and re-render each 200 ms).
  const [previewSubject] = useDebouncedValue(form.values.subject, 200);
  const [previewBody] = useDebouncedValue(form.values.body, 200);
  // A stored sender whose domain is no longer verified still shows (the API will say what to do).
  const domains = [...new Set([...verified, ...(form.values.senderDomain ? [form.values.senderDomain] : [])])];

  const save = form.onSubmit((values) => {
    const onError = (err: unknown) =>
      showFormError({ getValues: () => toRequest(form.getValues()), setFieldError: (f, m) => form.setFieldError(fieldOf(String(f)), m) }, err);
    const done = (c: Campaign) => {
      notifications.show({ color: "teal.9", message: `Saved ${c.name}` });
      form.resetDirty();
      if (!campaign) navigate(`../${c.id}`, { relative: "path", replace: true });
    };
    if (campaign) update.mutate({ params: { id: campaign.id }, body: toRequest(values) }, { onSuccess: done, onError });
    else create.mutate({ body: toRequest(values) }, { onSuccess: (r) => done(r.data), onError });
  });

  return (
    <Stack>
      <PageHeader
        title={campaign ? campaign.name : "New campaign"}
        actions={
          <Anchor component={Link} to=".." relative="path">
            All campaigns
          </Anchor>
        }
      />
      {verified.length === 0 && (
        <Alert color="gray" title="No verified domain">
          A campaign is sent from an address at a verified domain, and this project has none yet.{" "}
          <Anchor component={Link} to="/domains">
            Open Domains
          </Anchor>
        </Alert>
      )}
      <Grid>
        <Grid.Col span={{ base: 12, lg: 6 }}>
          <form onSubmit={save} noValidate aria-label="Campaign">
            <Stack>
              <TextInput label="Name" required readOnly={readOnly} {...form.getInputProps("name")} />
              <Group align="flex-start" grow>
                <TextInput label="From (before the @)" required readOnly={readOnly} {...form.getInputProps("senderLocal")} />
                <Select label="From domain" required data={domains} allowDeselect={false} readOnly={readOnly} {...form.getInputProps("senderDomain")} />
              </Group>
              <Group align="flex-start" grow>
                <TextInput label="From name" readOnly={readOnly} {...form.getInputProps("fromName")} />
                <TextInput label="Reply-to" type="email" readOnly={readOnly} {...form.getInputProps("replyTo")} />
              </Group>
              {canEdit && <StartFromTemplate onPick={(t) => form.setValues({ subject: t.subject, body: t.body })} />}
              <TextInput label="Subject" required readOnly={readOnly} {...form.getInputProps("subject")} />
              <Input.Wrapper label="Body" required error={form.errors.body} id="campaign-body">
                <Suspense fallback={<Loader aria-label="Loading the editor" />}>
                  <CodeEditor label="Body" value={form.values.body} onChange={(v) => form.setFieldValue("body", v)} readOnly={readOnly} />
                </Suspense>
              </Input.Wrapper>
              <VariantEditor form={form} readOnly={readOnly} />
              <LocalTimeFields form={form} readOnly={readOnly} />
              <AudiencePicker
                value={form.values}
                onChange={(next) => form.setValues(next)}
                errors={{
                  segmentId: form.errors.segmentId as string | undefined,
                  audienceFilter: form.errors.audienceFilter as string | undefined,
                  topicId: form.errors.topicId as string | undefined,
                }}
                readOnly={readOnly}
              />
              {canEdit && (
                <Group>
                  <Button type="submit" loading={create.isPending || update.isPending}>
                    {campaign ? "Save" : "Create draft"}
                  </Button>
                  {campaign && <DeleteDraft campaign={campaign} />}
                </Group>
              )}
            </Stack>
          </form>
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 6 }}>
          <Stack>
            <Suspense fallback={<Loader aria-label="Loading the preview" />}>
              <Preview subject={previewSubject} body={previewBody} sample={PREVIEW_SAMPLE} />
            </Suspense>
            {campaign && <ChecksPanel campaign={campaign} dirty={form.isDirty()} />}
            {campaign && canEdit && <SendPanel campaign={campaign} dirty={form.isDirty()} />}
          </Stack>
        </Grid.Col>
      </Grid>
    </Stack>
  );
}

/** Copies a template's subject and body into the composer. */
function StartFromTemplate({ onPick }: { onPick: (t: Template) => void }) {
  const templates = useTemplates({ limit: 100 });
  const list = templates.data?.templates ?? [];
  return (
    <Select
      label="Start from a template"
      description="Copies its subject and body here"
      placeholder={templates.isPending ? "Loading templates…" : list.length ? "Pick a template" : "No template yet"}
      data={list.map((t) => ({ value: t.id, label: `${t.name} (${t.type.toLowerCase()})` }))}
      value={null}
      onChange={(id) => {
        const t = list.find((x) => x.id === id);
        if (t) onPick(t);
      }}
      searchable
    />
  );
}
