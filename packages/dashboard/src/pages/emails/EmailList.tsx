import { EmailStatus } from "@mailroom/contracts";
import { Group, Select, Stack, TextInput } from "@mantine/core";
import { useDebouncedValue } from "@mantine/hooks";
import { useEffect, useState } from "react";
import { useSearchParams } from "react-router";
import { useEmails } from "../../api/emails";
import { EmailTable } from "../../components/EmailTable";
import { PageHeader } from "../../components/PageHeader";
import { useCursorTrail } from "../../lib/cursors";
import { filtersFrom, filtersTo, STATUS_OPTIONS } from "./filters";

/** The email log, filtered by status, recipient and campaign; the filters live in the URL. */
export function EmailList() {
  const [params, setParams] = useSearchParams();
  const filters = filtersFrom(params);
  // Typed text reaches the URL (and the API) once the typing pauses.
  const [to, setTo] = useState(filters.to ?? "");
  const [campaignId, setCampaignId] = useState(filters.campaignId ?? "");
  const [typed] = useDebouncedValue({ to: to.trim(), campaignId: campaignId.trim() }, 300);
  const key = filtersTo(filters).toString();
  const trail = useCursorTrail(key);
  const emails = useEmails({ ...filters, cursor: trail.cursor });

  useEffect(() => {
    const next = filtersFrom(filtersTo({ ...filtersFrom(params), to: typed.to, campaignId: typed.campaignId }));
    if (filtersTo(next).toString() !== filtersTo(filtersFrom(params)).toString()) setParams(filtersTo(next), { replace: true });
  }, [typed.to, typed.campaignId, params, setParams]);

  const setStatus = (status: string | null) => {
    const parsed = EmailStatus.safeParse(status ?? undefined);
    setParams(filtersTo({ ...filters, status: parsed.success ? parsed.data : undefined }), { replace: true });
  };
  const filtered = Boolean(filters.status || filters.to || filters.campaignId);

  return (
    <Stack>
      <PageHeader title="Emails" />
      <Group align="flex-end">
        <Select label="Status" placeholder="Any status" data={STATUS_OPTIONS} value={filters.status ?? null} onChange={setStatus} clearable w={180} />
        <TextInput label="Recipient" placeholder="Part of an address" type="search" value={to} onChange={(e) => setTo(e.currentTarget.value)} w={260} />
        <TextInput label="Campaign ID" type="search" value={campaignId} onChange={(e) => setCampaignId(e.currentTarget.value)} w={220} />
      </Group>
      <EmailTable
        label="Emails"
        caption={filtered ? "Emails matching the filters, newest first" : "Emails, newest first"}
        query={emails}
        trail={trail}
        empty={filtered ? "No email matches these filters." : "No email was sent yet. Emails sent through the API, campaigns and workflows appear here."}
      />
    </Stack>
  );
}
