import { Checkbox, Group, Select, TextInput } from "@mantine/core";
import type { UseFormReturnType } from "@mantine/form";
import { timeZones } from "../../lib/zones";
import type { ComposerValues } from "./composer-form";

/**
 * "Deliver at recipient's local time" (deliverAt): each contact gets the email at this time in its
 * `data.timezone`, the fallback zone when it has none. The fields show only when it is on, their
 * inputs on one line (aligned at the bottom) whatever their descriptions take.
 */
export function LocalTimeFields({ form, readOnly }: { form: UseFormReturnType<ComposerValues>; readOnly: boolean }) {
  return (
    <>
      <Checkbox
        label="Deliver at recipient's local time"
        description="Each contact gets it at this time in their data.timezone, within 24 hours of sending"
        disabled={readOnly}
        {...form.getInputProps("deliverLocal", { type: "checkbox" })}
      />
      {form.values.deliverLocal && (
        <Group align="flex-end" grow>
          <TextInput label="Local time" type="time" required readOnly={readOnly} {...form.getInputProps("localTime")} />
          <Select
            label="Fallback time zone"
            description="For contacts without a valid timezone"
            required
            searchable
            allowDeselect={false}
            data={timeZones(form.values.fallbackTimezone)}
            readOnly={readOnly}
            {...form.getInputProps("fallbackTimezone")}
          />
        </Group>
      )}
    </>
  );
}
