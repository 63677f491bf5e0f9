import { AppShell, Box, Burger, Center, Group, Loader, NavLink, Text, Title } from "@mantine/core";
import { useDisclosure } from "@mantine/hooks";
import { Suspense, useEffect } from "react";
import { Navigate, NavLink as RouterNavLink, Outlet, useLocation } from "react-router";
import { projectStore } from "../api/project";
import { useProjectId } from "../api/query";
import { useCurrentProject, useMe } from "../api/session";
import { AREAS } from "../areas";
import { signInPath } from "../lib/redirect";
import { ColorSchemeToggle } from "./ColorSchemeToggle";
import { notifyError } from "./errors";
import { ProjectSwitcher } from "./ProjectSwitcher";
import { UserMenu } from "./UserMenu";

const centered = (content: React.ReactNode) => <Center h="100vh">{content}</Center>;

/** The signed-in frame: navbar, header (project, color scheme, user) and the current area's page. */
export default function Shell() {
  const me = useMe();
  const project = useCurrentProject();
  const stored = useProjectId();
  const location = useLocation();
  const [opened, { toggle }] = useDisclosure();

  // The API client reads the store for the project header: keep it on a project the user has.
  useEffect(() => {
    if (project && project.id !== stored) projectStore.set(project.id);
  }, [project, stored]);
  useEffect(() => {
    if (me.isError && me.error.status !== 401) notifyError(me.error);
  }, [me.isError, me.error]);

  if (me.isPending) return centered(<Loader aria-label="Loading" />);
  if (me.isError) {
    if (me.error.status === 401) return <Navigate to={signInPath(location.pathname + location.search)} replace />;
    return centered(<Text>Mailroom could not load your account. Reload the page to try again.</Text>);
  }

  return (
    <AppShell header={{ height: 60 }} navbar={{ width: 220, breakpoint: "sm", collapsed: { mobile: !opened } }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between">
          <Group>
            <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Menu" />
            <Title order={3}>Mailroom</Title>
          </Group>
          {/* on a phone the project switcher moves into the menu, so the header keeps one line */}
          <Group gap="xs" wrap="nowrap">
            <Box visibleFrom="sm">
              <ProjectSwitcher />
            </Box>
            <ColorSchemeToggle />
            <UserMenu />
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label="Main">
        <Box hiddenFrom="sm" mb="xs">
          <ProjectSwitcher />
        </Box>
        {AREAS.map((a) => (
          <NavLink key={a.path} component={RouterNavLink} to={`/${a.path}`} label={a.label} active={location.pathname.startsWith(`/${a.path}`)} />
        ))}
      </AppShell.Navbar>
      <AppShell.Main>
        {!project ? (
          <Text>You are not a member of any project yet. Ask a project owner to invite you.</Text>
        ) : project.id !== stored ? (
          <Loader aria-label="Loading" />
        ) : (
          <Suspense fallback={<Loader aria-label="Loading" />}>
            <Outlet key={project.id} />
          </Suspense>
        )}
      </AppShell.Main>
    </AppShell>
  );
}
