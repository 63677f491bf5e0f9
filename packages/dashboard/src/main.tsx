import "@mantine/core/styles.css";
import "@mantine/notifications/styles.css";
// The app's own typeface, served from /app/assets/ like the scripts: the page is laid out the same on
// every machine whatever fonts it has (docs/dashboard.md, "Fonts"). One variable file per script,
// fetched only for the characters a page shows; normal style only (italics are rare and synthesized).
import "@fontsource-variable/inter/wght.css";
import { createTheme, type CSSVariablesResolver, MantineProvider } from "@mantine/core";
import { QueryClientProvider } from "@tanstack/react-query";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { RouterProvider } from "react-router";
import { createQueryClient } from "./api/query-client";
import { cspNonce } from "./lib/csp";
import { appRelative, signInPath } from "./lib/redirect";
import { prefetchMe } from "./api/session";
import { areaOf } from "./areas";
import { router } from "./router";

// Shade 8 of blue: white text on Mantine's default shade (6) is 3.5:1, under WCAG AA's 4.5:1.
// Mantine's close buttons (modals, notifications) are icons without a name: axe's button-name.
// Plain objects, not `Modal.extend`: importing the components here would put them in sign-in's JavaScript.
const closeButtonProps = { "aria-label": "Close" };
const FONT = '"Inter Variable", -apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, Helvetica, Arial, sans-serif, "Apple Color Emoji", "Segoe UI Emoji"';
const theme = createTheme({
  fontFamily: FONT,
  headings: { fontFamily: FONT },
  primaryColor: "blue",
  primaryShade: { light: 8, dark: 8 },
  defaultRadius: "md",
  components: {
    Modal: { defaultProps: { closeButtonProps } },
    Notification: { defaultProps: { closeButtonProps } },
    // A loader is named ("Loading…"); a name on a span needs a role, and status is what it is.
    Loader: { defaultProps: { role: "status" } },
  },
});
// Dimmed text (captions, empty states) darker than Mantine's gray 6, which is 3.3:1 on white.
const contrast: CSSVariablesResolver = () => ({
  variables: {},
  // Field errors too: Mantine's red 6 is 3.3:1 on white.
  light: { "--mantine-color-dimmed": "var(--mantine-color-gray-7)", "--mantine-color-error": "var(--mantine-color-red-9)" },
  dark: { "--mantine-color-dimmed": "var(--mantine-color-dark-1)" },
});

const nonce = cspNonce();

const queryClient = createQueryClient(() => {
  const here = appRelative(window.location.pathname, window.location.search);
  if (!here.startsWith("/sign-in")) void router.navigate(signInPath(here), { replace: true });
});

/*
 * Opened straight on a page (a bookmark, a reload): the router is already fetching the shell's and the
 * page's code; ask for the session and the page's first query beside it, instead of after the shell
 * and the page have rendered.
 */
if (!/^\/app\/(sign-in|invite)/.test(window.location.pathname)) {
  prefetchMe(queryClient);
  areaOf(window.location.pathname)?.prefetch?.(queryClient);
}

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <MantineProvider theme={theme} cssVariablesResolver={contrast} defaultColorScheme="auto" getStyleNonce={() => nonce}>
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </MantineProvider>
  </StrictMode>,
);
