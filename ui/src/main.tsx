import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";

import "@fontsource-variable/inter";
import "./styles/app.css";
import "./styles/runtime.css";
import "./styles/chat-images.css";
import "./styles/chat.css";
import "./styles/inbox.css";
import "./styles/canvas.css";
import "./styles/undo.css";
import "./styles/swarms.css";
import "./styles/forms.css";
import "./styles/onboarding.css";
import "./styles/names.css";
import "./styles/activity.css";
import "./styles/mcp.css";
import "./styles/endpoints.css";
import "./styles/cron.css";
import { loadLanguage } from "./i18n";

import { shellApi } from "./api";
import { defaultLanguage, openPrefs, type PrefsStore } from "./api/prefs";
import { App } from "./app/App";
import { loadView } from "./app/viewModules";
import { setupQuery } from "./features/catalog/queries";
import { memoryPrefs, PreferencesProvider } from "./app/preferences";

const queryClient = new QueryClient({
  defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: false } },
});

async function loadPrefs(): Promise<PrefsStore> {
  try {
    return await openPrefs();
  } catch (error) {
    console.error("preferences are not persisted this session:", error);
    return memoryPrefs({ theme: "system", language: defaultLanguage(navigator.language) });
  }
}

async function boot() {
  const root = document.getElementById("root");
  if (!root) throw new Error("no #root element");
  // Everything the first frame needs starts at once — the setup status
  // (first run or the shell), the place to open and that view's code, the
  // preferences and the catalog of their language — and the first render
  // waits for all of it, so that it is the frame the window opens on: no
  // spinner, no suspended view, no English flash before Spanish.
  const setup = queryClient.prefetchQuery(setupQuery);
  const place = shellApi
    .initialRoute()
    .catch(() => null)
    .then((route) => {
      // A `colmena://` link the app was launched with, else where the person was.
      if (route && !window.location.hash) window.location.hash = route;
      return loadView(window.location.hash);
    });
  const prefs = loadPrefs().then(async (store) => {
    await loadLanguage(store.read().language).catch((error: unknown) => console.error("no translations:", error));
    return store;
  });
  const [store] = await Promise.all([prefs, place, setup]);
  createRoot(root).render(
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <PreferencesProvider store={store}>
          <App />
        </PreferencesProvider>
      </QueryClientProvider>
    </StrictMode>,
  );
}

void boot();
