import type { ComponentType } from "react";
import { useTranslation } from "react-i18next";
import { Bot, MonitorSmartphone, Network, Palette, Plug, Search, Server, ShieldCheck } from "lucide-react";
import type { LucideIcon } from "lucide-react";

import { useRoute } from "../../app/route";
import { ProvidersSection } from "../providers/ProvidersSection";
import { AppearanceSection } from "./AppearanceSection";
import { ConnectSection } from "./ConnectSection";
import { DataSection } from "./DataSection";
import { DesktopSection } from "./DesktopSection";
import { ServerSection } from "./ServerSection";
import { TeamBusSection } from "./TeamBusSection";
import { WebSearchSection } from "./WebSearchSection";

const SECTIONS: { id: string; icon: LucideIcon; component: ComponentType }[] = [
  { id: "providers", icon: Plug, component: ProvidersSection },
  { id: "search", icon: Search, component: WebSearchSection },
  { id: "server", icon: Server, component: ServerSection },
  { id: "bus", icon: Network, component: TeamBusSection },
  { id: "connect", icon: Bot, component: ConnectSection },
  { id: "appearance", icon: Palette, component: AppearanceSection },
  { id: "desktop", icon: MonitorSmartphone, component: DesktopSection },
  { id: "data", icon: ShieldCheck, component: DataSection },
];

export function SettingsView() {
  const { t } = useTranslation();
  const [route, navigate] = useRoute();
  const active = SECTIONS.find((s) => s.id === route.section) ?? SECTIONS[0]!;
  const Section = active.component;
  return (
    <div className="settings">
      <header className="view-head">
        <h1>{t("settings.title")}</h1>
      </header>
      <div className="settings-body">
        <nav className="settings-nav" aria-label={t("settings.sectionsLabel")}>
          {SECTIONS.map(({ id, icon: Icon }) => (
            <button
              key={id}
              className={id === active.id ? "settings-link active" : "settings-link"}
              aria-current={id === active.id ? "page" : undefined}
              data-testid={`settings-${id}`}
              onClick={() => navigate("settings", id)}
            >
              <Icon size={16} aria-hidden="true" />
              {t(`settings.sections.${id}`)}
            </button>
          ))}
        </nav>
        <div className="settings-content">
          <Section />
        </div>
      </div>
    </div>
  );
}
