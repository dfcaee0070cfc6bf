// The app's views. Navigation shows exactly these; each later capability
// adds its view here.

import type { LucideIcon } from "lucide-react";
import { Activity, Boxes, Brain, CalendarClock, Inbox, LayoutPanelLeft, MessageSquare, Network, Settings } from "lucide-react";

export type ViewId = "activity" | "canvas" | "catalog" | "swarms" | "chat" | "inbox" | "cron" | "memory" | "settings";

export interface ViewDef {
  id: ViewId;
  labelKey: string;
  icon: LucideIcon;
}

export const VIEWS: readonly ViewDef[] = [
  { id: "activity", labelKey: "nav.activity", icon: Activity },
  { id: "canvas", labelKey: "nav.canvas", icon: LayoutPanelLeft },
  { id: "catalog", labelKey: "nav.catalog", icon: Boxes },
  { id: "swarms", labelKey: "nav.swarms", icon: Network },
  { id: "chat", labelKey: "nav.chat", icon: MessageSquare },
  { id: "inbox", labelKey: "nav.inbox", icon: Inbox },
  { id: "cron", labelKey: "nav.cron", icon: CalendarClock },
  { id: "memory", labelKey: "nav.memory", icon: Brain },
  { id: "settings", labelKey: "nav.settings", icon: Settings },
];

// A new workspace opens on the canvas (the sample, or presets to start
// from), never on a form; once anything has run, on Activity (the backend
// hands the window that route: src-tauri `home_route`).
export const DEFAULT_VIEW: ViewId = "canvas";
