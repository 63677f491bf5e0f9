import { Select } from "@mantine/core";
import { useQueryClient } from "@tanstack/react-query";
import { projectStore } from "../api/project";
import { ME_KEY, useCurrentProject, useMe } from "../api/session";

/** Switching project drops every cached answer but the session's, so no page shows another project's data. */
export function ProjectSwitcher() {
  const { data } = useMe();
  const current = useCurrentProject();
  const client = useQueryClient();
  if (!data || !current) return null;
  return (
    <Select
      aria-label="Project"
      w={220}
      allowDeselect={false}
      data={data.projects.map((p) => ({ value: p.id, label: `${p.name} (${p.role})` }))}
      value={current.id}
      onChange={(id) => {
        if (!id || id === current.id) return;
        projectStore.set(id);
        client.removeQueries({ predicate: (q) => q.queryKey[0] !== ME_KEY[0] });
      }}
    />
  );
}
