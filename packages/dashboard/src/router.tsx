import { Notifications } from "@mantine/notifications";
import { createBrowserRouter, Navigate, Outlet } from "react-router";
import { AREAS, type PageModule } from "./areas";

/*
 * Every page's code loads through the router's `lazy`: the router fetches the code of all the routes
 * a URL matches at once (the shell and the area on a direct visit) and renders when they are there.
 * React.lazy under Suspense would show a fallback first, and React holds a revealed boundary back
 * for its fallback throttle (300 ms), once for the shell and once for the page.
 */
const page = (load: () => Promise<PageModule>) => async () => ({ Component: (await load()).default });

/** Inside the router so a notification's link (e.g. "Open Domains") can navigate. */
function Root() {
  return (
    <>
      <Notifications position="top-right" />
      <Outlet />
    </>
  );
}

export const router = createBrowserRouter(
  [
    {
      element: <Root />,
      // Nothing to show while the first page's code loads: the page itself comes a moment later.
      HydrateFallback: () => null,
      children: [
        { path: "sign-in", lazy: page(() => import("./pages/sign-in/index")) },
        { path: "invite", lazy: page(() => import("./pages/invite/index")) },
        {
          // The shell (AppShell, menus, the project switcher) loads after sign-in, not with the sign-in page.
          lazy: page(() => import("./components/Shell")),
          children: [
            { index: true, element: <Navigate to="/overview" replace /> },
            ...AREAS.map(({ path, load }) => ({ path: `${path}/*`, lazy: page(load) })),
            { path: "*", element: <Navigate to="/overview" replace /> },
          ],
        },
      ],
    },
  ],
  { basename: "/app" },
);
