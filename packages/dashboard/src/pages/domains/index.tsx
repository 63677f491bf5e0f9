import { Anchor, Stack, Text } from "@mantine/core";
import { useSearchParams } from "react-router";
import { useDomains } from "../../api/domains";
import { useCan } from "../../components/Can";
import { QueryTable } from "../../components/DataTable";
import { PageHeader } from "../../components/PageHeader";
import { AddDomainForm } from "./AddDomainForm";
import { DomainDrawer } from "./DomainDrawer";
import { DomainStatusBadge } from "./DomainStatusBadge";

/** Sending domains: the list, adding one (owners), and one domain's DNS records in a drawer (`?domain=<id>`). */
export default function DomainsPage() {
  const domains = useDomains();
  const [params, setParams] = useSearchParams();
  const openId = params.get("domain");
  const isOwner = useCan("owner");
  const open = (id: string | null) => setParams(id ? { domain: id } : {});

  return (
    <Stack>
      <PageHeader
        title="Domains"
        description="Mail is sent only from addresses on a verified domain. Add the domain, publish its DNS records, then verify."
      />
      {isOwner ? <AddDomainForm onAdded={(d) => open(d.id)} /> : <Text size="sm">Only a project owner can add, verify or delete domains.</Text>}
      <QueryTable
        label="Domains"
        query={domains}
        empty={<Text>No domains yet.</Text>}
        minWidth={420}
        columns={[
          {
            header: "Domain",
            cell: (d) => (
              <Anchor component="button" type="button" onClick={() => open(d.id)}>
                {d.domain}
              </Anchor>
            ),
          },
          { header: "Status", cell: (d) => <DomainStatusBadge status={d.status} /> },
          { header: "Added", cell: (d) => new Date(d.createdAt).toLocaleDateString() },
        ]}
      />
      <DomainDrawer id={openId} onClose={() => open(null)} />
    </Stack>
  );
}
