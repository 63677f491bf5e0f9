import { AB_METRICS, type AbMetric } from "@mailroom/contracts";
import { Button, Checkbox, Fieldset, Group, NumberInput, Select, Stack, Switch, Text, Textarea, TextInput } from "@mantine/core";
import type { UseFormReturnType } from "@mantine/form";
import { canAddVariant, canRemoveVariant, enableAb, newVariant, variantLetter } from "./ab-form";
import type { ComposerValues } from "./composer-form";

const METRIC_LABELS: Record<AbMetric, string> = { opened: "Open rate", clicked: "Click rate" };

/**
 * The composer's A/B test: 2 to 5 variants (a subject each, a body of their own optionally, else
 * the campaign's), the sample's share of the audience, the metric and the wait before the winner
 * goes to the rest.
 */
export function VariantEditor({ form, readOnly }: { form: UseFormReturnType<ComposerValues>; readOnly: boolean }) {
  const ab = form.values.ab;
  return (
    <Stack gap="sm">
      <Switch
        label="A/B test"
        description="Send versions to a sample of the audience, then the best one to the rest"
        checked={ab.enabled}
        disabled={readOnly}
        error={form.errors["ab.enabled"]}
        onChange={(e) => form.setFieldValue("ab", e.currentTarget.checked ? enableAb(ab, form.values.subject) : { ...ab, enabled: false })}
      />
      {ab.enabled && (
        <>
          {typeof form.errors["ab.variants"] === "string" && (
            <Text size="sm" c="red.8" role="alert">
              {form.errors["ab.variants"]}
            </Text>
          )}
          {ab.variants.map((v, i) => {
            const name = `Variant ${variantLetter(i)}`;
            return (
              <Fieldset key={v.key} legend={name} variant="filled">
                <Stack gap="xs">
                  <TextInput label={`${name} subject`} required readOnly={readOnly} {...form.getInputProps(`ab.variants.${i}.subject`)} />
                  <Checkbox
                    label={`${name} has a body of its own`}
                    description="Otherwise it is sent with the campaign's body"
                    disabled={readOnly}
                    {...form.getInputProps(`ab.variants.${i}.ownBody`, { type: "checkbox" })}
                  />
                  {v.ownBody && (
                    <Textarea label={`${name} body`} required autosize minRows={4} maxRows={12} readOnly={readOnly} styles={{ input: { fontFamily: "monospace" } }} {...form.getInputProps(`ab.variants.${i}.body`)} />
                  )}
                  {!readOnly && canRemoveVariant(ab) && (
                    <Group>
                      <Button variant="subtle" color="red.8" size="xs" onClick={() => form.removeListItem("ab.variants", i)}>
                        Remove variant {variantLetter(i)}
                      </Button>
                    </Group>
                  )}
                </Stack>
              </Fieldset>
            );
          })}
          {!readOnly && canAddVariant(ab) && (
            <Group>
              <Button variant="default" size="xs" onClick={() => form.insertListItem("ab.variants", newVariant())}>
                Add variant
              </Button>
            </Group>
          )}
          <Group align="flex-start" grow>
            <NumberInput label="Sample (% of the audience)" min={1} max={50} allowDecimal={false} required readOnly={readOnly} {...form.getInputProps("ab.samplePercent")} />
            <Select
              label="Winner by"
              data={AB_METRICS.map((m) => ({ value: m, label: METRIC_LABELS[m] }))}
              allowDeselect={false}
              readOnly={readOnly}
              {...form.getInputProps("ab.metric")}
            />
            <NumberInput label="Wait (minutes)" min={5} max={10080} allowDecimal={false} required readOnly={readOnly} {...form.getInputProps("ab.waitMinutes")} />
          </Group>
        </>
      )}
    </Stack>
  );
}
