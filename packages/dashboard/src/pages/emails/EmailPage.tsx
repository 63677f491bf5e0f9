import { Anchor, SimpleGrid, Stack, Text, } from "@mantine/core";
import type { ReactNode } from "react";
import { Link, useParams } from "react-router";
import { useEmail } from "../../api/emails";
import { StatusBadge } from "../../components/EmailTable";
import { LoadError, Loading } from "../../components/QueryState";
import { formatTime } from "../../lib/format";
import { EmailTimeline } from "./EmailTimeline";
import { PageHeader } from "../../components/PageHeader";

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Stack gap={2}>
      <Text size="sm" c="dimmed">
        {label}
      </Text>
      <Text component="div" style={{ overflowWrap: "anywhere" }}>
        {children}
      </Text>
    </Stack>
  );
}

export function EmailPage() {
  const id = useParams().id ?? "";
  const email = useEmail(id);

  if (email.isPending) return <Loading />;
  if (email.isError) return <LoadError error={email.error} onRetry={() => email.refetch()} />;
  const e = email.data;

  return (
    <Stack gap="lg">
      <PageHeader title={e.subject || "(no subject)"} back={{ to: "/emails", label: "All emails" }} actions={<StatusBadge status={e.status} />} />
      <SimpleGrid cols={{ base: 1, sm: 3 }}>
        <Field label="To">
          {e.contactId ? (
            <Anchor component={Link} to={`/contacts/${encodeURIComponent(e.contactId)}`}>
              {e.to}
            </Anchor>
          ) : (
            e.to
          )}
        </Field>
        <Field label="From">{e.from}</Field>
        <Field label="Source">{e.sourceType.toLowerCase()}</Field>
        <Field label="Created">{formatTime(e.createdAt)}</Field>
        <Field label="Sent">{formatTime(e.sentAt)}</Field>
        <Field label="Opens / clicks">
          {e.opens} / {e.clicks}
        </Field>
        {e.campaignId && (
          <Field label="Campaign">
            <Anchor component={Link} to={`/emails?campaignId=${encodeURIComponent(e.campaignId)}`}>
              {e.campaignId}
            </Anchor>
          </Field>
        )}
        <Field label="Message-ID">{e.messageId ?? "—"}</Field>
        <Field label="ID">{e.id}</Field>
      </SimpleGrid>
      <EmailTimeline id={e.id} />
    </Stack>
  );
}
