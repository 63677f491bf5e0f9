import { Button, Menu } from "@mantine/core";
import { useNavigate } from "react-router";
import { useLogout, useMe } from "../api/session";

export function UserMenu() {
  const { data } = useMe();
  const logout = useLogout();
  const navigate = useNavigate();
  if (!data) return null;
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <Button variant="default">{data.user.name || data.user.email}</Button>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Label>{data.user.email}</Menu.Label>
        <Menu.Item onClick={() => logout.mutate(undefined, { onSettled: () => navigate("/sign-in", { replace: true }) })}>Sign out</Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}
