import { Alert, Button, Group, Text } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { useState } from "react";
import { useCancelAllMutation, useExecutionsIn } from "../../api/workflows";
import { ConfirmModal } from "../../components/ConfirmModal";
import { notifyError } from "../../components/errors";

const POLL_MS = 3000;

/** How many executions lock the graph now (the ACTIVE_EXECUTION_STATUSES) ("100+" past one page), polled while the page is open. */
export function useLock(workflowId: string) {
  const running = useExecutionsIn(workflowId, "RUNNING", POLL_MS);
  const waiting = useExecutionsIn(workflowId, "WAITING", POLL_MS);
  const count = (q: typeof running) => (q.data ? `${q.data.data.length}${q.data.hasMore ? "+" : ""}` : "0");
  const locked = Boolean(running.data?.data.length || waiting.data?.data.length);
  return { locked, running: count(running), waiting: count(waiting), refetch: () => Promise.all([running.refetch(), waiting.refetch()]) };
}

/**
 * Why the graph cannot change right now (decisions §11: structural edits while executions are RUNNING
 * or WAITING answer 409 WORKFLOW_LOCKED), what still can, and the way out: cancel them all.
 */
export function LockBanner({ workflowId, lock, canEdit }: { workflowId: string; lock: ReturnType<typeof useLock>; canEdit: boolean }) {
  const cancelAll = useCancelAllMutation();
  const [confirming, setConfirming] = useState(false);
  if (!lock.locked) return null;
  const cancel = () =>
    cancelAll.mutate(
      { params: { id: workflowId } },
      {
        onSuccess: (r) => {
          setConfirming(false);
          notifications.show({ color: "teal.9", message: `Cancelled ${r.cancelled} execution${r.cancelled === 1 ? "" : "s"}` });
          void lock.refetch();
        },
        onError: (err) => (setConfirming(false), notifyError(err)),
      },
    );
  return (
    // Mantine's yellow title is 2.7:1 on its light background: the title takes the text colour instead
    <Alert color="yellow" title="The graph is locked while executions are active" role="status" styles={{ title: { color: "var(--mantine-color-text)" } }}>
      <Group justify="space-between" align="flex-end">
        <Text size="sm" maw={640}>
          {lock.running} running, {lock.waiting} waiting. Adding or deleting steps and connections, or changing the trigger, is refused until
          they finish or are cancelled, so no execution is left on a step that no longer exists. Step settings and names can still be changed.
        </Text>
        {canEdit && (
          <Button color="red.9" onClick={() => setConfirming(true)}>
            Cancel all
          </Button>
        )}
      </Group>
      <ConfirmModal
        opened={confirming}
        title="Cancel every active execution?"
        message="Each running or waiting execution stops where it is and is marked CANCELLED."
        confirmLabel="Cancel all executions"
        loading={cancelAll.isPending}
        onClose={() => setConfirming(false)}
        onConfirm={cancel}
      />
    </Alert>
  );
}
