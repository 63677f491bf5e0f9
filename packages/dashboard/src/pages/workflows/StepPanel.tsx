import { edgeFields, type GraphEdge, type Output, outputOf, outputsOf, type Step, STEP_LABELS, StepName, type Workflow } from "@mailroom/contracts";
import { Button, Group, Select, Stack, Text, TextInput, Title } from "@mantine/core";
import { useForm } from "@mantine/form";
import { notifications } from "@mantine/notifications";
import { useState } from "react";
import { useCreateStepMutation, useUpdateStepMutation } from "../../api/workflows";
import { showFormError } from "../../components/errors";
import { type EditableType, toConfig, toEditing } from "./step-config";
import { StepConfigFields } from "./StepConfigFields";

function useStepForm(type: EditableType, step: Step | null) {
  return useForm({
    initialValues: { name: step?.name ?? STEP_LABELS[type], config: toEditing(type, (step?.config ?? {}) as Record<string, unknown>) },
    validate: (values) => {
      const errors: Record<string, string> = {};
      const name = StepName.safeParse(values.name);
      if (!name.success) errors.name = name.error.issues[0]!.message;
      const checked = toConfig(type, values.config);
      return "errors" in checked ? { ...errors, ...checked.errors } : errors;
    },
  });
}

/** A new step from the palette: configured here first, since its config must be valid to exist. */
export function NewStepPanel({ workflow, type, position, onAdded, onCancel }: {
  workflow: Workflow;
  type: EditableType;
  position: { x: number; y: number };
  onAdded: (step: Step) => void;
  onCancel: () => void;
}) {
  const form = useStepForm(type, null);
  const create = useCreateStepMutation();
  const submit = form.onSubmit((values) => {
    const checked = toConfig(type, values.config);
    if (!("config" in checked)) return;
    create.mutate(
      { params: { id: workflow.id }, body: { type, name: values.name, config: checked.config, position } as never },
      { onSuccess: onAdded, onError: (err) => showFormError(form, err) },
    );
  });
  return (
    <form onSubmit={submit} noValidate aria-label={`New ${STEP_LABELS[type]} step`}>
      <Stack gap="sm">
        <Title order={3} size="h4">
          New step: {STEP_LABELS[type]}
        </Title>
        <TextInput label="Step name" required {...form.getInputProps("name")} />
        <StepConfigFields type={type} form={form} readOnly={false} />
        <Group>
          <Button type="submit" loading={create.isPending}>
            Add step
          </Button>
          <Button variant="default" onClick={onCancel}>
            Cancel
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

/** A step of the graph: its name and config (editable even while executions lock the graph), its connections. */
export function StepPanel({ workflow, step, canEdit, onConnect, onDelete, onDeleteEdge }: {
  workflow: Workflow;
  step: Step;
  canEdit: boolean;
  onConnect: (edge: GraphEdge) => void;
  onDelete: () => void;
  onDeleteEdge: (transitionId: string) => void;
}) {
  const type = step.type as EditableType;
  const form = useStepForm(type, step);
  const update = useUpdateStepMutation();
  const submit = form.onSubmit((values) => {
    const checked = toConfig(type, values.config);
    if (!("config" in checked)) return;
    update.mutate(
      { params: { id: workflow.id, stepId: step.id }, body: { name: values.name, config: checked.config } },
      { onSuccess: (s) => (notifications.show({ color: "teal.9", message: `Saved ${s.name}` }), form.resetDirty()), onError: (err) => showFormError(form, err) },
    );
  });
  return (
    <Stack gap="md">
      <form onSubmit={submit} noValidate aria-label={`Step ${step.name}`}>
        <Stack gap="sm">
          <Title order={3} size="h4">
            {STEP_LABELS[step.type]}: {step.name}
          </Title>
          <TextInput label="Step name" required readOnly={!canEdit} {...form.getInputProps("name")} />
          <StepConfigFields type={type} form={form} readOnly={!canEdit} />
          {canEdit && (
            <Group>
              <Button type="submit" loading={update.isPending}>
                Save step
              </Button>
              <Button variant="default" color="red.9" onClick={onDelete}>
                Delete step
              </Button>
            </Group>
          )}
        </Stack>
      </form>
      <Connections workflow={workflow} step={step} canEdit={canEdit} onConnect={onConnect} onDeleteEdge={onDeleteEdge} />
    </Stack>
  );
}

/** The step's outgoing connections, and a way to add one without dragging (keyboard users). */
export function Connections({ workflow, step, canEdit, onConnect, onDeleteEdge }: {
  workflow: Workflow;
  step: Step;
  canEdit: boolean;
  onConnect: (edge: GraphEdge) => void;
  onDeleteEdge: (transitionId: string) => void;
}) {
  const outputs = outputsOf(step.type);
  const [output, setOutput] = useState<Output | null>(outputs[0] ?? null);
  const [target, setTarget] = useState<string | null>(null);
  const out = workflow.transitions.filter((t) => t.fromStepId === step.id);
  const name = (id: string) => workflow.steps.find((s) => s.id === id)?.name ?? id;
  if (outputs.length === 0) return null;
  return (
    <Stack gap="xs">
      <Title order={4} size="h5">
        Next steps
      </Title>
      {out.length === 0 && <Text size="sm">None yet: drag from an output handle to a step, or connect here.</Text>}
      {out.map((t) => (
        <Group key={t.id} justify="space-between" wrap="nowrap">
          <Text size="sm">
            {outputOf(t) === "next" ? "" : `${outputOf(t)} → `}
            {name(t.toStepId)}
          </Text>
          {canEdit && (
            <Button size="compact-xs" variant="default" onClick={() => onDeleteEdge(t.id)} aria-label={`Delete the connection to ${name(t.toStepId)}`}>
              Delete
            </Button>
          )}
        </Group>
      ))}
      {canEdit && (
        <Group align="flex-end" gap="xs">
          {outputs.length > 1 && <Select label="Output" data={outputs} value={output} onChange={(v) => setOutput(v as Output)} allowDeselect={false} w={110} />}
          <Select
            label="Connect to"
            data={workflow.steps.filter((s) => s.id !== step.id && s.type !== "TRIGGER").map((s) => ({ value: s.id, label: s.name }))}
            value={target}
            onChange={setTarget}
            w={160}
          />
          <Button variant="default" disabled={!target || !output} onClick={() => target && output && onConnect({ fromStepId: step.id, toStepId: target, ...edgeFields(output) })}>
            Connect
          </Button>
        </Group>
      )}
    </Stack>
  );
}
