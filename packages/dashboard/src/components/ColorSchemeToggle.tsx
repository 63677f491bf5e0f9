import { ActionIcon, useComputedColorScheme, useMantineColorScheme } from "@mantine/core";

export function ColorSchemeToggle() {
  const { setColorScheme } = useMantineColorScheme();
  const scheme = useComputedColorScheme("light");
  const next = scheme === "dark" ? "light" : "dark";
  return (
    <ActionIcon variant="default" size="lg" aria-label={`Switch to ${next} mode`} onClick={() => setColorScheme(next)}>
      <span aria-hidden>{scheme === "dark" ? "☀" : "☾"}</span>
    </ActionIcon>
  );
}
