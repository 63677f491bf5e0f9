import { Notifications } from "@mantine/notifications";
import { lazy, Suspense } from "react";
import { createBrowserRouter, Navigate, Outlet } from "react-router";
import { AREAS } from "./areas";

// The shell (AppShell, menus, the project switcher) loads after sign-in, not with the sign-in page.
export const loadShell = () => import("./components/Shell");
const Shell = lazy(loadShell);
const SignInPage = lazy(() => import("./pages/sign-in/index"));
const InvitePage = lazy(() => import("./pages/invite/index"));

/** Inside the router so a notification's link (e.g. "Open Domains") can navigate. */
function Root() {
  return (
    <>
      <Notifications position="top-right" />
      <Suspense fallback={null}>
        <Outlet />
      </Suspense>
    </>
  );
}

export const router = createBrowserRouter(
  [
    {
      element: <Root />,
      children: [
        { path: "sign-in", element: <SignInPage /> },
        { path: "invite", element: <InvitePage /> },
        {
          element: <Shell />,
          children: [
            { index: true, element: <Navigate to="/overview" replace /> },
            ...AREAS.map(({ path, Page }) => ({ path: `${path}/*`, element: <Page /> })),
            { path: "*", element: <Navigate to="/overview" replace /> },
          ],
        },
      ],
    },
  ],
  { basename: "/app" },
);
