import { type Member, ROLES, type Role } from "@mailroom/contracts";
import { Alert, Badge, Button, Loader, Select, Stack, Table, Text, Title, VisuallyHidden } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useState } from "react";
import { useMembers, useUpdateMemberMutation } from "../../api/members";
import { useCurrentProject } from "../../api/session";
import { useCan } from "../../components/Can";
import { notifyError } from "../../components/errors";
import { InviteMemberForm } from "./InviteMemberForm";
import { RemoveMemberModal } from "./RemoveMemberModal";

export const ROLE_LABELS: Record<Role, string> = {
  owner: "Owner: everything, including members, keys, domains and settings",
  editor: "Editor: contacts, templates, campaigns, segments, workflows, sending",
  viewer: "Viewer: read only",
};
const roleOptions = ROLES.map((r) => ({ value: r, label: r[0]!.toUpperCase() + r.slice(1) }));

export default function MembersPage() {
  const project = useCurrentProject();
  const owner = useCan("owner");
  const members = useMembers();
  const update = useUpdateMemberMutation();
  const [removing, setRemoving] = useState<Member | null>(null);

  const changeRole = (m: Member, role: string | null) => {
    if (!role || role === m.role) return;
    update.mutate(
      { params: { id: project?.id ?? "", userId: m.userId }, body: { role: role as Role } },
      { onSuccess: () => notifications.show({ color: "green", message: `${m.email} is now ${role}` }), onError: notifyError },
    );
  };

  return (
    <Stack>
      <Title order={2}>Members</Title>
      <Text c="dimmed" size="sm">
        {ROLE_LABELS.owner}. {ROLE_LABELS.editor}. {ROLE_LABELS.viewer}.
      </Text>
      {owner && <InviteMemberForm />}
      {members.isPending && <Loader aria-label="Loading members" />}
      {members.isError && <Alert color="red" title="Could not load the members">{members.error.message}</Alert>}
      {members.data && (
        <Table striped aria-label="Members">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>Email</Table.Th>
              <Table.Th>Role</Table.Th>
              <Table.Th>
                <VisuallyHidden>Actions</VisuallyHidden>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {members.data.data.map((m) => (
              <Table.Tr key={m.userId}>
                <Table.Td>
                  {m.pending ? (
                    <Badge color="gray.7">
                      Invitation pending
                    </Badge>
                  ) : (
                    m.name
                  )}
                </Table.Td>
                <Table.Td>{m.email}</Table.Td>
                <Table.Td>
                  {owner && !m.pending ? (
                    <Select
                      aria-label={`Role of ${m.email}`}
                      data={roleOptions}
                      value={m.role}
                      onChange={(role) => changeRole(m, role)}
                      allowDeselect={false}
                      w={140}
                    />
                  ) : (
                    <Text tt="capitalize">{m.role}</Text>
                  )}
                </Table.Td>
                <Table.Td>
                  {owner && (
                    <Button size="xs" variant="default" aria-label={`Remove ${m.email}`} onClick={() => setRemoving(m)}>
                      {m.pending ? "Withdraw" : "Remove"}
                    </Button>
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      <RemoveMemberModal member={removing} onClose={() => setRemoving(null)} />
    </Stack>
  );
}
