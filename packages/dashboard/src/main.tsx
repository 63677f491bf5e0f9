import "@mantine/core/styles.css";
import "@mantine/notifications/styles.css";
import { createTheme, MantineProvider } from "@mantine/core";
import { QueryClientProvider } from "@tanstack/react-query";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { RouterProvider } from "react-router";
import { createQueryClient } from "./api/query-client";
import { appRelative, signInPath } from "./lib/redirect";
import { router } from "./router";

const theme = createTheme({ primaryColor: "blue", defaultRadius: "md" });

/**
 * The nonce the gateway put in this answer's CSP and its `csp-nonce` meta tag (vite.config.ts):
 * Mantine puts it on the <style> elements it injects, which a strict style-src would refuse otherwise.
 */
const nonce = document.querySelector<HTMLMetaElement>('meta[property="csp-nonce"]')?.nonce ?? "";

const queryClient = createQueryClient(() => {
  const here = appRelative(window.location.pathname, window.location.search);
  if (!here.startsWith("/sign-in")) void router.navigate(signInPath(here), { replace: true });
});

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <MantineProvider theme={theme} defaultColorScheme="auto" getStyleNonce={() => nonce}>
      <QueryClientProvider client={queryClient}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </MantineProvider>
  </StrictMode>,
);
