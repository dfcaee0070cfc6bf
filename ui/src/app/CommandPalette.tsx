// The command palette (Ctrl+K) and the app-wide keys: Ctrl+1…8 switch view,
// Ctrl+N / Ctrl+Enter / Ctrl+S run the open view's "new" / "run" / "save"
// action (see shortcutsHooks.ts). The palette goes to any view, creates an
// agent, canvas, swarm or conversation, opens an agent, canvas or swarm by
// name, and switches theme or language — all by typing a few letters.

import { useEffect, useMemo, useRef, useState } from "react";
import type { KeyboardEvent as ReactKeyboardEvent, ReactNode } from "react";
import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Bot, CornerDownLeft, Languages, LayoutPanelLeft, Moon, Network, Plus, Search, Sun } from "lucide-react";

import { filterList } from "../components/ListFilter";
import { useAgentName } from "../features/catalog/agentName";
import { agentsQuery } from "../features/catalog/queries";
import { canvasesQuery } from "../features/canvas/queries";
import { swarmsQuery } from "../features/runs/queries";
import { usePreferences } from "./preferences";
import { useRoute } from "./route";
import { OPEN_EVENT } from "./PaletteButton";
import { isApple, matchShortcut, type ShortcutId } from "./shortcuts";
import { actions, currentView, shortcutKeys } from "./shortcutsHooks";
import { VIEWS } from "./views";

interface Command {
  id: string;
  group: "go" | "create" | "open" | "prefs";
  label: string;
  /** Extra words it is found by (ids, the view it belongs to). */
  keywords?: string[];
  icon: ReactNode;
  /** What kind of thing an "open" command opens. */
  tag?: string;
  shortcut?: ShortcutId;
  run(): void;
}

/** Whether a modal other than the palette is open: keys then belong to it. */
const otherModalOpen = () => document.querySelector('[aria-modal="true"]:not([data-palette])') !== null;

export function CommandPalette() {
  const [open, setOpen] = useState(false);
  const [route, navigate] = useRoute();
  const view = currentView(route.view);

  useEffect(() => {
    const apple = isApple(navigator.platform);
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented) return;
      const id = matchShortcut(event, apple);
      if (!id) return;
      if (id === "palette") {
        event.preventDefault();
        setOpen((was) => !was);
        return;
      }
      if (open || otherModalOpen()) return;
      if (id.startsWith("view-")) {
        const target = VIEWS[Number(id.slice(5)) - 1];
        if (!target) return;
        event.preventDefault();
        navigate(target.id);
        return;
      }
      const kind = id as "new" | "run" | "save";
      if (actions.has(kind, view)) {
        event.preventDefault();
        actions.trigger(kind, view);
      }
    };
    const onOpen = () => setOpen(true);
    window.addEventListener("keydown", onKey);
    window.addEventListener(OPEN_EVENT, onOpen);
    return () => {
      window.removeEventListener("keydown", onKey);
      window.removeEventListener(OPEN_EVENT, onOpen);
    };
  }, [open, view, navigate]);

  return open ? <Palette onClose={() => setOpen(false)} /> : null;
}

function useCommands(): Command[] {
  const { t } = useTranslation();
  const [, navigate] = useRoute();
  const prefs = usePreferences();
  const agentName = useAgentName();
  const agents = useQuery(agentsQuery).data;
  const canvases = useQuery(canvasesQuery).data;
  const swarms = useQuery(swarmsQuery).data;

  return useMemo(() => {
    const create = (scope: string, section: string | null) => () => {
      const [view] = scope.split("/");
      navigate(view ?? scope, section);
      actions.request("new", scope);
    };
    const list: Command[] = VIEWS.map((v, index) => ({
      id: `go-${v.id}`,
      group: "go",
      label: t("forms.palette.goTo", { view: t(v.labelKey) }),
      keywords: [v.id],
      icon: <v.icon size={16} />,
      shortcut: `view-${index + 1}`,
      run: () => navigate(v.id),
    }));
    list.push(
      { id: "new-agent", group: "create", label: t("agents.new"), icon: <Plus size={16} />, run: create("catalog/agents", "agents") },
      { id: "new-canvas", group: "create", label: t("canvas.new"), icon: <Plus size={16} />, run: create("canvas", null) },
      { id: "new-swarm", group: "create", label: t("swarms.new"), icon: <Plus size={16} />, run: create("swarms", null) },
      { id: "new-chat", group: "create", label: t("chat.new"), icon: <Plus size={16} />, run: create("chat", null) },
    );
    for (const agent of agents ?? []) {
      list.push({
        id: `agent-${agent.id}`,
        group: "open",
        label: agentName(agent),
        keywords: [agent.id],
        tag: t("forms.palette.kind.agent"),
        icon: <Bot size={16} />,
        run: () => {
          navigate("catalog", "agents");
          actions.request("open", "catalog/agents", agent.id);
        },
      });
    }
    for (const canvas of canvases ?? []) {
      list.push({
        id: `canvas-${canvas.id}`,
        group: "open",
        label: canvas.name ?? t("canvas.untitled"),
        tag: t("forms.palette.kind.canvas"),
        icon: <LayoutPanelLeft size={16} />,
        run: () => navigate("canvas", canvas.id),
      });
    }
    for (const swarm of swarms ?? []) {
      list.push({
        id: `swarm-${swarm.id}`,
        group: "open",
        label: swarm.name,
        keywords: [swarm.id],
        tag: t("forms.palette.kind.swarm"),
        icon: <Network size={16} />,
        run: () => navigate("swarms", swarm.id),
      });
    }
    const dark = prefs.resolvedTheme === "dark";
    const other = prefs.language === "es" ? "en" : "es";
    list.push(
      {
        id: "theme",
        group: "prefs",
        label: t(dark ? "forms.palette.themeLight" : "forms.palette.themeDark"),
        keywords: [t("appearance.theme")],
        icon: dark ? <Sun size={16} /> : <Moon size={16} />,
        run: () => prefs.setTheme(dark ? "light" : "dark"),
      },
      {
        id: "language",
        group: "prefs",
        label: t("forms.palette.language", { language: t(`language.${other}`) }),
        keywords: [t("appearance.language"), "english", "español"],
        icon: <Languages size={16} />,
        run: () => prefs.setLanguage(other),
      },
    );
    return list;
  }, [t, navigate, prefs, agentName, agents, canvases, swarms]);
}

