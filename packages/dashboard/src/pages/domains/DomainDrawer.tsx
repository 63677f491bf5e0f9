import type { DnsRecord, Domain } from "@mailroom/contracts";
import { Button, Code, CopyButton, Drawer, Group, Stack, Switch, Text } from "@mantine/core";
import { useState } from "react";
import { useDeleteDomainMutation, useDomain, useUpdateDomainMutation, useVerifyDomainMutation } from "../../api/domains";
import { useCan } from "../../components/Can";
import { ConfirmModal } from "../../components/ConfirmModal";
import { DataTable } from "../../components/DataTable";
import { notifyError } from "../../components/errors";
import { QueryStatus } from "../../components/QueryStatus";
import { DomainStatusBadge } from "./DomainStatusBadge";

/** One domain: the records to publish, each copyable, what the last lookup found, verify and delete. */
export function DomainDrawer({ id, onClose }: { id: string | null; onClose: () => void }) {
  const domain = useDomain(id);
  return (
    <Drawer opened={id !== null} onClose={onClose} position="right" size="xl" closeButtonProps={{ "aria-label": "Close" }} title={domain.data?.domain ?? "Domain"}>
      {id !== null && (
        <QueryStatus query={domain} what="the domain">
          {() => domain.data && <DomainDetails domain={domain.data} onDeleted={onClose} />}
        </QueryStatus>
      )}
    </Drawer>
  );
}

function DomainDetails({ domain, onDeleted }: { domain: Domain; onDeleted: () => void }) {
  const verify = useVerifyDomainMutation();
  const remove = useDeleteDomainMutation();
  const update = useUpdateDomainMutation();
  const [confirming, setConfirming] = useState(false);
  const isOwner = useCan("owner");
  const checked = domain.records.some((r) => r.found !== undefined);

  return (
    <Stack>
      <Group>
        <DomainStatusBadge status={domain.status} />
        {domain.verifiedAt && <Text size="sm">Verified {new Date(domain.verifiedAt).toLocaleString()}</Text>}
      </Group>
      <Text size="sm">
        Create these records at your DNS provider. The DKIM record is what verifies the domain; SPF and DMARC are recommended.
      </Text>
      <RecordTable records={domain.records} />
      {!checked && <Text size="sm">Not looked up yet: verify once the records are published.</Text>}
      <Switch
        label="Warm-up"
        description="A new domain's mail is capped at 50 per mailbox provider on its first day, doubling each day with few bounces and complaints; mail over the cap waits for the next day."
        checked={domain.warmup}
        disabled={!isOwner || update.isPending}
        onChange={(e) => update.mutate({ params: { id: domain.id }, body: { warmup: e.currentTarget.checked } }, { onError: notifyError })}
      />
      {isOwner && (
        <Group>
          <Button loading={verify.isPending} onClick={() => verify.mutate({ params: { id: domain.id } }, { onError: notifyError })}>
            Verify
          </Button>
          <Button color="red.9" variant="outline" onClick={() => setConfirming(true)}>
            Delete domain
          </Button>
        </Group>
      )}
      <ConfirmModal
          opened={confirming}
          title={`Delete ${domain.domain}?`}
          message="Mail can no longer be sent from this domain until it is added and verified again, with new DNS records."
          confirmLabel="Delete"
          loading={remove.isPending}
          onClose={() => setConfirming(false)}
          onConfirm={() =>
            remove.mutate(
              { params: { id: domain.id } },
              {
                onSuccess: () => {
                  setConfirming(false);
                  onDeleted();
                },
                onError: notifyError,
              },
            )
          }
        />
    </Stack>
  );
}

const PURPOSE = { dkim: "DKIM", spf: "SPF", dmarc: "DMARC" } as const;

function RecordTable({ records }: { records: DnsRecord[] }) {
  return (
    <DataTable
      label="DNS records"
      rows={records}
      rowKey={(r) => `${r.purpose}-${r.name}`}
      tableProps={{ layout: "fixed", verticalSpacing: "sm", striped: false, highlightOnHover: false }}
      columns={[
        { header: "Record", width: 90, cell: (r) => `${PURPOSE[r.purpose]} (${r.type})` },
        { header: "Name", cell: (r) => <Copyable value={r.name} label={`Copy ${PURPOSE[r.purpose]} record name`} /> },
        { header: "Value", cell: (r) => <Copyable value={r.value} label={`Copy ${PURPOSE[r.purpose]} record value`} /> },
        { header: "Lookup", width: 90, cell: (r) => (r.found === undefined ? "Not checked" : r.found ? "Found" : "Missing") },
      ]}
    />
  );
}

function Copyable({ value, label }: { value: string; label: string }) {
  return (
    <Stack gap={4} align="flex-start">
      <Code block style={{ wordBreak: "break-all", whiteSpace: "pre-wrap", maxWidth: "100%" }}>
        {value}
      </Code>
      <CopyButton value={value}>
        {({ copied, copy }) => (
          <Button size="compact-xs" variant="default" aria-label={label} onClick={copy}>
            {copied ? "Copied" : "Copy"}
          </Button>
        )}
      </CopyButton>
    </Stack>
  );
}
