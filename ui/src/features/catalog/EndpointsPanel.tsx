// HTTP endpoints: the person's own APIs as tools. The list shows how each
// is called and the tool name agents get; from here one is declared,
// edited (with a live preview of the request and a Test button), switched
// and deleted.

import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { Plus } from "lucide-react";

import type { Endpoint } from "../../api";
import { Button } from "../../components/Button";
import { filterList, ListFilter } from "../../components/ListFilter";
import { Spinner } from "../../components/Spinner";
import { useUndo } from "../../components/UndoToast";
import { EndpointDialog } from "./EndpointDialog";
import { EndpointRow } from "./EndpointRow";
import { endpointsQuery } from "./queries";

export function EndpointsPanel() {
  const { t } = useTranslation();
  const endpoints = useQuery(endpointsQuery);
  const [filter, setFilter] = useState("");
  const [editing, setEditing] = useState<Endpoint | "new" | null>(null);
  const undo = useUndo();
  const list = (endpoints.data ?? []).filter((e) => !undo.isHidden(`endpoint:${e.id}`));
  const shown = filterList(list, filter, (e) => [e.name, e.tool, e.url, e.description, e.method]);

  return (
    <div className="section" data-testid="endpoints-panel">
      <div className="toolbar mcp-toolbar">
        <p className="muted">{t("endpoints.subtitle")}</p>
        <div className="button-row">
          <Button variant="primary" icon={<Plus size={16} />} onClick={() => setEditing("new")} data-testid="endpoint-add">
            {t("endpoints.add")}
          </Button>
        </div>
      </div>
      {list.length > 3 && (
        <ListFilter className="rules-filter" value={filter} onChange={setFilter} label={t("endpoints.filter")} shown={shown.length} total={list.length} testId="endpoint-filter" />
      )}
      {endpoints.isPending && <Spinner size={18} />}
      {endpoints.data && list.length === 0 && (
        <div className="card mcp-empty">
          <p>{t("endpoints.empty")}</p>
          <p className="muted small">{t("endpoints.emptyHint")}</p>
        </div>
      )}
      {filter && shown.length === 0 && <p className="muted">{t("forms.filter.none")}</p>}
      <ul className="mcp-list" aria-label={t("catalog.tabs.endpoints")}>
        {shown.map((endpoint) => (
          <EndpointRow key={endpoint.id} endpoint={endpoint} onEdit={() => setEditing(endpoint)} />
        ))}
      </ul>
      {editing !== null && <EndpointDialog key={editing === "new" ? "new" : editing.id} endpoint={editing === "new" ? undefined : editing} onClose={() => setEditing(null)} />}
    </div>
  );
}
