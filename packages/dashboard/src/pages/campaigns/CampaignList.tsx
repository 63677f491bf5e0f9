import { CAMPAIGN_STATUSES, CampaignStatus } from "@mailroom/contracts";
import { SegmentedControl, Stack } from "@mantine/core";
import { useSearchParams } from "react-router";
import { useCampaigns } from "../../api/campaigns";
import { nameColumn, QueryTable } from "../../components/DataTable";
import { NewButton, PageHeader } from "../../components/PageHeader";
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
  const go = (next: { status?: string; page?: number }) => {
    const s = next.status ?? status ?? ANY;
    setParams({ ...(s === ANY ? {} : { status: s }), page: String(next.page ?? 1) }, { replace: true });
  };

  return (
    <Stack>
      <PageHeader title="Campaigns" actions={<NewButton to="new">New campaign</NewButton>} />
      <SegmentedControl
        aria-label="Status"
        value={status ?? ANY}
        onChange={(v) => go({ status: v })}
        data={[{ value: ANY, label: "All" }, ...CAMPAIGN_STATUSES.map((s) => ({ value: s, label: s[0] + s.slice(1).toLowerCase() }))]}
        w="fit-content"
      />
      <QueryTable
        label="Campaigns"
        query={campaigns}
        rows={(d) => d.campaigns}
        empty={status ? `No ${status.toLowerCase()} campaign.` : "No campaign yet. A campaign sends one email to every subscribed contact of its audience."}
        onPage={(p) => go({ page: p })}
        minWidth={640}
        columns={[
          nameColumn(),
          { header: "Status", cell: (c) => <CampaignStatusBadge status={c.status} /> },
          { header: "Recipients", cell: (c) => (c.status === "DRAFT" || c.status === "SCHEDULED" ? "—" : c.stats.recipients.toLocaleString()) },
          { header: "When", cell: (c) => formatTime(c.sentAt ?? c.scheduledAt ?? c.updatedAt) },
        ]}
      />
    </Stack>
  );
}
