import { Button, Menu } from "@mantine/core";
import { useNavigate } from "react-router";
import { useLogout, useMe } from "../api/session";

export function UserMenu() {
  const { data } = useMe();
  const logout = useLogout();
  const logoutEverywhere = useLogout({ everywhere: true });
  const navigate = useNavigate();
  if (!data) return null;
  const toSignIn = { onSettled: () => navigate("/sign-in", { replace: true }) };
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <Button variant="default">{data.user.name || data.user.email}</Button>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Label>{data.user.email}</Menu.Label>
        <Menu.Item onClick={() => logout.mutate(undefined, toSignIn)}>Sign out</Menu.Item>
        {/* every session of the account ends: a browser left signed in elsewhere, a lost laptop */}
        <Menu.Item onClick={() => logoutEverywhere.mutate(undefined, toSignIn)}>Sign out everywhere</Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}
