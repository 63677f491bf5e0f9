import { Autocomplete, type AutocompleteProps } from "@mantine/core";
import { useEventNames } from "../../api/workflows";

/** An event name picked from those the project has seen (GET /events/names), or typed. */
export function EventNameInput(props: Omit<AutocompleteProps, "data">) {
  const names = useEventNames();
  return <Autocomplete data={names.data?.data ?? []} limit={20} {...props} />;
}
