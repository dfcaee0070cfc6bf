import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Network, Plus } from "lucide-react";

import type { Swarm } from "../../api";
import { useRoute } from "../../app/route";
import { shortcutTitle, useShortcutAction } from "../../app/shortcutsHooks";
import { Button } from "../../components/Button";
import { filterList, ListFilter } from "../../components/ListFilter";
import { ListItem } from "../../components/ListItem";
import { EmptyState } from "../../components/EmptyState";
import { Spinner } from "../../components/Spinner";
import { swarmsQuery } from "../runs/queries";
import { SwarmDetail } from "./SwarmDetail";

/** Swarms: the list on the left; the selected swarm — its run first, its builder behind a tab — on the right. */
export function SwarmsView() {
  const { t } = useTranslation();
  const [route, navigate] = useRoute();
  useShortcutAction("new", () => navigate("swarms", "new"));
  const swarms = useQuery(swarmsQuery);
  const list = swarms.data ?? [];
  const selected = route.section;
  const current = selected === "new" ? undefined : list.find((s) => s.id === selected) ?? (selected === null ? list[0] : undefined);
  const mode = selected === "new" ? "new" : current ? "edit" : "none";
  const strategyLabel = (s: Swarm) => t(`swarms.strategies.${s.strategy}`);
  const [filter, setFilter] = useState("");
  const shown = filterList(list, filter, (s) => [s.name, s.description, strategyLabel(s)]);

  return (
    <div className="page page-wide">
      <header className="view-head">
        <h1>{t("swarms.title")}</h1>
        <p className="muted">{t("swarms.subtitle")}</p>
      </header>
      <div className="split">
        <aside className="list-pane">
          <Button variant="primary" icon={<Plus size={16} />} onClick={() => navigate("swarms", "new")} title={shortcutTitle(t("swarms.new"), "new")} data-testid="new-swarm">
            {t("swarms.new")}
          </Button>
          {swarms.isPending && <Spinner />}
          {list.length > 0 && (
            <ListFilter value={filter} onChange={setFilter} label={t("forms.filter.swarms")} shown={shown.length} total={list.length} testId="swarms-filter" />
          )}
          {list.length > 0 && shown.length === 0 && <p className="muted small">{t("forms.filter.none")}</p>}
          <ul className="item-list" aria-label={t("swarms.title")}>
            {shown.map((swarm) => (
              <ListItem
                key={swarm.id}
                active={swarm.id === current?.id && mode === "edit"}
                off={!swarm.enabled}
                icon={<Network size={15} />}
                title={swarm.name}
                sub={
                  swarm.enabled
                    ? t("swarms.summary", { strategy: strategyLabel(swarm), count: swarm.members.length })
                    : t("common.disabled")
                }
                onSelect={() => navigate("swarms", swarm.id)}
                testId={`swarm-${swarm.id}`}
              />
            ))}
          </ul>
        </aside>
        <div className="detail-pane">
          {mode === "none" && !swarms.isPending && (
            <EmptyState
              icon={<Network size={22} />}
              title={t("swarms.empty.title")}
              body={t("swarms.empty.body")}
              action={
                <Button variant="primary" icon={<Plus size={16} />} onClick={() => navigate("swarms", "new")}>
                  {t("swarms.new")}
                </Button>
              }
            />
          )}
          {mode === "new" && <SwarmDetail key="new" onSelect={(id) => navigate("swarms", id)} />}
          {mode === "edit" && current && <SwarmDetail key={current.id} swarm={current} onSelect={(id) => navigate("swarms", id)} />}
        </div>
      </div>
    </div>
  );
}
