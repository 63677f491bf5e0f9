import { CAMPAIGN_STATUSES, type Campaign, CampaignStatus } from "@mailroom/contracts";
import { Anchor, Button, Group, Pagination, SegmentedControl, Stack, Table, Title } from "@mantine/core";
import { Link, useSearchParams } from "react-router";
import { useCampaigns } from "../../api/campaigns";
import { useCan } from "../../components/Can";
import { Empty } from "../../components/QueryState";
import { QueryStatus } from "../../components/QueryStatus";
import { formatTime } from "../../lib/format";
import { CampaignStatusBadge } from "./StatusBadge";

const ANY = "ANY";

/** The campaigns, newest first, filtered by status; the filter and page live in the URL. */
export function CampaignList() {
  const [params, setParams] = useSearchParams();
  const parsed = CampaignStatus.safeParse(params.get("status") ?? undefined);
  const status = parsed.success ? parsed.data : undefined;
  const page = Math.max(1, Number(params.get("page")) || 1);
  const campaigns = useCampaigns(status, page);
  const canEdit = useCan("editor");
  const go = (next: { status?: string; page?: number }) => {
    const s = next.status ?? status ?? ANY;
    setParams({ ...(s === ANY ? {} : { status: s }), page: String(next.page ?? 1) }, { replace: true });
  };

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>Campaigns</Title>
        {canEdit && (
          <Button component={Link} to="new">
            New campaign
          </Button>
        )}
      </Group>
      <SegmentedControl
        aria-label="Status"
        value={status ?? ANY}
        onChange={(v) => go({ status: v })}
        data={[{ value: ANY, label: "All" }, ...CAMPAIGN_STATUSES.map((s) => ({ value: s, label: s[0] + s.slice(1).toLowerCase() }))]}
        w="fit-content"
      />
      <QueryStatus query={campaigns} what="campaigns">
        {() => {
          const data = campaigns.data!;
          if (data.campaigns.length === 0) {
            return <Empty>{status ? `No ${status.toLowerCase()} campaign.` : "No campaign yet. A campaign sends one email to every subscribed contact of its audience."}</Empty>;
          }
          return (
            <>
              <CampaignTable campaigns={data.campaigns} />
              {data.totalPages > 1 && <Pagination total={data.totalPages} value={data.page} onChange={(p) => go({ page: p })} aria-label="Pages" />}
            </>
          );
        }}
      </QueryStatus>
    </Stack>
  );
}

function CampaignTable({ campaigns }: { campaigns: Campaign[] }) {
  return (
    <Table.ScrollContainer minWidth={640}>
      <Table striped highlightOnHover aria-label="Campaigns">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th>
            <Table.Th>Status</Table.Th>
            <Table.Th>Recipients</Table.Th>
            <Table.Th>When</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {campaigns.map((c) => (
            <Table.Tr key={c.id}>
              <Table.Td>
                <Anchor component={Link} to={c.id}>
                  {c.name}
                </Anchor>
              </Table.Td>
              <Table.Td>
                <CampaignStatusBadge status={c.status} />
              </Table.Td>
              <Table.Td>{c.status === "DRAFT" || c.status === "SCHEDULED" ? "—" : c.stats.recipients.toLocaleString()}</Table.Td>
              <Table.Td>{formatTime(c.sentAt ?? c.scheduledAt ?? c.updatedAt)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
