import { FILTER_OPERATORS, type FilterExpression, NO_VALUE_OPERATORS, TIME_OPERATORS, TIME_UNITS } from "@mailroom/contracts";
import { Button, Group, JsonInput, NumberInput, Select, Stack, Text, TextInput } from "@mantine/core";
import type { UseFormReturnType } from "@mantine/form";
import { useTemplates } from "../../api/templates";
import { FilterBuilder } from "../../components/filter-builder";
import { EventNameInput } from "./EventNameInput";
import { type EditableType, type Editing, shortFormToExpression } from "./step-config";

export type StepForm = UseFormReturnType<{ name: string; config: Editing }>;

const UNIT_OPTIONS = TIME_UNITS.map((u) => ({ value: u, label: u }));

/** The fields of one step type's config; their names are the config's keys, so errors land on them. */
export function StepConfigFields(props: { type: EditableType; form: StepForm; readOnly: boolean }) {
  // an error about the config as a whole (the API's `config` path) has no one field to sit on
  const whole = props.form.errors.config;
  return (
    <>
      <Fields {...props} />
      {whole && (
        <Text size="sm" c="red.9" role="alert">
          {whole}
        </Text>
      )}
    </>
  );
}

function Fields({ type, form, readOnly }: { type: EditableType; form: StepForm; readOnly: boolean }) {
  const field = (key: string) => form.getInputProps(`config.${key}`);
  switch (type) {
    case "SEND_EMAIL":
      return (
        <Stack gap="xs">
          <TemplateSelect readOnly={readOnly} {...field("templateId")} />
          <TextInput label="From (optional)" description="An address on a verified domain" readOnly={readOnly} {...field("from")} />
          <TextInput label="From name (optional)" readOnly={readOnly} {...field("fromName")} />
          <Group align="flex-end" grow>
            <TextInput
              label="Quiet hours from"
              description="In the contact's time zone; held until the end"
              type="time"
              readOnly={readOnly}
              {...field("quietFrom")}
            />
            <TextInput label="Quiet hours to" description="May wrap past midnight" type="time" readOnly={readOnly} {...field("quietTo")} />
          </Group>
        </Stack>
      );
    case "DELAY":
      return (
        <Stack gap="xs">
          <NumberInput label="Wait for" min={1} allowDecimal={false} required readOnly={readOnly} {...field("amount")} />
          <Select label="Unit" data={UNIT_OPTIONS} allowDeselect={false} readOnly={readOnly} {...field("unit")} />
        </Stack>
      );
    case "WAIT_FOR_EVENT":
      return (
        <Stack gap="xs">
          <EventNameInput label="Event" required readOnly={readOnly} {...field("eventName")} />
          <NumberInput label="Timeout (seconds)" description="0 waits for ever; with a timeout, the TIMEOUT output is followed when it passes" min={0} allowDecimal={false} readOnly={readOnly} {...field("timeout")} />
        </Stack>
      );
    case "CONDITION":
      return "expression" in form.values.config ? <ConditionFilters form={form} readOnly={readOnly} /> : <ConditionFields form={form} readOnly={readOnly} />;
    case "WEBHOOK":
      return (
        <Stack gap="xs">
          <TextInput label="URL" required placeholder="https://example.com/hook" readOnly={readOnly} {...field("url")} />
          <Select label="Method" data={["GET", "POST", "PUT", "PATCH", "DELETE"]} allowDeselect={false} readOnly={readOnly} {...field("method")} />
          <JsonInput label="Headers (JSON, optional)" placeholder='{"Authorization": "Bearer …"}' autosize minRows={2} readOnly={readOnly} {...field("headers")} />
          <JsonInput label="Body (JSON, optional)" description="Replaces the default payload; Liquid is rendered" autosize minRows={2} readOnly={readOnly} {...field("body")} />
        </Stack>
      );
    case "UPDATE_CONTACT":
      return <JsonInput label="Contact data to set (JSON)" autosize minRows={3} readOnly={readOnly} {...field("data")} />;
    case "EXIT":
      return <TextInput label="Reason (optional)" readOnly={readOnly} {...field("reason")} />;
  }
}

/**
 * A CONDITION of several filters (groups, AND/OR, decisions §8) in the filter builder the segments
 * use, in the workflow dialect (`event.<key>`, the trigger event's data, among its fields).
 */
function ConditionFilters({ form, readOnly }: { form: StepForm; readOnly: boolean }) {
  const error = form.errors["config.expression"];
  return (
    <Stack gap="xs">
      <Text size="sm" fw={500}>
        Filters
      </Text>
      <FilterBuilder
        dialect="workflow"
        value={form.values.config.expression as FilterExpression}
        readOnly={readOnly}
        showAllErrors={Boolean(error)}
        onChange={(expression, valid) => form.setFieldValue("config", { expression, expressionValid: valid })}
      />
      {error && (
        <Text size="sm" c="red.9" role="alert">
          {error}
        </Text>
      )}
    </Stack>
  );
}

/** A CONDITION's one filter (decisions §8 short form): `contact.email`, `event.<key>`, `data.<key>`, … */
function ConditionFields({ form, readOnly }: { form: StepForm; readOnly: boolean }) {
  const operator = String(form.values.config.operator);
  return (
    <Stack gap="xs">
      <TextInput label="Field" required description="contact.email, contact.subscribed, event.<key> (the trigger event's data), data.<key>" readOnly={readOnly} {...form.getInputProps("config.field")} />
      <Select label="Operator" data={[...FILTER_OPERATORS]} searchable allowDeselect={false} readOnly={readOnly} {...form.getInputProps("config.operator")} />
      {!NO_VALUE_OPERATORS.includes(operator as never) && (
        <TextInput label="Value" description="Text, or JSON (42, true, [&quot;a&quot;, &quot;b&quot;])" readOnly={readOnly} {...form.getInputProps("config.value")} />
      )}
      {TIME_OPERATORS.includes(operator as never) && <Select label="Unit" data={UNIT_OPTIONS} allowDeselect={false} readOnly={readOnly} {...form.getInputProps("config.unit")} />}
      {!readOnly && (
        <Group>
          <Button
            variant="default"
            size="xs"
            onClick={() => form.setFieldValue("config", { expression: shortFormToExpression(form.values.config), expressionValid: true })}
          >
            Use several filters
          </Button>
        </Group>
      )}
    </Stack>
  );
}

/** The project's templates by name (the first 100, both types). */
function TemplateSelect(props: { readOnly: boolean; value?: unknown; onChange?: (v: string | null) => void; error?: unknown }) {
  const templates = useTemplates({ limit: 100 });
  const data = (templates.data?.templates ?? []).map((t) => ({ value: t.id, label: `${t.name} (${t.type.toLowerCase()})` }));
  return (
    <Select
      label="Template"
      required
      searchable
      data={data}
      placeholder={templates.isPending ? "Loading templates…" : data.length ? "Pick a template" : "No template yet"}
      {...props}
      value={(props.value as string) || null}
      error={props.error as string | undefined}
    />
  );
}
