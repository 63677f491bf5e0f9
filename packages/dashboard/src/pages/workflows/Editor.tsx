import { connectionProblem, type GraphEdge, outputOf, STEP_LABELS, STEP_TYPES, type Workflow } from "@mailroom/contracts";
import { Box, Button, Grid, Group, Paper, ScrollArea, Stack, Text } from "@mantine/core";
import { notifications } from "@mantine/notifications";
import { ReactFlowProvider } from "@xyflow/react";
import { useCallback, useDeferredValue, useState } from "react";
import type { ApiError } from "../../api/errors";
import {
  useCreateTransitionMutation,
  useDeleteStepMutation,
  useDeleteTransitionMutation,
  useUpdateStepMutation,
} from "../../api/workflows";
import { useCan } from "../../components/Can";
import { notifyError } from "../../components/errors";
import { Canvas, STEP_DRAG_TYPE, type Selection } from "./Canvas";
import { newStepPosition } from "./graph";
import { LockBanner, useLock } from "./LockBanner";
import { SettingsPanel } from "./SettingsPanel";
import type { EditableType } from "./step-config";
import { Connections, NewStepPanel, StepPanel } from "./StepPanel";

const PALETTE = STEP_TYPES.filter((t): t is EditableType => t !== "TRIGGER");

/** The workflow's graph on a canvas with a palette above and the selected thing's side panel beside. */
export function Editor({ workflow }: { workflow: Workflow }) {
  const canEdit = useCan("editor");
  const lock = useLock(workflow.id);
  const [selection, setSelection] = useState<Selection>(null);
  // a step being added: its type, and where it was dropped when dragged from the palette
  const [adding, setAdding] = useState<{ type: EditableType; position?: { x: number; y: number } } | null>(null);
  const createTransition = useCreateTransitionMutation();
  const deleteTransition = useDeleteTransitionMutation();
  const deleteStep = useDeleteStepMutation();
  const updateStep = useUpdateStepMutation();
  // The side panel (forms, selects) renders just after the canvas, not before its first frame.
  const panelReady = useDeferredValue(true, false);

  // A 409 WORKFLOW_LOCKED says why (lib/errors.ts); the banner is brought up to date at once.
  const structuralError = useCallback(
    (err: ApiError) => {
      notifyError(err);
      void lock.refetch();
    },
    [lock],
  );

  const connect = useCallback(
    (edge: GraphEdge) => {
      const problem = connectionProblem(workflow, edge);
      if (problem) {
        notifications.show({ color: "red", title: "That connection is not possible", message: problem });
        return;
      }
      createTransition.mutate({ params: { id: workflow.id }, body: edge }, { onError: structuralError });
    },
    [workflow, createTransition, structuralError],
  );
  const move = useCallback(
    (stepId: string, position: { x: number; y: number }) =>
      updateStep.mutate({ params: { id: workflow.id, stepId }, body: { position } }, { onError: notifyError }),
    [workflow.id, updateStep],
  );
  const remove = useCallback(
    (stepIds: string[], transitionIds: string[]) => {
      // a deleted step takes its transitions with it
      const edges = transitionIds.filter((t) => {
        const e = workflow.transitions.find((x) => x.id === t);
        return e && !stepIds.includes(e.fromStepId) && !stepIds.includes(e.toStepId);
      });
      for (const transitionId of edges) deleteTransition.mutate({ params: { id: workflow.id, transitionId } }, { onError: structuralError });
      for (const stepId of stepIds) deleteStep.mutate({ params: { id: workflow.id, stepId }, query: {} }, { onError: structuralError });
      setSelection(null);
    },
    [workflow, deleteTransition, deleteStep, structuralError],
  );

  const selectedStep = selection?.kind === "step" ? workflow.steps.find((s) => s.id === selection.id) : undefined;
  const selectedEdge = selection?.kind === "edge" ? workflow.transitions.find((t) => t.id === selection.id) : undefined;
  const name = (id: string) => workflow.steps.find((s) => s.id === id)?.name ?? id;

  let panel: React.ReactNode;
  if (adding) {
    panel = (
      <NewStepPanel
        key={adding.type}
        workflow={workflow}
        type={adding.type}
        position={adding.position ?? newStepPosition(workflow.steps, workflow.transitions, selectedStep?.id ?? null)}
        onAdded={(step) => (setAdding(null), setSelection({ kind: "step", id: step.id }))}
        onCancel={() => setAdding(null)}
      />
    );
  } else if (selectedStep && selectedStep.type !== "TRIGGER") {
    panel = (
      <StepPanel
        key={selectedStep.id}
        workflow={workflow}
        step={selectedStep}
        canEdit={canEdit}
        onConnect={connect}
        onDelete={() => remove([selectedStep.id], [])}
        onDeleteEdge={(t) => remove([], [t])}
      />
    );
  } else if (selectedEdge) {
    const label = outputOf(selectedEdge);
    panel = (
      <Stack gap="sm">
        <Text fw={600}>
          {name(selectedEdge.fromStepId)} → {name(selectedEdge.toStepId)}
          {label !== "next" && ` (${label})`}
        </Text>
        {canEdit && (
          <Group>
            <Button color="red.9" onClick={() => remove([], [selectedEdge.id])}>
              Delete connection
            </Button>
          </Group>
        )}
      </Stack>
    );
  } else {
    const trigger = workflow.steps.find((s) => s.type === "TRIGGER");
    panel = (
      <Stack gap="lg">
        <SettingsPanel key={workflow.updatedAt} workflow={workflow} canEdit={canEdit} />
        {trigger && <Connections workflow={workflow} step={trigger} canEdit={canEdit} onConnect={connect} onDeleteEdge={(t) => remove([], [t])} />}
      </Stack>
    );
  }

  return (
    <Stack gap="sm">
      <LockBanner workflowId={workflow.id} lock={lock} canEdit={canEdit} />
      {canEdit && (
        <Group gap="xs" role="toolbar" aria-label="Add a step">
          <Text size="sm" fw={500}>
            Add a step:
          </Text>
          {PALETTE.map((t) => (
            <Button
              key={t}
              size="compact-sm"
              variant={adding?.type === t ? "filled" : "default"}
              onClick={() => setAdding({ type: t })}
              draggable
              onDragStart={(e: React.DragEvent) => {
                e.dataTransfer.setData(STEP_DRAG_TYPE, t);
                e.dataTransfer.effectAllowed = "copy";
              }}
            >
              {STEP_LABELS[t]}
            </Button>
          ))}
        </Group>
      )}
      <Grid>
        <Grid.Col span={{ base: 12, md: 8 }}>
          <Paper withBorder h={620}>
            <ReactFlowProvider>
              <Canvas
                workflow={workflow}
                editable={canEdit}
                selection={selection}
                onSelect={(s) => (setAdding(null), setSelection(s))}
                onConnect={connect}
                onMove={move}
                onDelete={remove}
                onDropStep={(type, position) => setAdding({ type, position })}
              />
            </ReactFlowProvider>
          </Paper>
          <Text size="xs" c="dimmed" mt={4}>
            Drag a step from the palette onto the canvas to place it, or click it to add it below the selected step. Drag from a step's output (bottom) to
            another step's input (top) to connect them. Select a step or a connection and press Delete to remove it.
          </Text>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 4 }}>
          <ScrollArea.Autosize mah={660} type="auto">
            <Box pr="sm" component="section" aria-label="Side panel">
              {panelReady && panel}
            </Box>
          </ScrollArea.Autosize>
        </Grid.Col>
      </Grid>
    </Stack>
  );
}
