import { EMAIL_ACTIVITIES, FIELD_FAMILIES, type FilterOperator, TIME_UNITS, type TimeUnit } from "@mailroom/contracts";
import { ActionIcon, Autocomplete, Group, Select, TagsInput, TextInput } from "@mantine/core";
import { useBuilder } from "./context";
import { type FilterRowState, type ValueType, isListOperator, isTimeOperator, takesValue, valueTypesFor, withFamily, withOperator } from "./form-state";
import { ACTIVITY_LABEL, DATE_OPERATOR_LABEL, type FieldChoice, OPERATOR_LABEL, UNIT_LABEL, VALUE_TYPE_LABEL, fieldChoices } from "./labels";

const BOOLEANS = [
  { value: "true", label: "true" },
  { value: "false", label: "false" },
];

/** ISO time ↔ the `datetime-local` input's local wall time (to the second). */
function toLocalInput(iso: string): string {
  const d = new Date(iso);
  if (!iso || Number.isNaN(d.getTime())) return "";
  const local = new Date(d.getTime() - d.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 19);
}
function fromLocalInput(local: string): string {
  const d = new Date(local);
  return local && !Number.isNaN(d.getTime()) ? d.toISOString() : "";
}

/**
 * One filter: the field (family, then its key), the operator the family allows, and the value input
 * the operator needs: none, a number with a unit, a list, or one value of the chosen type.
 */
export function FilterRowEditor({ row, path, label, onChange, onRemove }: {
  row: FilterRowState;
  path: string;
  label: string;
  onChange: (row: FilterRowState) => void;
  onRemove: () => void;
}) {
  const ctx = useBuilder();
  const ro = ctx.readOnly;
  const err = (part: string) => ctx.message(`${path}.${part}`, row.id);
  const kind = FIELD_FAMILIES[row.family].kind;
  const set = (next: FilterRowState) => {
    ctx.touch(row.id);
    onChange(next);
  };
  const choice: FieldChoice = row.family === "timestamp" ? (row.key as FieldChoice) : row.family;
  const chooseField = (value: string | null) => {
    if (!value || value === choice) return;
    set(value === "createdAt" || value === "updatedAt" ? withFamily(row, "timestamp", value) : withFamily(row, value as FieldChoice & typeof row.family));
  };
  const operators = (FIELD_FAMILIES[row.family].operators as readonly FilterOperator[]).map((op) => ({
    value: op,
    label: (kind === "date" && DATE_OPERATOR_LABEL[op]) || OPERATOR_LABEL[op],
  }));
  const types = valueTypesFor(row.family, row.operator);

  return (
    <Group role="group" aria-label={label} align="flex-start" gap="xs" wrap="wrap">
      <Select label="Field" data={fieldChoices(ctx.dialect)} value={choice} onChange={chooseField} allowDeselect={false} readOnly={ro} w={160} error={err("field") && !keyInput(row.family) ? err("field") : undefined} />
      <KeyInput row={row} set={set} error={err("field")} />
      <Select label="Operator" data={operators} value={row.operator} onChange={(op) => op && set(withOperator(row, op as FilterOperator))} allowDeselect={false} readOnly={ro} w={220} error={err("operator")} />
      {takesValue(row.operator) && isTimeOperator(row.operator) && (
        <>
          <TextInput label="Amount" inputMode="decimal" value={row.text} onChange={(e) => set({ ...row, text: e.currentTarget.value })} readOnly={ro} w={100} error={err("value")} />
          <Select label="Unit" data={TIME_UNITS.map((u) => ({ value: u, label: UNIT_LABEL[u] }))} value={row.unit} onChange={(u) => u && set({ ...row, unit: u as TimeUnit })} allowDeselect={false} readOnly={ro} w={120} error={err("unit")} />
        </>
      )}
      {takesValue(row.operator) && !isTimeOperator(row.operator) && types.length > 1 && (
        <Select
          label="Type"
          data={types.map((t) => ({ value: t, label: VALUE_TYPE_LABEL[t] }))}
          value={row.valueType}
          onChange={(t) => t && set({ ...row, valueType: t as ValueType, text: t === "boolean" ? "true" : row.valueType === "boolean" ? "" : row.text })}
          allowDeselect={false}
          readOnly={ro}
          w={130}
        />
      )}
      {takesValue(row.operator) && !isTimeOperator(row.operator) && <ValueInput row={row} set={set} error={err("value")} kindIsDate={kind === "date"} />}
      {!ro && (
        <ActionIcon variant="default" size="lg" mt={25} aria-label={`Remove ${label}`} onClick={onRemove}>
          ×
        </ActionIcon>
      )}
    </Group>
  );
}