const GROUPS: Command["group"][] = ["go", "create", "open", "prefs"];

function Palette({ onClose }: { onClose(): void }) {
  const { t } = useTranslation();
  const commands = useCommands();
  const [query, setQuery] = useState("");
  const [index, setIndex] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  const listRef = useRef<HTMLUListElement>(null);

  const shown = useMemo(() => {
    const found = filterList(commands, query, (c) => [c.label, c.tag, ...(c.keywords ?? [])]);
    // Grouped in a fixed order; the groups' own order is kept.
    return GROUPS.flatMap((g) => found.filter((c) => c.group === g));
  }, [commands, query]);
  const active = Math.min(index, Math.max(shown.length - 1, 0));

  useEffect(() => {
    const previous = document.activeElement as HTMLElement | null;
    input.current?.focus();
    return () => previous?.focus?.();
  }, []);

  useEffect(() => {
    listRef.current?.querySelector<HTMLElement>(`[data-index="${active}"]`)?.scrollIntoView?.({ block: "nearest" });
  }, [active]);

  const run = (command: Command | undefined) => {
    if (!command) return;
    onClose();
    command.run();
  };

  const onKeyDown = (event: ReactKeyboardEvent) => {
    if (event.key === "Escape") {
      event.preventDefault();
      onClose();
    } else if (event.key === "ArrowDown") {
      event.preventDefault();
      setIndex((active + 1) % Math.max(shown.length, 1));
    } else if (event.key === "ArrowUp") {
      event.preventDefault();
      setIndex((active - 1 + shown.length) % Math.max(shown.length, 1));
    } else if (event.key === "Enter") {
      event.preventDefault();
      run(shown[active]);
    } else if (event.key === "Tab") {
      event.preventDefault();
    }
  };

  return (
    <div className="cmdk-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div className="cmdk" role="dialog" aria-modal="true" data-palette="" aria-label={t("forms.palette.title")} data-testid="command-palette" onKeyDown={onKeyDown}>
        <div className="cmdk-search">
          <Search size={16} aria-hidden="true" />
          <input
            ref={input}
            className="cmdk-input"
            value={query}
            placeholder={t("forms.palette.placeholder")}
            aria-label={t("forms.palette.placeholder")}
            role="combobox"
            aria-expanded="true"
            aria-controls="cmdk-list"
            aria-activedescendant={shown[active] ? `palette-${shown[active].id}` : undefined}
            spellCheck={false}
            data-testid="palette-input"
            onChange={(e) => {
              setQuery(e.target.value);
              setIndex(0);
            }}
          />
          <kbd className="kbd">Esc</kbd>
        </div>
        <ul className="cmdk-list" id="cmdk-list" role="listbox" ref={listRef} aria-label={t("forms.palette.title")}>
          {shown.length === 0 && <li className="cmdk-empty muted">{t("forms.palette.nothing", { query })}</li>}
          {shown.map((command, i) => {
            const heading = command.group !== shown[i - 1]?.group ? t(`forms.palette.groups.${command.group}`) : null;
            return (
              <li key={command.id} role="presentation">
                {heading && <div className="cmdk-group" role="presentation">{heading}</div>}
                <div
                  id={`palette-${command.id}`}
                  role="option"
                  aria-selected={i === active}
                  data-index={i}
                  data-testid={`palette-${command.id}`}
                  className={i === active ? "cmdk-item active" : "cmdk-item"}
                  onMouseMove={() => i !== active && setIndex(i)}
                  onMouseDown={(e) => e.preventDefault()}
                  onClick={() => run(command)}
                >
                  <span className="cmdk-icon">{command.icon}</span>
                  <span className="cmdk-label">{command.label}</span>
                  {command.tag && <span className="cmdk-tag muted small">{command.tag}</span>}
                  {command.shortcut && <kbd className="kbd">{shortcutKeys(command.shortcut)}</kbd>}
                  {i === active && <CornerDownLeft size={14} className="cmdk-enter" aria-hidden="true" />}
                </div>
              </li>
            );
          })}
        </ul>
        <footer className="cmdk-foot muted small">{t("forms.palette.hint")}</footer>
      </div>
    </div>
  );
}
