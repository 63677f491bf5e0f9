import type { Domain } from "@mailroom/contracts";
import { Anchor, Stack, Table, Text, Title } from "@mantine/core";
import { useSearchParams } from "react-router";
import { useDomains } from "../../api/domains";
import { useCan } from "../../components/Can";
import { QueryStatus } from "../../components/QueryStatus";
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
      <Title order={2}>Domains</Title>
      <Text c="dimmed" size="sm">
        Mail is sent only from addresses on a verified domain. Add the domain, publish its DNS records, then verify.
      </Text>
      {isOwner ? <AddDomainForm onAdded={(d) => open(d.id)} /> : <Text size="sm">Only a project owner can add, verify or delete domains.</Text>}
      <QueryStatus query={domains} what="domains">
        {() => <DomainTable domains={domains.data?.data ?? []} onOpen={open} />}
      </QueryStatus>
      <DomainDrawer id={openId} onClose={() => open(null)} />
    </Stack>
  );
}

function DomainTable({ domains, onOpen }: { domains: Domain[]; onOpen: (id: string) => void }) {
  if (domains.length === 0) return <Text>No domains yet.</Text>;
  return (
    <Table striped highlightOnHover aria-label="Domains">
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Domain</Table.Th>
          <Table.Th>Status</Table.Th>
          <Table.Th>Added</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {domains.map((d) => (
          <Table.Tr key={d.id}>
            <Table.Td>
              <Anchor component="button" type="button" onClick={() => onOpen(d.id)}>
                {d.domain}
              </Anchor>
            </Table.Td>
            <Table.Td>
              <DomainStatusBadge status={d.status} />
            </Table.Td>
            <Table.Td>{new Date(d.createdAt).toLocaleDateString()}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
