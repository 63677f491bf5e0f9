import { FILTER_MAX_DEPTH } from "@mailroom/contracts";
import { Badge, Button, Fieldset, Group, Select, Stack, Text } from "@mantine/core";
import { Fragment } from "react";
import { useBuilder } from "./context";
import { type ExpressionState, type GroupState, blankExpression, blankFilter, blankGroup } from "./form-state";
import { FilterRowEditor } from "./FilterRowEditor";

const LOGIC = [
  { value: "AND", label: "AND: every group matches" },
  { value: "OR", label: "OR: any group matches" },
];

const at = (path: string, part: string) => (path ? `${path}.${part}` : part);

/**
 * An expression: groups joined by AND or OR. `owner` names the group whose nested conditions this
 * is ("" at the top), so every group and button has a name of its own (`Group 2.1`, `Add group to
 * the conditions of Group 2`): a screen reader and a test tell them apart at any depth.
 */
export function ExpressionEditor({ value, onChange, path, level, owner }: {
  value: ExpressionState;
  onChange: (value: ExpressionState) => void;
  path: string;
  level: number;
  owner: string;
}) {
  const ctx = useBuilder();
  const setGroup = (i: number, group: GroupState) => onChange({ ...value, groups: value.groups.map((g, j) => (j === i ? group : g)) });
  const removeGroup = (i: number) => onChange({ ...value, groups: value.groups.filter((_, j) => j !== i) });
  const problem = ctx.groupMessage(path);
  const where = owner ? ` in the conditions of ${owner}` : "";
  const emptyMeaning = value.logic === "AND" ? "No groups: every contact matches." : "No groups: no contact matches.";

  return (
    <Stack gap="xs">
      <Select
        label={owner ? `Join the groups of ${owner}'s conditions with` : "Join groups with"}
        data={LOGIC}
        value={value.logic}
        onChange={(logic) => logic && onChange({ ...value, logic: logic as ExpressionState["logic"] })}
        allowDeselect={false}
        readOnly={ctx.readOnly}
        w={280}
      />
      {value.groups.length === 0 && <Text size="sm" c="dimmed">{emptyMeaning}</Text>}
      {value.groups.map((group, i) => {
        const name = owner ? `${owner}.${i + 1}` : `Group ${i + 1}`;
        return (
          <Fragment key={group.id}>
            {i > 0 && (
              <Badge variant="light" color={value.logic === "AND" ? "blue" : "grape"} aria-hidden>
                {value.logic}
              </Badge>
            )}
            <GroupEditor
              group={group}
              name={name}
              path={at(path, `groups.${i}`)}
              level={level}
              onChange={(g) => setGroup(i, g)}
              onRemove={() => removeGroup(i)}
            />
          </Fragment>
        );
      })}
      {problem && (
        <Text size="sm" c="red.9" role="alert">
          {problem}
        </Text>
      )}
      {!ctx.readOnly && (
        <Group>
          <Button variant="default" size="xs" onClick={() => onChange({ ...value, groups: [...value.groups, blankGroup()] })} aria-label={`Add group${where}`}>
            Add group
          </Button>
        </Group>
      )}
    </Stack>
  );
}

/** A group: its filters and its nested conditions, all ANDed (decisions.md §8). */
function GroupEditor({ group, name, path, level, onChange, onRemove }: {
  group: GroupState;
  name: string;
  path: string;
  level: number;
  onChange: (group: GroupState) => void;
  onRemove: () => void;
}) {
  const ctx = useBuilder();
  const problem = ctx.groupMessage(path);
  const canNest = level < FILTER_MAX_DEPTH;
  const setFilter = (i: number, row: GroupState["filters"][number]) => onChange({ ...group, filters: group.filters.map((f, j) => (j === i ? row : f)) });

  return (
    <Fieldset legend={name} variant="filled" p="sm">
      <Stack gap="xs">
        {group.filters.length === 0 && !group.conditions && (
          <Text size="sm" c="dimmed">
            An empty group matches every contact.
          </Text>
        )}
        {group.filters.map((row, i) => (
          <FilterRowEditor
            key={row.id}
            row={row}
            path={`${path}.filters.${i}`}
            label={`${name} filter ${i + 1}`}
            onChange={(r) => setFilter(i, r)}
            onRemove={() => onChange({ ...group, filters: group.filters.filter((_, j) => j !== i) })}
          />
        ))}
        {group.conditions && (
          <Fieldset legend={`Conditions of ${name} (all must hold, with the filters above)`} p="sm">
            <ExpressionEditor
              value={group.conditions}
              onChange={(conditions) => onChange({ ...group, conditions })}
              path={`${path}.conditions`}
              level={level + 1}
              owner={name}
            />
            {!ctx.readOnly && (
              <Button variant="default" size="xs" mt="xs" onClick={() => onChange({ ...group, conditions: null })}>
                Remove the conditions of {name}
              </Button>
            )}
          </Fieldset>
        )}
        {problem && (
          <Text size="sm" c="red.9" role="alert">
            {problem}
          </Text>
        )}
        {!ctx.readOnly && (
          <Group gap="xs">
            <Button variant="default" size="xs" onClick={() => onChange({ ...group, filters: [...group.filters, blankFilter()] })} aria-label={`Add filter to ${name}`}>
              Add filter
            </Button>
            {canNest && !group.conditions && (
              <Button variant="default" size="xs" onClick={() => onChange({ ...group, conditions: blankExpression() })} aria-label={`Add nested conditions to ${name}`}>
                Add nested conditions
              </Button>
            )}
            <Button variant="default" size="xs" onClick={onRemove} aria-label={`Remove ${name}`}>
              Remove group
            </Button>
          </Group>
        )}
      </Stack>
    </Fieldset>
  );
}
