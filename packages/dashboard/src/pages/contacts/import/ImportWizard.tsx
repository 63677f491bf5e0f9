import { Alert, Button, Group, MultiSelect, Stack, Text, Title } from "@mantine/core";
import { useRef, useState } from "react";
import { useNavigate } from "react-router";
import { useStartImportMutation } from "../../../api/imports";
import { useSendingSettings } from "../../../api/settings";
import { useTopics } from "../../../api/topics";
import { useCan } from "../../../components/Can";
import { Loading } from "../../../components/QueryState";
import { uploadAdvice } from "./advice";
import { ColumnPreview } from "./ColumnPreview";
import { fileProblem } from "./columns";
import { FilePicker } from "./FilePicker";
import { type FilePreview, readPreview } from "./read-preview";
import { PageHeader } from "../../../components/PageHeader";

/** The file picked and what the browser made of it, or why it cannot be imported. */
type Picked = { file: File; preview: FilePreview | null; problem: string | null };

/**
 * `/contacts/import`: pick a CSV file, check its columns, upload it; the import then runs on the
 * server and `/contacts/imports/<id>` follows it.
 */
export default function ImportWizard() {
  const canEdit = useCan("editor");
  const navigate = useNavigate();
  const start = useStartImportMutation();
  const [picked, setPicked] = useState<Picked | null>(null);
  const [reading, setReading] = useState(false);
  const [topics, setTopics] = useState<string[]>([]);
  const doubleOptIn = useSendingSettings().data?.doubleOptIn.enabled === true;
  // A second file picked while the first is still read wins; the first's late preview is dropped.
  const latest = useRef<File | null>(null);

  const pick = async (file: File) => {
    latest.current = file;
    start.reset();
    const tooBig = fileProblem(file);
    if (tooBig) return setPicked({ file, preview: null, problem: tooBig });
    setReading(true);
    try {
      const preview = await readPreview(file);
      if (latest.current === file) setPicked({ file, preview, problem: preview.plan.problem });
    } catch (err) {
      if (latest.current === file) setPicked({ file, preview: null, problem: `${file.name} could not be read (${err instanceof Error ? err.message : String(err)}).` });
    } finally {
      if (latest.current === file) setReading(false);
    }
  };
  const upload = (file: File) => start.mutate({ file, topics }, { onSuccess: ({ id }) => navigate(`/contacts/imports/${encodeURIComponent(id)}`) });
  const failed = start.isError ? uploadAdvice(start.error) : null;

  return (
    <Stack>
      <PageHeader title="Import contacts" back={{ to: "/contacts", label: "Contacts" }} />
      {!canEdit ? (
        <Alert color="gray" title="Your role does not allow this">
          Importing contacts needs the editor role in this project.
        </Alert>
      ) : (
        <>
          <Text size="sm" c="dimmed">
            A CSV file with a header row: a column named email is required, a column named subscribed is optional, and every other column is
            stored in the contact's data. A contact that exists already (same address, in any case) is updated.
          </Text>
          <Title order={3}>1. Choose a file</Title>
          <FilePicker onPick={pick} />
          {reading && <Loading what="the file" />}
          {picked && !reading && (
            <>
              <Title order={3}>2. Check the columns of {picked.file.name}</Title>
              {picked.problem && (
                <Alert color="red" title="This file cannot be imported" role="alert">
                  {picked.problem}
                </Alert>
              )}
              {picked.preview && <ColumnPreview preview={picked.preview} doubleOptIn={doubleOptIn} />}
              {!picked.problem && (
                <>
                  <Title order={3}>3. Import</Title>
                  <ImportOptions topics={topics} onTopics={setTopics} doubleOptIn={doubleOptIn} />
                  {failed && (
                    <Alert color="red" title={failed.title} role="alert">
                      {failed.message}
                    </Alert>
                  )}
                  <Group>
                    <Button onClick={() => upload(picked.file)} loading={start.isPending}>
                      Import {picked.file.name}
                    </Button>
                  </Group>
                </>
              )}
            </>
          )}
        </>
      )}
    </Stack>
  );
}

/**
 * What applies to every row besides the file: the topics to opt them into (when the project has
 * any), and a word on double opt-in when it is on, since the import then subscribes nobody itself.
 */
function ImportOptions({ topics, onTopics, doubleOptIn }: { topics: string[]; onTopics: (ids: string[]) => void; doubleOptIn: boolean }) {
  const catalog = useTopics().data ?? [];
  return (
    <>
      {catalog.length > 0 && (
        <MultiSelect
          label="Topics"
          description="Every imported contact is opted into these topics."
          placeholder={topics.length === 0 ? "None" : undefined}
          data={catalog.map((t) => ({ value: t.id, label: t.name }))}
          value={topics}
          onChange={onTopics}
          clearable
          maw={480}
        />
      )}
      {doubleOptIn && (
        <Alert color="blue" title="Double opt-in is on">
          The import subscribes nobody itself. A row that subscribes someone who is not subscribed yet sends them a confirmation email, and they stay
          unsubscribed until they confirm.
        </Alert>
      )}
    </>
  );
}
