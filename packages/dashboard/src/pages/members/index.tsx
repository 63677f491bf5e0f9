import type { Member, Role } from "@mailroom/contracts";
import { Badge, Button, Select, Stack, Text } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useState } from "react";
import { useMembers, useRemoveMemberMutation, useUpdateMemberMutation } from "../../api/members";
import { useCurrentProject } from "../../api/session";
import { useCan } from "../../components/Can";
import { ConfirmModal } from "../../components/ConfirmModal";
import { notifyError } from "../../components/errors";
import { QueryTable } from "../../components/DataTable";
import { PageHeader } from "../../components/PageHeader";
import { InviteMemberForm } from "./InviteMemberForm";
import { ROLE_LABELS, ROLE_OPTIONS } from "./roles";

export default function MembersPage() {
  const project = useCurrentProject();
  const owner = useCan("owner");
  const members = useMembers();
  const update = useUpdateMemberMutation();
  const remove = useRemoveMemberMutation();
  const [removing, setRemoving] = useState<Member | null>(null);

  const changeRole = (m: Member, role: string | null) => {
    if (!role || role === m.role) return;
    update.mutate(
      { params: { id: project?.id ?? "", userId: m.userId }, body: { role: role as Role } },
      { onSuccess: () => notifications.show({ color: "green", message: `${m.email} is now ${role}` }), onError: notifyError },
    );
  };

  const confirmRemove = () =>
    removing &&
    remove.mutate(
      { params: { id: project?.id ?? "", userId: removing.userId } },
      {
        onSuccess: () => setRemoving(null),
        onError: (err) => {
          setRemoving(null);
          notifyError(err);
        },
      },
    );

  return (
    <Stack>
      <PageHeader title="Members" description={`${ROLE_LABELS.owner}. ${ROLE_LABELS.editor}. ${ROLE_LABELS.viewer}.`} />
      {owner && <InviteMemberForm />}
      <QueryTable
        label="Members"
        query={members}
        rowKey={(m) => m.userId}
        minWidth={640}
        tableProps={{ highlightOnHover: false }}
        columns={[
          { header: "Name", cell: (m) => (m.pending ? <Badge color="gray.7">Invitation pending</Badge> : m.name) },
          { header: "Email", cell: (m) => m.email },
          {
            header: "Role",
            cell: (m) =>
              owner && !m.pending ? (
                <Select aria-label={`Role of ${m.email}`} data={ROLE_OPTIONS} value={m.role} onChange={(role) => changeRole(m, role)} allowDeselect={false} w={140} />
              ) : (
                <Text tt="capitalize">{m.role}</Text>
              ),
          },
          {
            header: "Actions",
            hideHeader: true,
            cell: (m) =>
              owner && (
                <Button size="xs" variant="default" aria-label={`Remove ${m.email}`} onClick={() => setRemoving(m)}>
                  {m.pending ? "Withdraw" : "Remove"}
                </Button>
              ),
          },
        ]}
      />
      <ConfirmModal
        opened={removing !== null}
        title={removing?.pending ? "Withdraw this invitation?" : "Remove this member?"}
        message={
          removing?.pending
            ? `The invitation link sent to ${removing.email} stops working.`
            : `${removing?.email} loses access to this project at once. Their account stays, with its other projects.`
        }
        confirmLabel={removing?.pending ? "Withdraw" : "Remove"}
        loading={remove.isPending}
        onConfirm={confirmRemove}
        onClose={() => setRemoving(null)}
      />
    </Stack>
  );
}