/** Whether the family has a key input beside the Field select (data path, event, activity, segment). */
const keyInput = (family: FilterRowState["family"]) => !["email", "subscribed", "timestamp"].includes(family);

function KeyInput({ row, set, error }: { row: FilterRowState; set: (r: FilterRowState) => void; error: string | undefined }) {
  const ctx = useBuilder();
  const common = { readOnly: ctx.readOnly, error, w: 200 };
  const setKey = (key: string) => set({ ...row, key });
  switch (row.family) {
    case "data":
      return <Autocomplete label="Data key" placeholder="plan or company.size" data={ctx.dataKeys} value={row.key} onChange={setKey} {...common} />;
    case "event":
      return <Autocomplete label="Event name" data={ctx.eventNames} value={row.key} onChange={setKey} {...common} />;
    case "eventData":
      return <TextInput label="Event data key" value={row.key} onChange={(e) => setKey(e.currentTarget.value)} {...common} />;
    case "emailActivity":
      return <Select label="Activity" data={EMAIL_ACTIVITIES.map((a) => ({ value: a, label: ACTIVITY_LABEL[a] }))} value={row.key} onChange={(a) => a && setKey(a)} allowDeselect={false} {...common} />;
    case "segment": {
      // A segment picked earlier and since deleted still shows (by id), so the API's message has a place.
      const known = ctx.segments.some((s) => s.value === row.key);
      const data = known || !row.key ? ctx.segments : [...ctx.segments, { value: row.key, label: row.key }];
      return <Select label="Segment" data={data} value={row.key || null} onChange={(id) => id && setKey(id)} searchable nothingFoundMessage="No other segment" {...common} />;
    }
    case "topic": {
      const known = ctx.topics.some((t) => t.value === row.key);
      const data = known || !row.key ? ctx.topics : [...ctx.topics, { value: row.key, label: row.key }];
      return <Select label="Topic" data={data} value={row.key || null} onChange={(id) => id && setKey(id)} searchable nothingFoundMessage="No topic yet" {...common} />;
    }
    default:
      return null;
  }
}

function ValueInput({ row, set, error, kindIsDate }: { row: FilterRowState; set: (r: FilterRowState) => void; error: string | undefined; kindIsDate: boolean }) {
  const ro = useBuilder().readOnly;
  if (isListOperator(row.operator)) {
    return (
      <TagsInput
        label="Values"
        description="Enter after each value"
        value={row.list}
        onChange={(list) => set({ ...row, list })}
        readOnly={ro}
        error={error}
        w={260}
        acceptValueOnBlur
        clearable={false}
      />
    );
  }
  if (row.valueType === "boolean") {
    return <Select label="Value" data={BOOLEANS} value={row.text} onChange={(v) => v && set({ ...row, text: v })} allowDeselect={false} readOnly={ro} error={error} w={110} />;
  }
  if (kindIsDate) {
    return (
      <TextInput
        label="Value"
        type="datetime-local"
        step={1}
        value={toLocalInput(row.text)}
        onChange={(e) => set({ ...row, text: fromLocalInput(e.currentTarget.value) })}
        readOnly={ro}
        error={error}
        w={230}
      />
    );
  }
  return (
    <TextInput
      label="Value"
      inputMode={row.valueType === "number" ? "decimal" : undefined}
      value={row.text}
      onChange={(e) => set({ ...row, text: e.currentTarget.value })}
      readOnly={ro}
      error={error}
      w={200}
    />
  );
}
