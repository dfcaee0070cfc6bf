// The app's views. Navigation shows exactly these; each later capability
// adds its view here.

import type { LucideIcon } from "lucide-react";
import { Settings } from "lucide-react";

export type ViewId = "settings";

export interface ViewDef {
  id: ViewId;
  labelKey: string;
  icon: LucideIcon;
}

export const VIEWS: readonly ViewDef[] = [{ id: "settings", labelKey: "nav.settings", icon: Settings }];

export const DEFAULT_VIEW: ViewId = "settings";
