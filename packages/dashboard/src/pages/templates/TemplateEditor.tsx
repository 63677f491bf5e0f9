import { CreateTemplateRequest, TEMPLATE_TYPES, type Template } from "@mailroom/contracts";
import { Anchor, Button, Grid, Group, Input, JsonInput, Loader, Select, Stack, TextInput, } from "@mantine/core";
import { schemaResolver, useForm } from "@mantine/form";
import { useDebouncedValue } from "@mantine/hooks";
import { notifications } from "@mantine/notifications";
import { lazy, Suspense, useMemo, useRef, useState } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { useCreateTemplateMutation, useTemplate, useUpdateTemplateMutation } from "../../api/templates";
import { useCan } from "../../components/Can";
import { showFormError } from "../../components/errors";
import { QueryStatus } from "../../components/QueryStatus";
import { DEFAULT_SAMPLE, parseSample, type Sample } from "./sample";
import { SendTest } from "./SendTest";
import { PageHeader } from "../../components/PageHeader";

// CodeMirror and liquidjs load with the editor, never with the rest of the app.
const CodeEditor = lazy(() => import("./CodeEditor"));
const Preview = lazy(() => import("./Preview"));

/** `/templates/new` (id null) or `/templates/<id>`. */
export function TemplateEditor({ id: given }: { id?: string | null }) {
  const params = useParams();
  const id = given === undefined ? (params.id ?? null) : given;
  const template = useTemplate(id);
  if (id === null) return <EditorForm template={null} />;
  return <QueryStatus query={template} what="the template">{() => <EditorForm key={id} template={template.data!} />}</QueryStatus>;
}

function EditorForm({ template }: { template: Template | null }) {
  const navigate = useNavigate();
  const canEdit = useCan("editor");
  const create = useCreateTemplateMutation();
  const update = useUpdateTemplateMutation();
  const form = useForm({
    initialValues: {
      name: template?.name ?? "",
      subject: template?.subject ?? "",
      type: template?.type ?? "TRANSACTIONAL",
      body: template?.body ?? "",
    },
    validate: schemaResolver(CreateTemplateRequest, { sync: true }),
  });
  const [sampleText, setSampleText] = useState(DEFAULT_SAMPLE);
  const parsedSample = useMemo(() => parseSample(sampleText), [sampleText]);
  // While the JSON is being typed (invalid), the preview keeps the last sample that parsed.
  const lastGood = useRef<Sample>(parseSample(DEFAULT_SAMPLE) as Sample);
  if (!("error" in parsedSample)) lastGood.current = parsedSample;
  const sample = lastGood.current;
  const [preview] = useDebouncedValue({ subject: form.values.subject, body: form.values.body }, 200);

  const save = form.onSubmit((values) => {
    const done = (t: Template) => {
      notifications.show({ color: "teal.9", message: `Saved ${t.name}` });
      form.resetDirty();
      if (!template) navigate(`../${t.id}`, { relative: "path", replace: true });
    };
    if (template) update.mutate({ params: { id: template.id }, body: values }, { onSuccess: done, onError: (err) => showFormError(form, err) });
    else create.mutate({ body: values }, { onSuccess: done, onError: (err) => showFormError(form, err) });
  });

  return (
    <Stack>
      <PageHeader
        title={template ? template.name : "New template"}
        actions={
          <Anchor component={Link} to="..">
            All templates
          </Anchor>
        }
      />
      <Grid>
        <Grid.Col span={{ base: 12, lg: 6 }}>
          <form onSubmit={save} noValidate aria-label="Template">
            <Stack>
              <TextInput label="Name" required readOnly={!canEdit} {...form.getInputProps("name")} />
              <TextInput label="Subject" required readOnly={!canEdit} {...form.getInputProps("subject")} />
              <Select label="Type" data={[...TEMPLATE_TYPES]} allowDeselect={false} readOnly={!canEdit} {...form.getInputProps("type")} />
              <Input.Wrapper label="Body" required error={form.errors.body} id="template-body">
                <Suspense fallback={<Loader aria-label="Loading the editor" />}>
                  <CodeEditor label="Body" value={form.values.body} onChange={(v) => form.setFieldValue("body", v)} readOnly={!canEdit} />
                </Suspense>
              </Input.Wrapper>
              {canEdit && (
                <Group>
                  <Button type="submit" loading={create.isPending || update.isPending}>
                    Save
                  </Button>
                </Group>
              )}
            </Stack>
          </form>
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 6 }}>
          <Stack>
            <JsonInput
              label="Sample data (JSON)"
              description='"data" holds the send&apos;s variables, "contact" the recipient'
              autosize
              minRows={4}
              value={sampleText}
              onChange={setSampleText}
              error={"error" in parsedSample ? parsedSample.error : undefined}
            />
            <Suspense fallback={<Loader aria-label="Loading the preview" />}>
              <Preview subject={preview.subject} body={preview.body} sample={sample} />
            </Suspense>
            {canEdit && <SendTest template={template} dirty={form.isDirty()} sample={sample} />}
          </Stack>
        </Grid.Col>
      </Grid>
    </Stack>
  );
}
